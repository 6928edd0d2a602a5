#!/usr/bin/env python3
"""Generates a trace with Gavel's own generator (scripts/utils/generate_trace.py of a Gavel checkout).

  gen_gavel_trace.py --gavel /tmp/gavel/scheduler -- --num_jobs 400 --lam 200 --seed 1 --output_file T.trace

Everything after `--` goes to Gavel's script unchanged (its defaults: single-GPU jobs of 1-4 h on a V100).
"""
import os
import runpy
import sys

import gavel_env


def main():
    argv = sys.argv[1:]
    if "--gavel" not in argv or "--" not in argv:
        sys.exit(__doc__)
    gavel = argv[argv.index("--gavel") + 1]
    rest = argv[argv.index("--") + 1:]
    gavel_env.setup(gavel)
    os.chdir(gavel)  # Gavel's default throughputs file is relative
    sys.argv = ["generate_trace.py"] + rest
    runpy.run_path(os.path.join(gavel, "scripts", "utils", "generate_trace.py"), run_name="__main__")


if __name__ == "__main__":
    main()

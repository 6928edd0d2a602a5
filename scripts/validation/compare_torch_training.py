#!/usr/bin/env python3
"""Compare Orrery's estimates with measured PyTorch training steps (torch_training.jsonl).

Reads the rows that scripts/validation/measure_torch_training.py wrote, asks `orrery-cli throughput` and
`orrery-cli memory` for each configuration (optionally with a calibration file from `orrery-cli profile`),
and prints the per-row time and memory errors with their medians. docs/models/profiler.md quotes its
output for the H200 measurements of 2026-11-26:

    scripts/validation/compare_torch_training.py data/validation/torch-training-h200-2026-11-26.jsonl \
        [--calibration data/calibration/h200-2026-11-26.json]
"""
import argparse
import json
import statistics
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl", help="torch_training.jsonl")
    ap.add_argument("--cli", default="build/app/orrery-cli", help="orrery-cli to ask")
    ap.add_argument("--calibration", help="calibration file from orrery-cli profile")
    ap.add_argument("--framework", default="pytorch", help="framework profile to estimate with")
    ap.add_argument("--gpu", default="h200", help="Orrery GPU type of the measurements")
    args = ap.parse_args()

    rows = [json.loads(line) for line in open(args.jsonl) if line.strip()]
    rows = [r for r in rows if r.get("type") == "config" and r.get("status") == "ok"]
    if not rows:
        sys.exit(f"{args.jsonl}: no measured configurations")
    base = [args.cli] + (["--calibration", args.calibration] if args.calibration else [])
    time_err, alloc_err, reserved_err = [], [], []
    by_group = {}  # (model, mode, recompute, accumulation) -> signed allocated errors
    for r in rows:
        training = ["--model", r["model"], "--batch", str(r.get("batch", r["micro_batch"])), "--micro-batch",
                    str(r["micro_batch"]), "--seq", str(r["seq"]), "--precision", "bf16", "--optimizer", "adamw",
                    "--framework", args.framework, "--recompute", r.get("recompute", "none"), "--flash-attn", "--json"]
        training += ["--autocast"] if r["mode"] == "amp" else ["--pure-half"]
        t = json.loads(subprocess.check_output(base + ["throughput", "--gpu", args.gpu] + training))
        m = json.loads(subprocess.check_output(base + ["memory"] + training))
        measured = r["step_median_s"]
        e = t["iteration_s"] / measured - 1
        a = m["allocated_gib"] / r["peak_alloc_gib"] - 1
        s = m["reserved_gib"] / r["peak_reserved_gib"] - 1
        time_err.append(abs(e))
        alloc_err.append(abs(a))
        reserved_err.append(abs(s))
        # Where the model puts the peak (docs/models/memory.md, "Where the peak is"): the optimizer step holds no
        # activations; the start of backward holds gradients only when they were kept or accumulated.
        peak = ("optimizer step" if m["activations_gib"] == 0 else
                "backward, no gradients" if m["gradients_gib"] == 0 else "backward with gradients")
        group = (r["model"], r["mode"], r.get("recompute", "none"), "accumulation" if r.get("grad_accum", 1) > 1 else "")
        by_group.setdefault(group, []).append(a)
        print(f"{r['config']:<36} step {measured:.4f} s predicted "
              f"{t['iteration_s']:.4f} s ({e:+.1%}) | allocated {r['peak_alloc_gib']:.2f} GiB ({a:+.1%}, {peak}) "
              f"| reserved {r['peak_reserved_gib']:.2f} GiB ({s:+.1%})")
    print("allocated memory by group (model, mode, recompute, accumulation): mean signed error, worst")
    for group, errs in sorted(by_group.items()):
        worst = max(errs, key=abs)
        print(f"  {' '.join(x for x in group if x):<40} {len(errs):>2} rows {statistics.mean(errs):+.1%} {worst:+.1%}")
    print(f"{len(rows)} rows: median |time error| {statistics.median(time_err):.1%}, mean "
          f"{statistics.mean(time_err):.1%}; memory accuracy allocated {1 - statistics.mean(alloc_err):.1%}, "
          f"reserved {1 - statistics.mean(reserved_err):.1%}")


if __name__ == "__main__":
    main()

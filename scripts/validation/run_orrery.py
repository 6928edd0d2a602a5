#!/usr/bin/env python3
"""Runs `orrery-cli simulate` on a Gavel trace under gavel_compat, in Gavel's validation setup.

  run_orrery.py --cli build/app/orrery-cli --trace T.trace --policy allox [--policy ...] [--cluster 36:36:36]

Writes a scenario (36 V100 + 36 P100 + 36 K80 one-GPU nodes unless --cluster says otherwise, Gavel's
simulation_throughputs.json, seed 0, gavel_compat) to a temporary file, runs each policy in its own
process (so that the process time is the policy's alone), and prints one JSON line per policy: average
JCT, jobs completed, and the whole process's wall and CPU (user + system) time.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

SHARED = os.environ.get("ORRERY_SHARED", "/work/shared")


def scenario(trace, cluster, seed):
    v, p, k = (int(x) for x in cluster.split(":"))
    nodes = [{"name": n, "gpu": g, "count": c, "gpus_per_node": 1}
             for n, g, c in (("v", "v100", v), ("p", "p100", p), ("k", "k80", k)) if c > 0]
    return {"format": "orrery-scenario", "version": 1, "name": os.path.basename(trace),
            "cluster": {"nodes": nodes, "network": {"kind": "ethernet", "bandwidth_gbit_s": 25}},
            "workload": {"trace": {"format": "gavel", "path": os.path.abspath(trace)}},
            "policies": ["fifo"],
            "options": {"seed": seed, "gavel_compat": True,
                        "throughputs": os.path.join(SHARED, "data/gavel/simulation_throughputs.json")}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--policy", action="append", required=True)
    ap.add_argument("--cluster", default="36:36:36")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario(args.trace, args.cluster, args.seed), f)
        path = f.name
    try:
        for policy in args.policy:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            out = subprocess.run([args.cli, "simulate", path, "--policy", policy, "--json"], check=True,
                                 capture_output=True, text=True).stdout
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            run = json.loads(out)["runs"][0]
            print(json.dumps({"policy": policy, "trace": os.path.basename(args.trace),
                              "completed": run["jobs_completed"], "avg_jct_s": run["avg_jct_s"],
                              "process_wall_s": round(wall, 4), "process_cpu_s": round(cpu, 4)}))
            sys.stdout.flush()
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()

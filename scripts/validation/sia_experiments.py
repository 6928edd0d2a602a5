#!/usr/bin/env python3
"""Sia vs Gavel's heterogeneity-aware policies and the goodput baselines on Sia's workloads (docs/experiments/sia.md).

For each workload file of a set (sia/workloads/<set>/*.csv): `orrery-cli import --format sia` (Sia's 64-GPU
heterogeneous cluster, or --cluster), then `orrery-cli simulate` under every policy; prints per policy the mean
over the files of average JCT, p99 JCT, makespan and GPU-hours, and each relative to sia.

Usage: sia_experiments.py CLI SET_DIR [--files N] [--policy SPEC ...] [--cluster SPEC] [--out DIR]
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile

POLICIES = [
    "sia",
    "optimus",
    "tiresias:preset=pollux",
    "max_min_fairness_perf:round_s=360",
    "finish_time_fairness_perf:round_s=360",
    "max_sum_throughput_perf:round_s=360",
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("set_dir")
    p.add_argument("--files", type=int, default=0)
    p.add_argument("--policy", action="append")
    p.add_argument("--cluster", default="")
    p.add_argument("--out", default="")
    a = p.parse_args()
    policies = a.policy or POLICIES
    files = sorted(glob.glob(os.path.join(a.set_dir, "*.csv")), key=lambda f: (len(f), f))
    if a.files:
        files = files[: a.files]
    out = a.out or tempfile.mkdtemp(prefix="sia-exp-")
    rows = {pol: [] for pol in policies}
    for f in files:
        scen = os.path.join(out, os.path.basename(f).replace(".csv", ".json"))
        cmd = [a.cli, "import", "--format", "sia", f, "-o", scen]
        if a.cluster:
            cmd += ["--cluster", a.cluster]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        for pol in policies:
            r = subprocess.run([a.cli, "simulate", scen, "--policy", pol, "--json"], check=True, capture_output=True,
                               text=True)
            run = json.loads(r.stdout)["runs"][0]
            rows[pol].append(run)
            print(f"{os.path.basename(f)} {pol}: avg JCT {run['avg_jct_s']:.0f} s, p99 {run['p99_jct_s']:.0f} s, "
                  f"makespan {run['makespan_s']:.0f} s, {run['gpu_hours']:.1f} GPU-h, "
                  f"decision wall {run['decision_wall_s_total']:.2f} s over {run['decisions']} decisions", flush=True)
    mean = lambda pol, k: sum(r[k] for r in rows[pol]) / len(rows[pol])
    print(f"\n{len(files)} files of {a.set_dir}")
    print("| policy | avg JCT (h) | p99 JCT (h) | makespan (h) | GPU-hours | avg JCT vs sia | p99 vs sia | makespan vs sia "
          "| GPU-h vs sia |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = policies[0]
    for pol in policies:
        v = [mean(pol, k) for k in ("avg_jct_s", "p99_jct_s", "makespan_s", "gpu_hours")]
        b = [mean(base, k) for k in ("avg_jct_s", "p99_jct_s", "makespan_s", "gpu_hours")]
        rel = " | ".join(f"{100 * (x / y - 1):+.0f}%" for x, y in zip(v, b))
        print(f"| `{pol}` | {v[0] / 3600:.2f} | {v[1] / 3600:.2f} | {v[2] / 3600:.2f} | {v[3]:.0f} | {rel} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Sia's decision time per round as the cluster grows (docs/performance.md, "Sia at scale").

Imports sia/workloads/scale/scale_<N>x/workload-1.csv (each Saturn job issued N times) onto N copies of Sia's
64-GPU cluster, simulates `sia` (optionally only the first --limit arrivals, to bound the run), and reads the
wall time of every decision on the 60 s grid from the run store (`runs show --json`): prints per scale the
rounds, the active jobs at the busiest round, the mean, median, p95 and max seconds per round, and the CPU
seconds of the whole simulation over its wall seconds (on a shared machine, wall time per round is inflated by
the load; the CPU share shows by how much).

Usage: sia_scale.py CLI SCALE_DIR [--scales 2,4,8] [--limit N] [--policy sia] [--out DIR]
"""
import argparse
import json
import os
import resource
import statistics
import time
import subprocess
import tempfile


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("scale_dir")
    p.add_argument("--scales", default="2,4,8")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--policy", default="sia")
    p.add_argument("--out", default="")
    a = p.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="sia-scale-")
    print("| scale | GPUs | jobs | rounds | most active jobs | mean s/round | median | p95 | max | run CPU s / wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in a.scales.split(",")]:
        w = os.path.join(a.scale_dir, f"scale_{n}x", "workload-1.csv")
        scen = os.path.join(out, f"scale{n}.json")
        db = os.path.join(out, f"scale{n}.db")
        if os.path.exists(db):
            os.remove(db)
        profiles = os.path.join(a.scale_dir, "..", "..", "profiles")
        cmd = [a.cli, "import", "--format", "sia", w, "-o", scen, "--profiles", profiles, "--cluster",
               f"t4:{24 * n}/4,rtx2080ti:{24 * n}/8,a100-40gb-sxm:{16 * n}/8"]
        if a.limit:
            cmd += ["--limit", str(a.limit)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        subprocess.run([a.cli, "simulate", scen, "--policy", a.policy, "--db", db], check=True,
                       stdout=subprocess.DEVNULL)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        show = json.loads(subprocess.run([a.cli, "runs", "show", "1", "--db", db, "--json"], check=True,
                                         capture_output=True, text=True).stdout)
        rounds = [d for d in show["decisions"] if abs(d["sim_time_s"] / 60 - round(d["sim_time_s"] / 60)) < 1e-9]
        walls = sorted(d["wall_s"] for d in rounds)
        active = max(d["queued"] + d["running"] for d in rounds)
        p95 = walls[min(len(walls) - 1, int(0.95 * len(walls)))]
        print(f"| {n}x | {64 * n} | {len(show['jobs'])} | {len(walls)} | {active} | {statistics.mean(walls):.3f} | "
              f"{statistics.median(walls):.3f} | {p95:.3f} | {walls[-1]:.3f} | {cpu:.0f} / {wall:.0f} |", flush=True)


if __name__ == "__main__":
    main()

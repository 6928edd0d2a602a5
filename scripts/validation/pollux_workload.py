#!/usr/bin/env python3
"""Turn a Pollux (OSDI'21) simulator workload into an Orrery scenario.

A Pollux workload row (`name,time,application,num_replicas,batch_size`) names
an application whose speed Pollux's simulator interpolates from measured
traces (placement, batch size, statistical efficiency by epoch). Orrery has no
such model, so each job becomes a fixed request of `num_replicas` GPUs whose
`duration_s` is what Pollux's own job model takes to train it alone on the
packed placement its Tiresias baseline gives an empty cluster (full 4-GPU
nodes first), at the workload's batch size. The run is measured with Pollux's
code (`--pollux-sim`: the `simulator/` folder of petuum/adaptdl, branch
osdi21-artifact), so nothing of it is re-derived here.

Pollux's simulator pauses a job 30 s at every allocation, the first included,
and never slows it for interference by default: the scenario sets
`restart_penalty_s` and `load_time_s` to 30 and `cross_node_slowdown` to 1.

Usage: pollux_workload.py WORKLOAD.csv --pollux-sim DIR -o SCENARIO.json [--nodes 16]
"""

import argparse
import csv
import json
import os
import sys

GPUS_PER_NODE = 4  # Pollux's simulator's default --num-gpus
PAUSE_S = 30  # Job.reallocate: rescale_time = 30 at every allocation


def standalone_seconds(job_cls, app, name, replicas, batch_size):
    job = job_cls(name, app, 0, target_num_replicas=replicas, target_batch_size=batch_size)
    placement = [GPUS_PER_NODE] * (replicas // GPUS_PER_NODE)
    if replicas % GPUS_PER_NODE:
        placement.append(replicas % GPUS_PER_NODE)
    job.reallocate(placement)
    # Steps of a day at most; a job of the workloads takes hours at most.
    while job.completion_time is None and job.current_time < 10 * 86400:
        job.step(600)
    if job.completion_time is None:
        sys.exit(f"pollux_workload.py: {name}: does not finish within 10 days alone")
    return job.completion_time - PAUSE_S


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("workload")
    p.add_argument("--pollux-sim", required=True, help="Pollux's simulator/ folder (applications.py, traces/)")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--nodes", type=int, default=16, help="4-GPU nodes (Pollux's --min-nodes, default 16)")
    p.add_argument("--gpu", default="v100-16gb")
    a = p.parse_args()
    sim_dir = os.path.abspath(a.pollux_sim)
    sys.path.insert(0, sim_dir)
    cwd = os.getcwd()
    os.chdir(sim_dir)  # applications.py reads traces/ relative to the working directory
    try:
        from applications import APPLICATIONS
        from simulator import Job
    finally:
        os.chdir(cwd)

    jobs = []
    with open(a.workload, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            for field in ("name", "time", "application", "num_replicas", "batch_size"):
                if not row.get(field):
                    sys.exit(f"pollux_workload.py: {a.workload}: row {line}: {field}: missing")
            if row["application"] not in APPLICATIONS:
                sys.exit(f"pollux_workload.py: {a.workload}: row {line}: application: unknown {row['application']!r}")
            replicas, bsz = int(row["num_replicas"]), int(row["batch_size"])
            seconds = standalone_seconds(Job, APPLICATIONS[row["application"]], row["name"], replicas, bsz)
            jobs.append({"id": row["name"], "arrival_s": int(row["time"]), "gpus": replicas,
                         "duration_s": seconds, "reference_gpu": a.gpu})
    base = os.path.basename(a.workload)
    scenario = {
        "format": "orrery-scenario",
        "version": 1,
        "name": f"pollux {base} on {a.nodes}x{GPUS_PER_NODE}",
        "description": (f"Converted by scripts/validation/pollux_workload.py from {base}: durations are Pollux's "
                        "job model run alone on a packed placement; 30 s pause per allocation"),
        "cluster": {"nodes": [{"name": "node", "gpu": a.gpu, "count": a.nodes, "gpus_per_node": GPUS_PER_NODE}]},
        "workload": {"jobs": jobs},
        "policies": ["tiresias:preset=pollux"],
        "options": {"restart_penalty_s": PAUSE_S, "load_time_s": PAUSE_S, "cross_node_slowdown": 1,
                    "reference_gpu": a.gpu},
    }
    with open(a.output, "w") as f:
        f.write(json.dumps(scenario, indent=1) + "\n")


if __name__ == "__main__":
    main()

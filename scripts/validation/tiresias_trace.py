#!/usr/bin/env python3
"""Turn a Tiresias simulator job trace and cluster spec into an Orrery scenario.

Tiresias' simulator (SymbioticLab/Tiresias, simulator/) reads a job trace
(`job_id,num_gpu,submit_time,iterations,model_name,duration,interval`, seconds)
and a cluster spec (`num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,
mem_p_node`). Its schedulers count GPUs and run each job for exactly `duration`
seconds once started: no restart cost, no slowdown across nodes, one GPU type.
The scenario written here says the same to Orrery: one node group of
num_switch x num_node_p_switch nodes, fixed-request jobs whose `duration_s` is
measured on the cluster's own GPU type, `restart_penalty_s` 0, `load_time_s` 0
and `cross_node_slowdown` 1. CPU and memory columns are not modelled by Orrery;
Tiresias' `dlas`/`dlas-gpu` schedulers ignore them too (they count GPUs only).

`--nodes N` replaces num_node_p_switch x num_switch (e.g. 4 nodes of 4 GPUs):
the shipped specs hold 64 or more GPUs, on which the 60-job trace never queues.

Usage: tiresias_trace.py TRACE.csv SPEC.csv -o SCENARIO.json [--nodes N] [--gpu TYPE]
"""

import argparse
import csv
import json
import sys

TRACE_FIELDS = ("job_id", "num_gpu", "submit_time", "duration")
SPEC_FIELDS = ("num_switch", "num_node_p_switch", "num_gpu_p_node")


def fail(path, row, field, what):
    where = f"{path}: row {row}: {field}" if row is not None else f"{path}: {field}"
    sys.exit(f"tiresias_trace.py: {where}: {what}")


def positive_int(path, row, field, text, allow_zero=False):
    try:
        value = int(text.strip())
    except (ValueError, AttributeError):
        fail(path, row, field, f"expected an integer, got {text!r}")
    if value < 0 or (value == 0 and not allow_zero):
        fail(path, row, field, f"expected {'>= 0' if allow_zero else '> 0'}, got {value}")
    return value


def read_rows(path, fields):
    # newline="" keeps the csv module in charge of Tiresias' CRLF line ends.
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in fields if c not in (reader.fieldnames or [])]
        if missing:
            fail(path, None, "header", f"missing column(s) {', '.join(missing)}")
        # Data rows start at line 2 of the file.
        return [(i + 2, row) for i, row in enumerate(reader)]


def convert(trace, spec, nodes_override, gpu):
    spec_rows = read_rows(spec, SPEC_FIELDS)
    if len(spec_rows) != 1:
        fail(spec, None, "rows", f"expected one cluster row, got {len(spec_rows)}")
    line, s = spec_rows[0]
    switches = positive_int(spec, line, "num_switch", s["num_switch"])
    per_switch = positive_int(spec, line, "num_node_p_switch", s["num_node_p_switch"])
    gpus_per_node = positive_int(spec, line, "num_gpu_p_node", s["num_gpu_p_node"])
    nodes = nodes_override if nodes_override else switches * per_switch

    jobs = []
    seen = set()
    for line, r in read_rows(trace, TRACE_FIELDS):
        job_id = r["job_id"].strip()
        if job_id in seen:
            fail(trace, line, "job_id", f"duplicate id {job_id!r}")
        seen.add(job_id)
        jobs.append(
            {
                "id": job_id,
                "arrival_s": positive_int(trace, line, "submit_time", r["submit_time"], allow_zero=True),
                "gpus": positive_int(trace, line, "num_gpu", r["num_gpu"]),
                "duration_s": positive_int(trace, line, "duration", r["duration"]),
                "reference_gpu": gpu,
            }
        )
    if not jobs:
        fail(trace, None, "rows", "no jobs")
    return {
        "format": "orrery-scenario",
        "version": 1,
        "name": f"tiresias {trace.rsplit('/', 1)[-1]} on {nodes}x{gpus_per_node}",
        "description": (
            f"Converted by scripts/validation/tiresias_trace.py from {trace.rsplit('/', 1)[-1]} and "
            f"{spec.rsplit('/', 1)[-1]}" + (f" with {nodes} nodes" if nodes_override else "") +
            ": Tiresias' simulator semantics (no restart cost, no cross-node slowdown)"
        ),
        "cluster": {"nodes": [{"name": "node", "gpu": gpu, "count": nodes, "gpus_per_node": gpus_per_node}]},
        "workload": {"jobs": jobs},
        "policies": ["fifo", "tiresias", "tiresias:preset=tiresias", "tiresias:preset=pollux"],
        "options": {
            "restart_penalty_s": 0,
            "load_time_s": 0,
            "cross_node_slowdown": 1,
            "reference_gpu": gpu,
        },
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace", help="Tiresias job trace (e.g. 60_job.csv)")
    p.add_argument("spec", help="Tiresias cluster spec (e.g. n32g4.csv)")
    p.add_argument("-o", "--output", required=True, help="scenario file to write ('-': standard output)")
    p.add_argument("--nodes", type=int, default=0, help="node count replacing the spec's (0: the spec's)")
    p.add_argument("--gpu", default="v100-16gb", help="GPU type of every node (any: one type, durations on it)")
    a = p.parse_args()
    if a.nodes < 0:
        sys.exit("tiresias_trace.py: --nodes: expected >= 0")
    scenario = convert(a.trace, a.spec, a.nodes, a.gpu)
    text = json.dumps(scenario, indent=1) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()

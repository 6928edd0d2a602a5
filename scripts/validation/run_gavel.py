#!/usr/bin/env python3
"""Runs Gavel's own simulator (a checkout of stanford-futuredata/gavel, not part of Orrery) on a trace.

Validation only (docs/validation.md). Gavel's LP policies import cvxpy, which Debian lacks: the stand-in in
scripts/validation/cvxpy is put first on the path. Modules Gavel imports but a simulation never uses (the
gRPC runtime, psutil, the matrix-completion throughput estimator) are replaced by empty modules
(gavel_env.py).

  run_gavel.py --gavel /tmp/gavel/scheduler --trace T.trace --policy max_sum_throughput_perf \
      [--cluster 36:36:36] [--seed 0] [--jcts out.tsv] [--dump allocations.jsonl]

--dump writes one JSON line per allocation Gavel computes: the simulated time, per active job (trace index)
its remaining steps, time since start and throughputs per type, the allocation, and for min_total_duration
the T of every feasibility test and whether it was feasible (compare_allocations.py reads it).

Prints one JSON line: policy, trace, jobs completed, average JCT (s, over the jobs Gavel gives a JCT), the
simulation's wall time, and how many solves the stand-in made.
"""
import argparse
import contextlib
import io
import json
import os
import time

import gavel_env

def _job(job_id):
    return int(job_id[0]) if hasattr(job_id, "__getitem__") else int(job_id)


def dump_allocations(sched, policy, out):
    """Wraps the scheduler's allocation step (and min_total_duration's feasibility test) to log each one."""
    tests = []
    inner = getattr(policy, "_min_total_duration_perf_policy", policy)
    if hasattr(inner, "get_allocation_helper"):
        helper = inner.get_allocation_helper

        def logged_helper(*a, **kw):
            status, x = helper(*a, **kw)
            tests.append([a[-1], status == "optimal"])
            return status, x

        inner.get_allocation_helper = logged_helper
    compute = sched._compute_allocation

    def logged_compute(state=None):
        if state is None:
            state = sched._get_allocation_state()
        tests.clear()
        allocation = compute(state)
        jobs = sorted(state["num_steps_remaining"])
        row = {"time": sched.get_current_timestamp(),
               "jobs": [_job(j) for j in jobs],
               "steps_left": [state["num_steps_remaining"][j] for j in jobs],
               "since_start": [state["times_since_start"][j] for j in jobs],
               "rate": [[state["throughputs"][j][t] for t in sorted(state["cluster_spec"])] for j in jobs],
               "types": sorted(state["cluster_spec"]),
               "x": [[float(allocation.get(j, {}).get(t, 0.0)) for t in sorted(state["cluster_spec"])]
                     for j in jobs]}
        if tests:
            row["T_tests"] = list(tests)
        out.write(json.dumps(row) + "\n")
        out.flush()
        return allocation

    sched._compute_allocation = logged_compute


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gavel", required=True, help="Gavel's scheduler/ directory")
    p.add_argument("--trace", required=True)
    p.add_argument("--policy", required=True)
    p.add_argument("--cluster", default="36:36:36")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jcts", help="write job<TAB>JCT here")
    p.add_argument("--dump", help="write every allocation Gavel computes here (JSON lines)")
    args = p.parse_args()

    gavel_env.setup(args.gavel)
    import cvxpy  # noqa: F401  (the stand-in)
    import scheduler
    import utils

    jobs, arrival_times = utils.parse_trace(args.trace)
    policy = utils.get_policy(args.policy, solver="ECOS", seed=args.seed)
    v, pp, k = (int(x) for x in args.cluster.split(":"))
    t0 = time.process_time()
    w0 = time.time()
    with contextlib.redirect_stdout(io.StringIO()):
        sched = scheduler.Scheduler(policy, throughputs_file=os.path.join(args.gavel, "simulation_throughputs.json"),
                                    simulate=True, seed=args.seed, time_per_iteration=360)
        if args.dump:
            dump_allocations(sched, policy, open(args.dump, "w"))
        sched.simulate({"v100": v, "p100": pp, "k80": k}, arrival_times, jobs,
                       num_gpus_per_server={"v100": 1, "p100": 1, "k80": 1})
        avg = sched.get_average_jct(None)
    cpu = time.process_time() - t0
    wall = time.time() - w0
    done = {int(j[0]) if hasattr(j, "__getitem__") else int(j): t for j, t in sched._job_completion_times.items()
            if t is not None}
    if args.jcts:
        with open(args.jcts, "w") as f:
            for j in sorted(done):
                f.write(f"{j}\t{done[j]:.3f}\n")
    print(json.dumps({"policy": args.policy, "trace": os.path.basename(args.trace), "jobs": len(jobs),
                      "completed": len(done), "avg_jct_s": float(avg), "cpu_s": round(cpu, 2),
                      "wall_s": round(wall, 2), "solves": len(cvxpy.solve_log),
                      "solve_outcomes": getattr(cvxpy, "outcomes", {})}))
    sched.shutdown() if hasattr(sched, "shutdown") else None
    os._exit(0)  # Gavel leaves threads behind


if __name__ == "__main__":
    main()

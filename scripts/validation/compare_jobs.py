#!/usr/bin/env python3
"""Compare per-job completion times of a peer simulator run with an Orrery run.

PEER is either Tiresias' simulator's job.csv (columns job_id, submit_time,
end_time, JCT) or a two-column CSV `job_id,jct_s` (written for Pollux's
simulator by pollux_jcts.py); ORRERY is `orrery-cli runs export ID --format csv`
(columns job_id, jct_s, end_s). Prints average JCT and makespan of both, the
number of jobs whose JCT differs by more than --tolerance seconds, and those
jobs. Exit status 0 always: the comparison is a report, not a verdict.

Usage: compare_jobs.py PEER.csv ORRERY.csv [--tolerance S] [--label NAME]
"""

import argparse
import csv


def read_peer(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        jct = float(r["JCT"] if "JCT" in r else r["jct_s"])
        end = float(r["end_time"]) if "end_time" in r else float(r.get("end_s", "nan"))
        out[r["job_id"].strip()] = (jct, end)
    return out


def read_orrery(path):
    with open(path, newline="") as f:
        return {r["job_id"]: (float(r["jct_s"]), float(r["end_s"])) for r in csv.DictReader(f)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("peer")
    p.add_argument("orrery")
    p.add_argument("--tolerance", type=float, default=0.5)
    p.add_argument("--label", default="")
    a = p.parse_args()
    peer, orr = read_peer(a.peer), read_orrery(a.orrery)
    if set(peer) != set(orr):
        print(f"job sets differ: peer only {sorted(set(peer) - set(orr))}, orrery only {sorted(set(orr) - set(peer))}")
    common = sorted(set(peer) & set(orr), key=lambda k: (len(k), k))
    avg = lambda d: sum(d[k][0] for k in common) / len(common)
    span = lambda d: max(d[k][1] for k in common)
    diff = [k for k in common if abs(peer[k][0] - orr[k][0]) > a.tolerance]
    print(
        f"{a.label}: jobs {len(common)}; avg JCT peer {avg(peer):.2f} s, orrery {avg(orr):.2f} s "
        f"({100 * (avg(orr) - avg(peer)) / avg(peer):+.2f}%); makespan peer {span(peer):.0f} s, "
        f"orrery {span(orr):.0f} s; jobs with |dJCT| > {a.tolerance:g} s: {len(diff)}"
    )
    for k in diff:
        print(f"  job {k}: peer {peer[k][0]:.1f} s, orrery {orr[k][0]:.1f} s")


if __name__ == "__main__":
    main()

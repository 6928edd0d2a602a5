#!/usr/bin/env python3
"""Run-store reliability campaign (docs/reliability.md, "Run store").

1. Kills: `orrery-cli simulate --db` of a long run, SIGKILLed at a random moment, KILLS times on one
   file. After every kill: `PRAGMA integrity_check` is ok; every run that had completed is still
   there, unchanged (row and job records); the killed run reads as failed/"interrupted" (read-only
   listing) and is marked so in the file by the next writer.
2. Concurrent writers: WRITERS processes store runs into one new file at once, then as many into the
   same, existing file: all exit 0 and every run is stored complete.

Usage: scripts/store-reliability.py [--cli build/app/orrery-cli] [--kills 50] [--writers 8]
Exit status 0 when every check held. Uses only the standard library (sqlite3 module to check).
"""

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time


def scenario(path, jobs):
    doc = {
        "format": "orrery-scenario", "version": 1, "name": "reliability",
        "cluster": {"nodes": [{"name": "v100", "gpu": "v100", "count": 8, "gpus_per_node": 8},
                              {"name": "k80", "gpu": "k80", "count": 4, "gpus_per_node": 4}],
                    "network": {"kind": "ethernet", "bandwidth_gbit_s": 25}},
        "workload": {"generator": {"jobs": jobs, "rate_per_hour": 120, "seed": 1, "mix": [{"gpus": [1, 2, 4]}]}},
        "policies": ["fifo"],
    }
    with open(path, "w") as f:
        json.dump(doc, f)


def query(db, sql):
    # Read-only, as the checks must not recover or migrate anything themselves.
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute(sql).fetchall()


def completed_fingerprints(db):
    return {row[0]: row[1:] for row in query(
        db, "SELECT r.id, r.finished_at, r.job_count, r.finished_job_count, r.avg_jct_s, "
            "(SELECT sum(records) FROM job_chunks j WHERE j.run_id = r.id), "
            "(SELECT sum(records) FROM interval_chunks i WHERE i.run_id = r.id) "
            "FROM runs r WHERE r.status = 'completed'")}


def list_runs(cli, db):
    out = subprocess.run([cli, "runs", "list", "--db", db, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["runs"]


def wait_for_running_row(db, proc):
    while proc.poll() is None:
        try:
            if query(db, "SELECT count(*) FROM runs WHERE status = 'running'")[0][0] > 0:
                return True
        except sqlite3.Error:
            pass  # not created yet
        time.sleep(0.005)
    return False


def kills(cli, work, count, rng):
    scen = os.path.join(work, "long.json")
    scenario(scen, 100000)
    db = os.path.join(work, "kills.sqlite")
    args = [cli, "simulate", scen, "--policy", "tiresias", "--db", db]
    # One uncut run first: kills are timed against how long a run takes here.
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    t0 = time.monotonic()
    wait_for_running_row(db, proc)
    startup = time.monotonic() - t0
    t1 = time.monotonic()
    if proc.wait() != 0:
        sys.exit("the uncut run failed")
    writing = time.monotonic() - t1
    print(f"one run: {startup:.2f} s to its run row, {writing:.2f} s writing")
    failures = 0
    interrupted = completed_by_kill_rounds = 0
    known = completed_fingerprints(db)
    t_all = time.monotonic()
    for k in range(count):
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if k % 2:
            time.sleep(rng.uniform(0, startup + writing))  # any moment, creation of the run included
        else:
            wait_for_running_row(db, proc)
            time.sleep(rng.uniform(0, writing * 0.8))  # while the run is written
        proc.kill()
        proc.wait()
        problems = []
        check = query(db, "PRAGMA integrity_check")
        if check != [("ok",)]:
            problems.append(f"integrity_check: {check[:3]}")
        now = completed_fingerprints(db)
        for rid, fp in known.items():
            if now.get(rid) != fp:
                problems.append(f"completed run {rid} lost or changed: {fp} -> {now.get(rid)}")
        if len(now) > len(known):
            completed_by_kill_rounds += 1
        known = now
        # The killed run: failed/"interrupted" as listed (read-only: nothing written yet) ...
        for r in list_runs(cli, db):
            if r["status"] == "running":
                problems.append(f"run {r['id']} listed as running after its writer was killed")
        in_file = [row[0] for row in query(db, "SELECT id FROM runs WHERE status = 'running'")]
        interrupted += len(in_file)
        # ... and marked so in the file by the next writer (the next round's simulate, here a delete of nothing).
        subprocess.run([cli, "runs", "delete", "999999999", "--db", db], capture_output=True)
        marked = query(db, "SELECT count(*) FROM runs WHERE status = 'running' OR "
                           "(status = 'failed' AND error <> 'interrupted')")[0][0]
        if marked:
            problems.append(f"{marked} runs not marked failed/interrupted by the next writer")
        for p in problems:
            print(f"kill {k + 1}: {p}")
        failures += bool(problems)
    total = len(query(db, "SELECT id FROM runs"))
    print(f"{count} kills in {time.monotonic() - t_all:.0f} s: {failures} with a problem; {interrupted} runs "
          f"interrupted, {completed_by_kill_rounds} rounds finished before the kill, {total} runs in the store")
    return failures == 0


def writers(cli, work, count):
    scen = os.path.join(work, "small.json")
    scenario(scen, 2000)
    db = os.path.join(work, "writers.sqlite")
    ok = True
    for phase in ("new file", "existing file"):
        t0 = time.monotonic()
        procs = [subprocess.Popen([cli, "simulate", scen, "--policy", ["fifo", "sjf", "tiresias", "max_min_fairness"][i % 4],
                                   "--db", db], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for i in range(count)]
        errors = [(p.wait(), p.stderr.read()) for p in procs]
        bad = [e for rc, e in errors if rc != 0]
        for e in bad:
            print(f"{phase}: a writer failed: {e.strip()}")
        print(f"{count} writers, {phase}: {count - len(bad)} succeeded in {time.monotonic() - t0:.1f} s")
        ok = ok and not bad
    runs = query(db, "SELECT status, job_count, (SELECT sum(records) FROM job_chunks j WHERE j.run_id = r.id) "
                     "FROM runs r")
    complete = sum(1 for status, jobs, stored in runs if status == "completed" and jobs == 2000 and stored == 2000)
    check = query(db, "PRAGMA integrity_check")
    print(f"{len(runs)} runs stored, {complete} complete with 2000 job records; integrity_check {check[0][0]}")
    return ok and complete == 2 * count and check == [("ok",)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build", "app",
                                                  "orrery-cli"))
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cli = os.path.abspath(a.cli)
    with tempfile.TemporaryDirectory() as work:
        ok = writers(cli, work, a.writers)
        ok = kills(cli, work, a.kills, random.Random(a.seed)) and ok
    print("all checks held" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

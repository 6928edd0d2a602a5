#!/usr/bin/env python3
"""Regenerates the tables of docs/experiments/frenzy.md with orrery-cli.

  frenzy-experiments.py queues [--seeds 1 2 3 4 5] [--cli build/app/orrery-cli]
      Frenzy vs Opportunistic on NewWorkload task queues of 30 and 60 jobs, on the testbed and on
      the simulated 44-GPU cluster: per-job samples/s, average queue time, average JCT. Seed 1 is
      the shipped scenario; other seeds are generated the same way (scripts/gen-newworkload.py).
  frenzy-experiments.py memory [--cli ...]
      MARP's memory formula (--mode frenzy) against the itemised model (--mode full) for GPT-2 7B
      and 350M over t, d and batch, and both against data/validation/memory_measurements.csv.
"""
import argparse, csv, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CLUSTER_NAMES = {"testbed": "testbed (11 GPUs)", "sim": "simulated cluster (44 GPUs)"}
PAPER = {30: (29, -13.7, -18.1), 60: (27, -15.2, -15.8)}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def scenario(cluster, jobs, seed, tmp):
    shipped = os.path.join(ROOT, "data", "scenarios",
                           f"frenzy-{'testbed' if cluster == 'testbed' else 'newworkload'}-{jobs}.json")
    if seed == 1:
        return shipped
    path = os.path.join(tmp, f"{cluster}-{jobs}-{seed}.json")
    with open(path, "w") as f:
        f.write(run([sys.executable, os.path.join(ROOT, "scripts", "gen-newworkload.py"), "--jobs", str(jobs),
                     "--seed", str(seed), "--gap-s", "0", "--basis", "marp", "--reject-infeasible",
                     "--cluster", cluster, "--policies", "frenzy", "opportunistic"]))
    return path


def pct(new, old):
    return 100.0 * (new - old) / old


def queues(a):
    policies = ["frenzy", "opportunistic"] + a.ablations
    with tempfile.TemporaryDirectory() as tmp:
        for cluster in ["testbed", "sim"]:
            print(f"\n### NewWorkload on the {CLUSTER_NAMES[cluster]}, seeds {' '.join(map(str, a.seeds))}\n")
            print("| jobs | policy | samples/s per job (run time) | samples/s per job (JCT) | avg queue (min) |"
                  " avg JCT (min) | GPU-hours | vs opportunistic: samples/s (run) | samples/s (JCT) | queue | JCT |")
            print("|---|---|---|---|---|---|---|---|---|---|---|")
            for jobs in [30, 60]:
                per = {p: {"sps": [], "spj": [], "q": [], "jct": [], "gh": []} for p in policies}
                for seed in a.seeds:
                    cmd = [a.cli, "simulate", scenario(cluster, jobs, seed, tmp), "--json"]
                    for p in policies:
                        cmd += ["--policy", p]
                    for r in json.loads(run(cmd))["runs"]:
                        m = per[r["policy"]]
                        m["sps"].append(r["avg_job_samples_per_s"])
                        m["spj"].append(r["avg_job_samples_per_jct_s"])
                        m["q"].append(r["avg_queue_s"])
                        m["jct"].append(r["avg_jct_s"])
                        m["gh"].append(r["gpu_hours"])
                mean = {p: {k: statistics.mean(v) for k, v in per[p].items()} for p in policies}
                base = mean["opportunistic"]
                for p in policies:
                    m = mean[p]
                    rel = ("—",) * 4 if p == "opportunistic" else tuple(
                        f"{pct(m[k], base[k]):+.1f}%" for k in ("sps", "spj", "q", "jct"))
                    print(f"| {jobs} | {p} | {m['sps']:.1f} | {m['spj']:.1f} | {m['q'] / 60:.1f} | "
                          f"{m['jct'] / 60:.1f} | {m['gh']:.1f} | {' | '.join(rel)} |")
                if len(a.seeds) > 1:
                    # Per-seed relative changes of frenzy, to show the spread.
                    spread = []
                    for k in ("sps", "spj", "q", "jct"):
                        d = [pct(f, o) for f, o in zip(per["frenzy"][k], per["opportunistic"][k])]
                        spread.append(f"{min(d):+.0f}..{max(d):+.0f}%")
                    print(f"| {jobs} | frenzy, per-seed range | | | | | | {' | '.join(spread)} |")
                p = PAPER[jobs]
                print(f"| {jobs} | paper (testbed) | | | | | | {p[0]:+}% (either) | | {p[1]:+}% | {p[2]:+}% |")


def memory_json(cli, model, batch, dp, tp, mode, extra=()):
    out = run([cli, "memory", "--model", model, "--batch", str(batch), "--dp", str(dp), "--tp", str(tp),
               "--mode", mode, "--json", *extra])
    return json.loads(out)


def memory(a):
    print("\n### GPT-2 7B and 350M: MARP's formula vs the itemised model (per GPU, GiB)\n")
    print("| model | B | d | t | Frenzy (GiB) | Frenzy (GB) | full, allocated (GiB) | Frenzy / full |")
    print("|---|---|---|---|---|---|---|---|")
    grid = [("gpt2-7b", b, d, t) for b in (2, 4, 8) for d in (1, 2) for t in (1, 2, 4, 8) if b % d == 0]
    grid += [("gpt2-350m", b, d, t) for b in (4, 8, 16) for d in (1, 2, 4) for t in (1, 2, 4) if b % d == 0]
    ratios = {"gpt2-7b": [], "gpt2-350m": []}
    for model, b, d, t in grid:
        # allocated: without the CUDA context, which neither MARP nor torch's max_memory_allocated counts.
        fz = memory_json(a.cli, model, b, d, t, "frenzy")["allocated_gib"]
        full = memory_json(a.cli, model, b, d, t, "full", ["--precision", "fp16"])["allocated_gib"]
        ratios[model].append(fz / full)
        print(f"| {model} | {b} | {d} | {t} | {fz:.2f} | {fz * 2**30 / 1e9:.2f} | {full:.2f} | {fz / full:.3f} |")
    for model, r in ratios.items():
        print(f"\n{model}: Frenzy / full ranges {min(r):.3f} .. {max(r):.3f} (mean {statistics.mean(r):.3f})")

    path = os.path.join(ROOT, "data", "validation", "memory_measurements.csv")
    print(f"\n### Against real measurements ({os.path.relpath(path, ROOT)})\n")
    print("| id | model | precision | measured (GiB) | Frenzy (GiB) | accuracy | full (GiB) | accuracy |")
    print("|---|---|---|---|---|---|---|---|")
    with open(path) as f:
        for row in csv.DictReader(f):
            common = ["--seq", row["seq"], "--micro-batch", row["micro_batch"], "--precision", row["precision"],
                      "--optimizer", row["optimizer"], "--recompute", row["recompute"], "--zero", row["zero"]]
            if row["flash_attn"] == "1":
                common.append("--flash-attn")
            if row.get("sequence_parallel") == "1":
                common.append("--sequence-parallel")
            if row.get("autocast") == "1":
                common.append("--autocast")
            model = row["model"]
            if model.endswith(".json"):  # a model outside the library, as the validation test reads it
                model = os.path.join(ROOT, "data", "validation", "models", model)
            m = float(row["measured_gib"])
            # Same convention as tests/core/test_estimate_validation.cpp: what the allocator holds, plus the
            # CUDA context the source measured when the row is an nvidia-smi (device) figure.
            context = float(row["context_gib"] or 0) if row["kind"] == "device" else 0.0
            par = (model, int(row["batch"]), int(row["dp"]), int(row["tp"]))
            fz = memory_json(a.cli, *par, "frenzy", common)["allocated_gib"] + context
            full = memory_json(a.cli, *par, "full", common)["allocated_gib"] + context
            acc = lambda p: 100 * (1 - abs(p - m) / m)
            print(f"| {row['id']} | {os.path.basename(row['model'])} | {row['precision']} | {m:.2f} ({row['kind']}) | {fz:.2f} |"
                  f" {acc(fz):.0f}% | {full:.2f} | {acc(full):.0f}% |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["queues", "memory"])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "orrery-cli"))
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--ablations", nargs="*", default=["frenzy_exact", "frenzy_strict", "fifo"])
    a = ap.parse_args()
    {"queues": queues, "memory": memory}[a.what](a)


if __name__ == "__main__":
    main()

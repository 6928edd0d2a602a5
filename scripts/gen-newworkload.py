#!/usr/bin/env python3
"""Generates Frenzy's "NewWorkload" job mix as an Orrery scenario.

The Frenzy paper gives no sizes; docs/models/frenzy.md records the choices:
GPT-2 124M..7B and BERT base/large, global batch in {2..32}, and an iteration
count that makes each job run 10-60 minutes on one A100 at 40% of peak
(6*P*B*s FLOPs per iteration). Seeded, so the output is reproducible.

usage: gen-newworkload.py --jobs 60 --seed 1 --gap-s 180 --name NAME > scenario.json
"""
import argparse, json, random

MODELS = {  # name: (params, seq, batches)
    "gpt2-124m": (124.4e6, 1024, [4, 8, 16, 32]),
    "gpt2-350m": (354.8e6, 1024, [4, 8, 16, 32]),
    "gpt2-774m": (774.0e6, 1024, [2, 4, 8, 16]),
    "gpt2-1.5b": (1557.6e6, 1024, [2, 4, 8, 16]),
    "gpt2-7b": (6.65e9, 1024, [2, 4, 8]),
    "bert-base": (108.9e6, 512, [8, 16, 32]),
    "bert-large": (334.1e6, 512, [4, 8, 16, 32]),
}
A100_FLOPS = 312e12 * 0.40

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gap-s", type=float, default=180.0, help="mean Poisson gap; 0 = all at t=0")
    ap.add_argument("--name", default="Frenzy NewWorkload")
    ap.add_argument("--cluster", choices=["sim", "testbed"], default="sim")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    jobs, t = [], 0.0
    names = sorted(MODELS)
    for i in range(a.jobs):
        m = rng.choice(names)
        params, seq, batches = MODELS[m]
        b = rng.choice(batches)
        it_s = 6 * params * b * seq / A100_FLOPS
        minutes = rng.uniform(10, 60)
        iters = max(10, int(round(minutes * 60 / it_s, -1)))
        jobs.append({"id": f"j{i:03d}", "arrival_s": round(t, 1), "user": f"u{rng.randrange(8)}",
                     "model": m, "batch": b, "iterations": iters})
        if a.gap_s > 0:
            t += rng.expovariate(1.0 / a.gap_s)
    if a.cluster == "sim":
        nodes = [{"name": "rtx", "gpu": "rtx2080ti", "count": 3, "gpus_per_node": 8},
                 {"name": "a100", "gpu": "a100-40gb-sxm", "count": 2, "gpus_per_node": 8},
                 {"name": "quad", "gpu": "quadro-rtx6000", "count": 1, "gpus_per_node": 4}]
        desc = ("Sia's and Frenzy's simulated heterogeneous cluster (3x8 RTX 2080 Ti, 2x8 A100 40GB, "
                "1x4 Quadro RTX 6000) with Frenzy's NewWorkload mix of GPT-2 and BERT jobs.")
    else:
        nodes = [{"name": "head", "gpu": "a100-40gb-pcie", "count": 1, "gpus_per_node": 2},
                 {"name": "n2", "gpu": "a100-40gb-pcie", "count": 1, "gpus_per_node": 1},
                 {"name": "n3", "gpu": "a800-80gb", "count": 1, "gpus_per_node": 4},
                 {"name": "n45", "gpu": "a100-80gb-pcie", "count": 2, "gpus_per_node": 2}]
        desc = "Frenzy's real testbed (5 nodes, 11 GPUs) with the NewWorkload mix."
    doc = {"format": "orrery-scenario", "version": 1, "name": a.name, "description": desc,
           "cluster": {"nodes": nodes, "network": {"kind": "ethernet", "bandwidth_gbit_s": 25}},
           "workload": {"jobs": jobs},
           "policies": ["fifo", "sjf"],
           "options": {"seed": a.seed, "round_s": 360, "restart_penalty_s": 30}}
    print(json.dumps(doc, indent=2))

if __name__ == "__main__":
    main()

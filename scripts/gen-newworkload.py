#!/usr/bin/env python3
"""Generates Frenzy's "NewWorkload" job mix as an Orrery scenario.

The Frenzy paper gives no sizes; docs/models/frenzy.md records the choices:
GPT-2 124M..7B and BERT base/large, global batch in {2..32}, and an iteration
count that makes each job run 10-60 minutes. Two bases for that run time:
- one-a100 (default, used for data/scenarios/default.json): one A100 at 40% of
  peak, 6*P*B*s FLOPs per iteration;
- marp (the Frenzy scenarios, spec A.8): MARP's top plan on A100 80 GB nodes
  (fewest GPUs whose Frenzy memory M(d,t) fits 80e9 bytes, then smallest t),
  (6*P*B*s + 12*l*B*s^2*h) FLOPs per iteration at 45% of peak on those N GPUs.
With --reject-infeasible, combinations no Frenzy plan can run on the chosen
cluster are drawn again (e.g. GPT-2 1.5B: 25 heads allow no tensor parallelism,
so it needs one GPU > 40 GB). Seeded, so the output is reproducible.

usage: gen-newworkload.py --jobs 60 --seed 1 --gap-s 180 --name NAME > scenario.json
       gen-newworkload.py --jobs 30 --seed 1 --gap-s 0 --basis marp --reject-infeasible --cluster testbed \
           --policies frenzy opportunistic --name NAME > scenario.json
"""
import argparse, json, os, random

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

# (GPU memory in decimal GB, GPUs per node, node count) of each cluster, for feasibility.
CLUSTERS = {"sim": [(11, 8, 3), (40, 8, 2), (24, 4, 1)],
            "testbed": [(40, 2, 1), (40, 1, 1), (80, 4, 1), (80, 2, 2)]}


def load_shapes():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "models.json")
    with open(path) as f:
        return {m["name"]: m for m in json.load(f)["models"]}


def frenzy_memory_bytes(m, batch, d, t):
    """Frenzy's M(d,t) (spec A.3, global-batch reading): 20 bytes per parameter split by t, plus activations."""
    V, h, l, a, s = m["vocab"], m["hidden"], m["layers"], m["heads"], m["seq"]
    params = V * h + l * (12 * h * h + 13 * h)
    return 20 * params / t + s * (batch / d) * h * l * (10 + 24 / t + 5 * a * s / (h * t))


def frenzy_plans(m, batch, max_tp):
    """(N, t, d, bytes) for d | B and power-of-two t <= max_tp dividing heads and hidden, ranked (N, t)."""
    out = []
    for d in [x for x in range(1, batch + 1) if batch % x == 0]:
        t = 1
        while t <= max_tp:
            if m["heads"] % t == 0 and m["hidden"] % t == 0:
                out.append((d * t, t, d, frenzy_memory_bytes(m, batch, d, t)))
            t *= 2
    return sorted(out)


def feasible(m, batch, cluster):
    groups = CLUSTERS[cluster]
    max_tp = max(g for _, g, _ in groups)
    for n, _, _, mem in frenzy_plans(m, batch, max_tp):
        if sum(g * c for cap, g, c in groups if cap * 1e9 > mem) >= n:
            return True
    return False


def marp_iteration_s(m, params, batch):
    """Iteration time of MARP's top plan on A100 80 GB nodes of 8 GPUs at 45% of peak."""
    n = next(n for n, _, _, mem in frenzy_plans(m, batch, 8) if mem < 80e9)
    h, l, s = m["hidden"], m["layers"], m["seq"]
    flops = 6 * params * batch * s + 12 * l * batch * s * s * h
    return flops / (n * 312e12 * 0.45)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gap-s", type=float, default=180.0, help="mean Poisson gap; 0 = all at t=0")
    ap.add_argument("--name", default="Frenzy NewWorkload")
    ap.add_argument("--cluster", choices=["sim", "testbed"], default="sim")
    ap.add_argument("--basis", choices=["one-a100", "marp"], default="one-a100",
                    help="what the 10-60 minute run time is measured on")
    ap.add_argument("--reject-infeasible", action="store_true",
                    help="draw again when no Frenzy plan fits the cluster")
    ap.add_argument("--policies", nargs="+", default=["fifo", "sjf"])
    ap.add_argument("--description", default=None)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    shapes = load_shapes()
    jobs, t = [], 0.0
    names = sorted(MODELS)
    for i in range(a.jobs):
        while True:
            m = rng.choice(names)
            params, seq, batches = MODELS[m]
            b = rng.choice(batches)
            if not a.reject_infeasible or feasible(shapes[m], b, a.cluster):
                break
        if a.basis == "marp":
            it_s = marp_iteration_s(shapes[m], params, b)
        else:
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
    if a.description:
        desc = a.description
    doc = {"format": "orrery-scenario", "version": 1, "name": a.name, "description": desc,
           "cluster": {"nodes": nodes, "network": {"kind": "ethernet", "bandwidth_gbit_s": 25}},
           "workload": {"jobs": jobs},
           "policies": a.policies,
           "options": {"seed": a.seed, "round_s": 360, "restart_penalty_s": 30}}
    print(json.dumps(doc, indent=2))

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Regenerates the tables of docs/experiments/espresso.md with orrery-cli provision.

Usage: docs/experiments/espresso/reproduce.py [path/to/orrery-cli] [--bandwidth GBIT_S]
                                              [--sections plans,sweep,optimal_sweep,ablation,layers]
                                              [--timeout S]
--timeout stops each search of the plans and the SLO sweeps after S seconds (the cell then says so); without it they
run to the end, except Optimal's in the sweep, stopped after 300 s.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build/app/orrery-cli"
BW = sys.argv[sys.argv.index("--bandwidth") + 1] if "--bandwidth" in sys.argv else "2.5"
MODELS = [("llama-1.3b", 500, 4096, 32), ("llama-3b", 3700, 4096, 32), ("llama-7b", 5500, 4096, 32),
          ("vit-70", 1200, 197, 256)]
GPUS = "a6000:8,a30:16,rtx3090:16,a4000:16"
EFF = "a30:0.43,a6000:0.47,a4000:0.55,rtx3090:0.45"
SECTIONS = (sys.argv[sys.argv.index("--sections") + 1] if "--sections" in sys.argv
            else "plans,sweep,optimal_sweep,ablation,layers").split(",")
LETTER = {"a6000": "A", "a30": "B", "rtx3090": "C", "a4000": "D"}
TIMEOUT = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else None


def provision(model, slo, seq, batch, strategy="espresso", extra=(), model_file=None, timeout=None):
    args = [CLI, "provision", "--model", model_file or os.path.join(HERE, model + ".json"), "--seq", str(seq),
            "--batch", str(batch), "--iterations", "100", "--slo-s", str(slo), "--gpus", GPUS, "--catalog",
            os.path.join(HERE, "juchi-gpus.json"), "--efficiency", EFF, "--bandwidth-gbit-s", BW, "--strategy",
            strategy, "--json", *extra]
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout", "timeout": timeout}
    if r.returncode != 0:
        return {"error": r.stderr.strip()}
    return json.loads(r.stdout)


def placement(j):
    if "error" in j or not j.get("stages"):
        return "-"
    return "[{}] / [{}] d={}".format(",".join(LETTER[s["gpu"]] for s in j["stages"]),
                                    ",".join(str(s["layers"]) for s in j["stages"]), j["dp"])


def cell(j):
    if j.get("error") == "timeout":
        return "stopped after {} s".format(j["timeout"])
    if "error" in j:
        return "refused"
    mark = "" if j["feasible"] else " ×"
    return "{:.2f}{} ({:.0f} s)".format(j["cost"], mark, j["total_s"]) if j["cost"] is not None else "none"


def plans():
    print("### Plans at the Table IV SLOs (cost in CNY, × = SLO missed: fastest plan found)\n")
    print("| Model (SLO) | Strategy | Placement | Cost (time) | Search s |")
    print("|---|---|---|---|---|")
    results = {}
    for name, slo, seq, batch in MODELS:
        for s in ["espresso", "whale+", "hph+", "sia+", "optimal"]:
            j = provision(name, slo, seq, batch, s, timeout=TIMEOUT)
            results[(name, s)] = j
            wall = "-" if "error" in j else "{:.3f}".format(j["search"]["wall_s"])
            print(f"| {name} ({slo} s) | {s} | {placement(j)} | {cell(j)} | {wall} |")
    print("\n### Espresso vs Optimal (same plan space; cost of the plan returned)\n")
    print("| Model | Espresso | Optimal | gap |")
    print("|---|---|---|---|")
    for name, slo, seq, batch in MODELS:
        e, o = results[(name, "espresso")], results[(name, "optimal")]
        if "error" in e or "error" in o or e["cost"] is None or o["cost"] is None:
            gap = "-"
        elif not (e["feasible"] and o["feasible"]):
            gap = "n/a (SLO missed)"
        else:
            gap = "{:+.2%}".format(e["cost"] / o["cost"] - 1)
        print(f"| {name} | {cell(e)} | {cell(o)} | {gap} |")


def sweep():
    print("\n### SLO sweep (× = infeasible; cost of the plan returned{})\n".format(
        f"; each search stopped after {TIMEOUT:g} s" if TIMEOUT else ""))
    print("| Model | SLO factor | Espresso | Whale+ | HPH+ | Sia+ |")
    print("|---|---|---|---|---|---|")
    for name, slo, seq, batch in MODELS:
        for f in [0.6, 0.8, 1.0, 1.5, 2.0]:
            row = [cell(provision(name, slo * f, seq, batch, s, timeout=TIMEOUT))
                   for s in ["espresso", "whale+", "hph+", "sia+"]]
            print(f"| {name} | {f} | " + " | ".join(row) + " |")


def optimal_sweep():
    limit = TIMEOUT or 300
    print(f"\n### Espresso vs Optimal over the SLO sweep (each search stopped after {limit:g} s)\n")
    print("| Model | SLO factor | Espresso | Optimal | gap | Optimal search s |")
    print("|---|---|---|---|---|---|")
    for name, slo, seq, batch in MODELS:
        for f in [0.6, 0.8, 1.0, 1.5, 2.0]:
            e = provision(name, slo * f, seq, batch, "espresso", timeout=limit)
            o = provision(name, slo * f, seq, batch, "optimal", timeout=limit)
            if "error" in o or "error" in e:
                gap, wall = "-", "-"
            else:
                wall = "{:.3f}".format(o["search"]["wall_s"])
                gap = "{:+.2%}".format(e["cost"] / o["cost"] - 1) if e["feasible"] and o["feasible"] else \
                    "n/a (SLO missed)" if not o["feasible"] else "Espresso misses the SLO"
            print(f"| {name} | {f} | {cell(e)} | {cell(o)} | {gap} | {wall} |")


def ablation():
    print("\n### Pruning ablation (Espresso; search wall time in ms, expanded nodes)\n")
    print("| Model | none | BP | BP+CP | BP+CP+TCP | reduction | same plan |")
    print("|---|---|---|---|---|---|---|")
    for name, slo, seq, batch in MODELS:
        runs = []
        for extra in [("--no-bp", "--no-cp", "--no-tcp"), ("--no-cp", "--no-tcp"), ("--no-tcp",), ()]:
            runs.append(provision(name, slo, seq, batch, "espresso", extra))
        cells = ["{:.1f} / {}".format(r["search"]["wall_s"] * 1000, r["search"]["expanded"]) for r in runs]
        red = 1 - runs[3]["search"]["wall_s"] / max(runs[0]["search"]["wall_s"], 1e-9)
        same = "yes" if abs((runs[3]["cost"] or 0) - (runs[0]["cost"] or 0)) < 1e-9 else \
            "no ({:+.1%})".format((runs[3]["cost"] or 0) / (runs[0]["cost"] or 1) - 1)
        print(f"| {name} | " + " | ".join(cells) + f" | {red:.1%} | {same} |")


def layers():
    print("\n### Layer sweep (Espresso, search wall time in ms)\n")
    print("| Model | 0.5x | 1x | 1.5x | 2x |")
    print("|---|---|---|---|---|")
    for name, slo, seq, batch in MODELS:
        base = json.load(open(os.path.join(HERE, name + ".json")))
        row = []
        for f in [0.5, 1.0, 1.5, 2.0]:
            m = dict(base)
            m["layers"] = max(1, round(base["layers"] * f))
            path = f"/tmp/espresso-sweep-{name}-{f}.json"
            json.dump(m, open(path, "w"))
            j = provision(name, slo * f, seq, batch, "espresso", model_file=path)
            row.append("{:.1f} ({} L)".format(j["search"]["wall_s"] * 1000, m["layers"]))
        print(f"| {name} | " + " | ".join(row) + " |")


print(f"## Bandwidth {BW} Gbit/s\n")
for section in SECTIONS:
    {"plans": plans, "sweep": sweep, "optimal_sweep": optimal_sweep, "ablation": ablation,
     "layers": layers}[section]()

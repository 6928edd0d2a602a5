#!/usr/bin/env python3
"""Turn torch_training.jsonl (scripts/validation/measure_torch_training.py) into rows of Orrery's validation
CSVs: data/validation/throughput_measurements.csv and data/validation/memory_measurements.csv.

Only rows with status "ok" are converted. Each row gets an id "<prefix>-<model>-<mode>-mb<b>" (prefix
"own-<gpu>", e.g. own-h200); memory rows add "-allocated", "-reserved" or "-device". Idempotent: every
existing row whose id starts with "<prefix>-" is removed before the new rows are appended, so re-running
replaces this script's rows instead of duplicating them; all other lines are kept byte for byte.

Column conventions (as the existing rows and tests/core/test_estimate_validation.cpp read them):
  throughput: model = library name (params_b..vocab and family empty), gpus = gpus_per_node = 1,
      inter_gb_s 25 (unused with one GPU, must be a number), tp = pp = dp = 1, batch = micro_batch,
      precision bf16, recompute none, sequence_parallel 0, zero 0, flash_attn 1 (SDPA flash backend),
      measured_iteration_s = median step time (the harness takes it first; TFLOP/s and tokens/s stay
      empty and are given in the source text), autocast 1 for amp, 0 for pure bf16,
      framework pytorch (a plain eager loop: foreach AdamW, F.cross_entropy, gradients set to None; --framework).
  memory: group = the prefix (the harness averages per group), stage empty, zero 0, optimizer adamw,
      framework as for throughput (the profile decides when gradients exist and how the loss is stored),
      fp32_grads 0, full_training 1; kind allocated = torch.cuda.max_memory_allocated, reserved =
      max_memory_reserved, device = nvidia-smi memory used by the process at the end of the timed steps
      with context_gib = the CUDA context measured at start.
Pure-bf16 rows ("bf16" mode: no fp32 master weights) are only written when the CSV has a pure_half column
(filled 1/0) or with --include-pure-half: without that column Orrery would read bf16 + autocast 0 as
mixed precision with fp32 master weights and AdamW states, which these runs do not have.
"""

import argparse
import csv
import io
import json
import os
import sys

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GiB = 2**30


def gpu_slug(name):
    n = name.lower()
    table = [("h200", "h200"), ("h100 pcie", "h100-pcie"), ("h100", "h100-sxm"), ("a100-sxm4-80", "a100-80gb-sxm"),
             ("a100 80gb pcie", "a100-80gb-pcie"), ("a100-pcie-40", "a100-40gb-pcie"), ("a100-sxm4-40", "a100-40gb-sxm"),
             ("l40s", "l40s"), ("l4", "l4"), ("a10", "a10"), ("rtx 4090", "rtx4090"), ("rtx 3090", "rtx3090")]
    for key, slug in table:
        if key in n:
            return slug
    return None


def read_jsonl(path):
    header, rows = None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                o = json.loads(line)
            except ValueError:  # a line cut by a kill
                continue
            if o.get("type") == "header":
                header = o
            elif o.get("type") == "config":
                # Files of several runs concatenated: each row keeps the header of the run that measured it.
                o["_header"] = header
                rows.append(o)
    if header is None:
        sys.exit(path + ": no header object")
    return header, rows


def fmt(v, digits):
    return ("%." + str(digits) + "f") % v


def to_line(columns, values):
    missing = [k for k in values if k not in columns]
    if missing:
        raise SystemExit("columns not in the CSV header: %s" % missing)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([values.get(c, "") for c in columns])
    return buf.getvalue()


def rewrite(path, prefix, new_rows, dry_run):
    with open(path, newline="") as f:
        lines = f.read().splitlines(keepends=True)
    columns = next(csv.reader([lines[0]]))
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    kept = [lines[0]] + [l for l in lines[1:] if l.strip() and not l.startswith(prefix + "-")]
    removed = len(lines) - len(kept)
    added = [to_line(columns, r(columns) if callable(r) else r) for r in new_rows]
    for l in added:
        if '""' in l:
            raise SystemExit("a value would need an escaped quote (the C++ reader does not take them): " + l)
    if dry_run:
        sys.stdout.write("".join(added))
    else:
        with open(path, "w", newline="") as f:
            f.write("".join(kept + added))
    print("%s: %d old %s-* rows removed, %d rows added%s" % (path, removed, prefix, len(added),
                                                          " (dry run)" if dry_run else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("jsonl", help="torch_training.jsonl written by measure_torch_training.py")
    ap.add_argument("--throughput-csv", default=os.path.join(REPO_ROOT, "data/validation/throughput_measurements.csv"))
    ap.add_argument("--memory-csv", default=os.path.join(REPO_ROOT, "data/validation/memory_measurements.csv"))
    ap.add_argument("--gpu", help="Orrery GPU name (data/gpus.json); default: guessed from the header's GPU name")
    ap.add_argument("--prefix", help="id prefix; default own-<gpu>")
    ap.add_argument("--framework", default="pytorch", help="framework column (megatron, deepspeed, fsdp, hf, litgpt, pytorch)")
    ap.add_argument("--include-pure-half", action="store_true",
                    help="write the pure-bf16 rows even when the CSV has no pure_half column")
    ap.add_argument("--dry-run", action="store_true", help="print the rows instead of writing the CSVs")
    args = ap.parse_args()

    header, rows = read_jsonl(args.jsonl)
    gpu = args.gpu or gpu_slug(header.get("gpu_name") or "")
    if not gpu:
        sys.exit("cannot map GPU name %r to an Orrery GPU: pass --gpu" % header.get("gpu_name"))
    prefix = args.prefix or "own-" + gpu
    date = (header.get("date_utc") or "")[:10]
    torch_ver = header.get("torch", "?").split("+")[0]
    compiled = " + torch.compile" if header.get("compile") else ""
    source = ("Orrery's own measurement: %s %s, PyTorch %s eager%s, scripts/validation/measure_torch_training.py"
              % (header.get("gpu_name"), date, torch_ver, compiled))
    ctx = (header.get("cuda_context") or {}).get("context_bytes")
    with open(os.path.join(REPO_ROOT, "data/models.json")) as f:
        models = {m["name"]: m for m in json.load(f)["models"]}

    ok = [r for r in rows if r.get("status") == "ok"]
    skipped = len(rows) - len(ok)
    thr, mem = [], []
    for r in ok:
        pure = bool(r.get("pure_half"))
        rid = "%s-%s-%s-mb%d" % (prefix, r["model"], r["mode"], r["micro_batch"])
        if r["seq"] != models.get(r["model"], {}).get("seq", r["seq"]):
            rid += "-s%d" % r["seq"]
        if r.get("grad_accum", 1) > 1:
            rid += "-ga%d" % r["grad_accum"]
        if r.get("recompute", "none") != "none":
            rid += "-rc" + r["recompute"]

        def with_pure(values, pure=pure):
            return lambda cols: dict(values, **({"pure_half": "1" if pure else "0"} if "pure_half" in cols else {}))

        run = r.get("_header") or header
        source = ("Orrery's own measurement: %s %s, PyTorch %s eager%s, scripts/validation/measure_torch_training.py"
                  % (run.get("gpu_name"), (run.get("date_utc") or "")[:10], run.get("torch", "?").split("+")[0],
                     " + torch.compile" if run.get("compile") else ""))
        ctx = (run.get("cuda_context") or {}).get("context_bytes")
        common_note = ("%s; dropout %g; AdamW default foreach; %d timed steps after %d warm-up: median %.4f s, "
                       "min %.4f s, %.0f tokens/s, %.1f model TFLOP/s (6P+12Lhs per token)" % (
                           "autocast bf16, fp32 weights/grads/AdamW states" if not pure else
                           "pure bf16 (model.to(bfloat16)): bf16 weights/grads/AdamW states, no fp32 master",
                           r["dropout"], r["steps_timed"], run.get("warmup_steps", 0), r["step_median_s"],
                           r["step_min_s"], r["tokens_per_s"], r["tflops"]))
        t = {"id": rid, "model": r["model"], "seq": r["seq"], "gpu": gpu, "gpus": 1, "gpus_per_node": 1,
             "inter_gb_s": 25, "tp": 1, "pp": 1, "dp": 1, "batch": r["batch"], "micro_batch": r["micro_batch"],
             "precision": "bf16", "recompute": r.get("recompute", "none"), "sequence_parallel": 0, "zero": 0, "flash_attn": 1,
             "measured_iteration_s": fmt(r["step_median_s"], 5), "source": source + "; " + common_note,
             "framework": args.framework, "autocast": 1 if r["autocast"] else 0, "optimizer": "adamw"}
        m = {"group": prefix, "model": r["model"], "gpu": gpu, "batch": r["batch"], "micro_batch": r["micro_batch"],
             "seq": r["seq"], "dp": 1, "tp": 1, "pp": 1, "stage": "", "zero": 0, "precision": "bf16",
             "optimizer": "adamw", "recompute": r.get("recompute", "none"), "flash_attn": 1, "sequence_parallel": 0,
             "autocast": 1 if r["autocast"] else 0, "fp32_grads": 0, "full_training": 1, "source": source,
             "framework": args.framework}
        want = {}
        want["allocated"] = r.get("peak_alloc_bytes")
        want["reserved"] = r.get("peak_reserved_bytes")
        want["device"] = r.get("device_used_bytes")
        mrows = []
        for kind, b in want.items():
            if b is None:
                continue
            row = dict(m, id=rid + "-" + kind, kind=kind, measured_gib=fmt(b / GiB, 3))
            note = "torch.cuda.max_memory_%s %d B" % (kind, b) if kind != "device" else \
                "nvidia-smi memory used by the process at the end of the timed steps: %d MiB" % (b // 2**20)
            if kind == "device":
                row["context_gib"] = fmt(ctx / GiB, 3) if ctx is not None else ""
                note += "; context (CUDA init + one tensor) %s MiB" % (ctx // 2**20 if ctx is not None else "?")
            row["notes"] = note + "; " + common_note
            mrows.append(with_pure(row))
        if pure and not args.include_pure_half:
            thr.append(("pure", with_pure(t)))
            mem += [("pure", x) for x in mrows]
        else:
            thr.append(("", with_pure(t)))
            mem += [("", x) for x in mrows]

    def select(items, path):
        with open(path) as f:
            cols = next(csv.reader([f.readline()]))
        keep = [r for tag, r in items if tag == "" or "pure_half" in cols]
        dropped = len(items) - len(keep)
        if dropped:
            print("%s: %d pure-bf16 rows left out (no pure_half column; --include-pure-half to force)" % (path, dropped))
        return keep

    print("%d ok rows, %d not converted (oom/skipped)" % (len(ok), skipped))
    rewrite(args.throughput_csv, prefix, select(thr, args.throughput_csv), args.dry_run)
    rewrite(args.memory_csv, prefix, select(mem, args.memory_csv), args.dry_run)


if __name__ == "__main__":
    main()

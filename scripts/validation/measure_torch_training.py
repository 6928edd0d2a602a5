#!/usr/bin/env python3
"""Measure real training iterations of GPT-style models in plain (eager) PyTorch on one local GPU.

What it measures
    For each configuration (model x precision mode x micro-batch), a fresh decoder-only transformer with
    EXACTLY the shape of an Orrery library model (data/models.json: vocab, hidden, layers, heads, kv_heads,
    ffn_hidden, gated_mlp, tied_embeddings, bias, positions, family) is built on the GPU and trained on
    random token ids for W warm-up + N timed steps. Each step is: forward with a cross-entropy loss over the
    whole vocabulary, backward, torch.optim.AdamW.step() (default foreach implementation, not fused),
    zero_grad(set_to_none=True). One GPU, no parallelism, no gradient accumulation (global batch =
    micro-batch), no activation recomputation, attention through F.scaled_dot_product_attention
    (is_causal=True; the flash backend on Hopper in bf16).

How
    Every step is timed with torch.cuda.synchronize() + time.perf_counter(); the row gives the median,
    min and mean step time, tokens/s and model TFLOP/s. Memory: torch.cuda.max_memory_allocated() and
    max_memory_reserved() with the peak stats reset right before the first warm-up step (so the peak holds
    weights, gradients, AdamW states and activations), and the device-visible memory (what nvidia-smi
    shows: this process's use through NVML, and the whole GPU's "memory.used"). The CUDA context size is
    measured once at start: device memory used after torch.cuda.init() and a tiny allocation, minus what
    was used before. Out-of-memory configurations are recorded with status "oom".

Precision modes
    amp   fp32 weights, gradients and AdamW states; forward under torch.autocast(bfloat16)
          -> Orrery: precision bf16, autocast 1.
    bf16  model.to(torch.bfloat16): weights, gradients and AdamW states all bf16, no fp32 master copy
          ("pure half", Lightning's bf16-true) -> Orrery: precision bf16, autocast 0, pure_half 1.

Kernel profile (--profile-steps N): after the timed steps, N more run under torch.profiler; the row gets "kernels":
    GPU time per step by kind of kernel (gemm, attention, optimizer, elementwise, norm, reduction, loss, index, copy,
    other; kinds from the kernel names, kernel_kind()), kernel counts, GPU-busy and wall time per step, the top 12
    kernels. The profiled steps are not part of the timing.

Output (--out DIR): torch_training.jsonl, a header object (machine, versions, command line) then one JSON
object per configuration, flushed and fsync'd after each, so a kill leaves all finished rows.
scripts/validation/torch_training_to_csv.py turns it into rows of data/validation/*.csv:
    throughput_measurements.csv: model = the library name, gpu (e.g. h200), gpus = 1, tp = pp = dp = 1,
        batch = micro_batch = the micro-batch, seq, precision bf16, recompute none, zero 0, flash_attn 1,
        sequence_parallel 0, autocast 1 (amp) / 0 (bf16, pure half), measured_iteration_s = the median step
        time, framework: this is eager PyTorch without fused kernels (no fused optimizer, no fused
        LayerNorm/cross-entropy, no torch.compile unless --compile).
    memory_measurements.csv: optimizer adamw, fp32_grads 0, full_training 1, three rows per configuration:
        kind allocated (max_memory_allocated), reserved (max_memory_reserved) and device (nvidia-smi used by
        this process at the end of the timed steps, with context_gib = the context measured at start).

Model FLOPs per step (reported as tflops, model FLOPs, no recomputation):
    flops = tokens * (6 * P + 12 * L * h * s)
    P = all trainable parameters (tied embedding counted once, position embedding included),
    L = layers, h = hidden, s = sequence length, tokens = micro_batch * s. The attention term counts
    QK^T and AV (2 * 2 * s * h per token and layer forward, x3 for forward + backward), not halved for the
    causal mask. tflops_matmul uses P_matmul = P minus the position embedding and minus the input
    embedding when it is not tied to the output head (lookups, not matmuls).

Runs on torch >= 1.13 (CPU smoke tests: --device cpu --quick) and torch 2.x on CUDA.
"""

import argparse
import datetime
import gc
import json
import math
import os
import platform
import socket
import statistics
import subprocess
import sys
import time

import torch
import torch.utils.checkpoint
import torch.nn as nn
import torch.nn.functional as F

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HAS_SDPA = hasattr(F, "scaled_dot_product_attention")

# Tiny shapes for --quick (not library models; they only exercise the code paths).
TINY_MODELS = {
    "tiny-gpt2": dict(name="tiny-gpt2", family="gpt2", vocab=1000, hidden=64, layers=2, heads=4, kv_heads=4,
                      ffn_hidden=256, gated_mlp=False, tied_embeddings=True, bias=True, positions=128, seq=128),
    "tiny-llama": dict(name="tiny-llama", family="llama", vocab=1000, hidden=64, layers=2, heads=4, kv_heads=2,
                       ffn_hidden=176, gated_mlp=True, tied_embeddings=False, bias=False, positions=0, seq=128),
}


def log(*a):
    print(*a, flush=True)


# ----------------------------------------------------------------------------------------------------------
# Device-visible memory (NVML, else nvidia-smi, else nothing)
# ----------------------------------------------------------------------------------------------------------
class DeviceMemory:
    def __init__(self):
        self.nvml = None
        self.handle = None
        self.index = 0
        cvd = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
        if cvd.isdigit():
            self.index = int(cvd)
        try:
            import pynvml  # package nvidia-ml-py
            pynvml.nvmlInit()
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(self.index)
            self.nvml = pynvml
        except Exception:
            self.nvml = None

    def driver_version(self):
        if self.nvml:
            try:
                v = self.nvml.nvmlSystemGetDriverVersion()
                return v.decode() if isinstance(v, bytes) else v
            except Exception:
                pass
        return self._smi("driver_version")

    def _smi(self, field):
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=" + field, "--format=csv,noheader,nounits",
                                  "-i", str(self.index)], capture_output=True, text=True, timeout=20)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip().splitlines()[0].strip()
        except Exception:
            pass
        return None

    def gpu_used_bytes(self):
        """The whole GPU's used memory (nvidia-smi memory.used), bytes; None when unknown."""
        v = self._smi("memory.used")
        if v is not None:
            try:
                return int(float(v)) * 2**20
            except ValueError:
                pass
        if self.nvml:
            try:
                return int(self.nvml.nvmlDeviceGetMemoryInfo(self.handle).used)
            except Exception:
                pass
        return None

    def process_used_bytes(self):
        """This process's device memory as NVML reports it (nvidia-smi's per-process column); None if unknown."""
        if not self.nvml:
            return None
        try:
            pid = os.getpid()
            for fn in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
                       "nvmlDeviceGetComputeRunningProcesses"):
                if hasattr(self.nvml, fn):
                    for p in getattr(self.nvml, fn)(self.handle):
                        if p.pid == pid and p.usedGpuMemory is not None:
                            return int(p.usedGpuMemory)
                    return None
        except Exception:
            pass
        return None


# ----------------------------------------------------------------------------------------------------------
# Model
# ----------------------------------------------------------------------------------------------------------
class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (nn.LayerNorm's bias= argument needs torch >= 2.1)."""

    def __init__(self, n, bias, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.bias = nn.Parameter(torch.zeros(n)) if bias else None
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)


class RMSNorm(nn.Module):
    """LLaMA RMSNorm (as in Hugging Face's LlamaRMSNorm: computed in fp32, cast back)."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * xf.to(dtype)


def rope_tables(seq, head_dim, base=10000.0):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    t = torch.arange(seq, dtype=torch.float32)
    freqs = torch.outer(t, inv)
    emb = torch.cat([freqs, freqs], dim=-1)  # (s, d)
    return emb.cos(), emb.sin()


def apply_rope(x, cos, sin):
    # x: (b, heads, s, d); rotate-half formulation (LLaMA / GPT-NeoX)
    s = x.shape[-2]
    cos = cos[:s].to(x.dtype)
    sin = sin[:s].to(x.dtype)
    d = x.shape[-1] // 2
    rot = torch.cat([-x[..., d:], x[..., :d]], dim=-1)
    return x * cos + rot * sin


class Attention(nn.Module):
    def __init__(self, m, dropout):
        super().__init__()
        self.heads, self.kv_heads = m["heads"], m["kv_heads"]
        self.head_dim = m["hidden"] // m["heads"]
        self.qkv = nn.Linear(m["hidden"], (self.heads + 2 * self.kv_heads) * self.head_dim, bias=m["bias"])
        self.proj = nn.Linear(self.heads * self.head_dim, m["hidden"], bias=m["bias"])
        self.dropout = dropout
        self.rotary = m["positions"] == 0

    def forward(self, x, rope):
        b, s, _ = x.shape
        qkv = self.qkv(x)
        q, k, v = qkv.split([self.heads * self.head_dim, self.kv_heads * self.head_dim,
                             self.kv_heads * self.head_dim], dim=-1)
        q = q.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = v.view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        if self.rotary:
            q = apply_rope(q, *rope)
            k = apply_rope(k, *rope)
        if self.kv_heads != self.heads:  # GQA: repeat K/V (enable_gqa= needs torch >= 2.5)
            r = self.heads // self.kv_heads
            k = k.repeat_interleave(r, dim=1)
            v = v.repeat_interleave(r, dim=1)
        p = self.dropout if self.training else 0.0
        if HAS_SDPA:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        else:  # torch < 2.0: manual attention (s^2 scores materialised)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
            mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
            att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
            att = F.dropout(att, p, self.training)
            y = att @ v
        y = y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim)
        return F.dropout(self.proj(y), self.dropout, self.training)


class MLP(nn.Module):
    def __init__(self, m, dropout):
        super().__init__()
        h, f, bias = m["hidden"], m["ffn_hidden"], m["bias"]
        self.gated = m["gated_mlp"]
        if self.gated:  # SwiGLU
            self.gate = nn.Linear(h, f, bias=bias)
            self.up = nn.Linear(h, f, bias=bias)
        else:  # GeLU MLP
            self.up = nn.Linear(h, f, bias=bias)
        self.down = nn.Linear(f, h, bias=bias)
        self.dropout = dropout

    def forward(self, x):
        if self.gated:
            y = F.silu(self.gate(x)) * self.up(x)
        else:
            y = F.gelu(self.up(x), approximate="tanh")
        return F.dropout(self.down(y), self.dropout, self.training)


def make_norm(m):
    return RMSNorm(m["hidden"]) if m["family"] == "llama" else LayerNorm(m["hidden"], m["bias"])


class Block(nn.Module):
    def __init__(self, m, dropout):
        super().__init__()
        self.norm1 = make_norm(m)
        self.attn = Attention(m, dropout)
        self.norm2 = make_norm(m)
        self.mlp = MLP(m, dropout)

    def forward(self, x, rope):
        x = x + self.attn(self.norm1(x), rope)
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module):
    def __init__(self, m, seq, dropout):
        super().__init__()
        self.m = m
        self.wte = nn.Embedding(m["vocab"], m["hidden"])
        self.wpe = nn.Embedding(m["positions"], m["hidden"]) if m["positions"] > 0 else None
        self.drop = dropout
        self.checkpoint = False
        self.blocks = nn.ModuleList([Block(m, dropout) for _ in range(m["layers"])])
        self.norm_f = make_norm(m)
        self.head = nn.Linear(m["hidden"], m["vocab"], bias=False)
        if m["tied_embeddings"]:
            self.head.weight = self.wte.weight
        if m["positions"] == 0:
            cos, sin = rope_tables(seq, m["hidden"] // m["heads"])
            self.register_buffer("rope_cos", cos, persistent=False)
            self.register_buffer("rope_sin", sin, persistent=False)
        else:
            self.rope_cos = self.rope_sin = None
        for mod in self.modules():
            if isinstance(mod, (nn.Linear, nn.Embedding)):
                nn.init.normal_(mod.weight, std=0.02)
                if getattr(mod, "bias", None) is not None:
                    nn.init.zeros_(mod.bias)

    def forward(self, idx, targets):
        b, s = idx.shape
        x = self.wte(idx)
        if self.wpe is not None:
            x = x + self.wpe(torch.arange(s, device=idx.device))
        x = F.dropout(x, self.drop, self.training)
        rope = (self.rope_cos, self.rope_sin)
        for blk in self.blocks:
            if self.checkpoint and self.training:
                # Full recomputation: each block keeps only its input and re-runs its forward in backward.
                x = torch.utils.checkpoint.checkpoint(blk, x, rope, use_reentrant=False)
            else:
                x = blk(x, rope)
        logits = self.head(self.norm_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def count_params(model):
    return sum(p.numel() for p in model.parameters())


def analytic_params(m):
    """Parameter count of the shape without building it (must equal count_params of the built model)."""
    h, f, L, V = m["hidden"], m["ffn_hidden"], m["layers"], m["vocab"]
    d = h // m["heads"]
    b = 1 if m["bias"] else 0
    qkv = h * (m["heads"] + 2 * m["kv_heads"]) * d + b * (m["heads"] + 2 * m["kv_heads"]) * d
    proj = m["heads"] * d * h + b * h
    mlp = (3 if m["gated_mlp"] else 2) * h * f + b * ((2 if m["gated_mlp"] else 1) * f + h)
    norm = h if m["family"] == "llama" else h * (1 + b)
    emb = V * h * (1 if m["tied_embeddings"] else 2) + m["positions"] * h
    return emb + L * (qkv + proj + mlp + 2 * norm) + norm


def matmul_params(model, m):
    p = count_params(model)
    if model.wpe is not None:
        p -= model.wpe.weight.numel()
    if not m["tied_embeddings"]:
        p -= model.wte.weight.numel()
    return p


# ----------------------------------------------------------------------------------------------------------
# Configurations
# ----------------------------------------------------------------------------------------------------------
def load_models(path):
    with open(path) as f:
        data = json.load(f)
    return {m["name"]: m for m in data["models"]}


def default_configs():
    """Most valuable first: the smallest model at every micro-batch (amp, then bf16), then one or two
    micro-batches of every bigger model (amp, then bf16), then the remaining micro-batches."""
    gpt2 = ["gpt2-350m", "gpt2-774m", "gpt2-1.5b"]
    c = []
    for mode in ("amp", "bf16"):
        c += [("gpt2-124m", mode, b, 1024) for b in (1, 2, 4, 8, 16)]
    c += [(m, "amp", b, 1024) for m in gpt2 for b in (4, 16)] + [("openllama-3b", "amp", 4, 2048)]
    c += [(m, "bf16", b, 1024) for m in gpt2 for b in (4, 16)] + [("openllama-3b", "bf16", 4, 2048)]
    c += [(m, "amp", b, 1024) for m in gpt2 for b in (1, 8)] + [("openllama-3b", "amp", b, 2048) for b in (1, 8)]
    c += [(m, "bf16", b, 1024) for m in gpt2 for b in (1, 8)] + [("openllama-3b", "bf16", b, 2048) for b in (1, 8)]
    c += [(m, mode, 2, 1024) for mode in ("amp", "bf16") for m in gpt2]
    c += [("openllama-3b", mode, b, 2048) for mode in ("amp", "bf16") for b in (2, 16)]
    return c


def parse_config(s):
    """MODEL:MODE:MICRO_BATCH[:SEQ[:ACCUM[:RECOMPUTE]]] (SEQ 0: the model's; RECOMPUTE none or full)."""
    parts = s.split(":")
    if len(parts) not in (3, 4, 5, 6) or parts[1] not in ("amp", "bf16") or \
            (len(parts) == 6 and parts[5] not in ("none", "full")):
        raise argparse.ArgumentTypeError(
            "expected MODEL:amp|bf16:MICRO_BATCH[:SEQ[:ACCUM[:none|full]]], got " + s)
    return (parts[0], parts[1], int(parts[2]), int(parts[3]) if len(parts) >= 4 else 0,
            int(parts[4]) if len(parts) >= 5 else 1, parts[5] if len(parts) == 6 else "none")


# ----------------------------------------------------------------------------------------------------------
# One configuration
# ----------------------------------------------------------------------------------------------------------
def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def build_model(m, seq, dropout, dev, mode, recompute="none"):
    if dev.type == "cuda" and hasattr(torch.device, "__enter__"):  # torch >= 2.0: initialise on the GPU
        with dev:
            model = GPT(m, seq, dropout)
    else:
        model = GPT(m, seq, dropout).to(dev)
    if mode == "bf16":
        model = model.to(torch.bfloat16)
    model.checkpoint = recompute == "full"
    return model


def kernel_kind(name):
    """The estimator's kinds of GPU work (docs/models/throughput.md), from a CUDA kernel's name."""
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    if "multi_tensor_apply" in n or "foreach" in n:
        return "optimizer"
    if any(k in n for k in ("gemm", "cutlass", "xmma", "nvjet", "cublas", "wgmma", "sm90_", "sm80_", "ampere_")):
        return "gemm"
    if "memcpy" in n or "memset" in n:
        return "copy"
    if "softmax" in n or "cross_entropy" in n or "nll_loss" in n:
        return "loss"
    if "norm" in n:
        return "norm"
    if "reduce" in n:
        return "reduction"
    if "elementwise" in n or "vectorized" in n or "unrolled" in n:
        return "elementwise"
    if "cat" in n or "index" in n or "embedding" in n or "gather" in n or "scatter" in n:
        return "index"
    return "other"


def profile_kernels(step, dev, steps):
    """GPU kernel time per step by kind (torch.profiler), the wall time of the profiled steps, the top kernels."""
    from torch.profiler import ProfilerActivity, profile
    sync(dev)
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        sync(dev)
    wall = (time.perf_counter() - t0) / steps
    by_kind, count, by_name = {}, {}, {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        us = e.time_range.elapsed_us()
        k = kernel_kind(e.name)
        by_kind[k] = by_kind.get(k, 0.0) + us
        count[k] = count.get(k, 0) + 1
        by_name[e.name] = by_name.get(e.name, 0.0) + us
    top = sorted(by_name.items(), key=lambda kv: -kv[1])[:12]
    return {"steps": steps, "wall_ms_per_step": round(wall * 1e3, 3),
            "kernel_ms_per_step": {k: round(v / steps / 1e3, 3) for k, v in sorted(by_kind.items())},
            "kernels_per_step": {k: v // steps for k, v in sorted(count.items())},
            "busy_ms_per_step": round(sum(by_kind.values()) / steps / 1e3, 3),
            "top": [[n[:120], round(v / steps / 1e3, 3)] for n, v in top]}


def run_config(row, m, args, dev, devmem, deadline):
    """Measures one configuration, filling `row`. Raises the OOM error through (the caller frees)."""
    mb, seq, mode = row["micro_batch"], row["seq"], row["mode"]
    cuda = dev.type == "cuda"
    GiB = 2**30
    t_start = time.perf_counter()
    if cuda:
        row["mem_before_build_alloc"] = torch.cuda.memory_allocated(dev)
    model = build_model(m, seq, row["dropout"], dev, mode, row["recompute"])
    accum = row["grad_accum"]
    model.train()
    sync(dev)
    row["params"] = count_params(model)
    row["params_matmul"] = matmul_params(model, m)
    assert row["params"] == analytic_params(m), (row["params"], analytic_params(m))
    pub = m.get("published_params")
    row["published_params"] = pub
    row["params_vs_published"] = round(row["params"] / pub, 4) if pub else None
    row["param_dtype"] = str(next(model.parameters()).dtype).replace("torch.", "")
    if cuda:
        row["mem_after_build_alloc"] = torch.cuda.memory_allocated(dev)
    row["build_s"] = round(time.perf_counter() - t_start, 3)

    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1)
    row["optimizer_foreach"] = opt.defaults.get("foreach")
    row["optimizer_fused"] = opt.defaults.get("fused")
    fwd_model = torch.compile(model) if args.compile else model

    g = torch.Generator(device="cpu").manual_seed(args.seed)
    data = torch.randint(0, m["vocab"], (accum, mb, seq + 1), generator=g).to(dev)
    xs, ys = data[:, :, :-1].contiguous(), data[:, :, 1:].contiguous()
    if mode == "amp":
        autocast = lambda: torch.autocast(device_type=dev.type, dtype=torch.bfloat16)
    else:
        import contextlib
        autocast = contextlib.nullcontext

    def step():
        # Gradient accumulation: `accum` micro-batches forward and backward, then one optimizer step.
        for i in range(accum):
            with autocast():
                loss = fwd_model(xs[i], ys[i]) / accum
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    if cuda:
        torch.cuda.reset_peak_memory_stats(dev)
    t_w = time.perf_counter()
    loss = None
    for _ in range(args.warmup):
        loss = step()
    sync(dev)
    row["warmup_s"] = round(time.perf_counter() - t_w, 3)
    if cuda:
        # steady state between steps: weights + AdamW states (+ allocator-held workspaces)
        row["mem_between_steps_alloc"] = torch.cuda.memory_allocated(dev)

    times = []
    for i in range(args.steps):
        sync(dev)
        t0 = time.perf_counter()
        loss = step()
        sync(dev)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() > deadline and i + 1 < args.steps and len(times) >= 2:
            row["truncated"] = True
            break
    row["loss_last"] = round(float(loss.detach().float()), 4) if loss is not None else None
    row["steps_timed"] = len(times)
    row["step_times_s"] = [round(t, 6) for t in times]
    med = statistics.median(times)
    row["step_median_s"] = round(med, 6)
    row["step_min_s"] = round(min(times), 6)
    row["step_mean_s"] = round(statistics.mean(times), 6)
    tokens = mb * seq * accum
    row["tokens_per_step"] = tokens
    row["tokens_per_s"] = round(tokens / med, 1)
    L, h = m["layers"], m["hidden"]
    flops = tokens * (6 * row["params"] + 12 * L * h * seq)
    flops_mm = tokens * (6 * row["params_matmul"] + 12 * L * h * seq)
    row["model_flops_per_step"] = flops
    row["tflops"] = round(flops / med / 1e12, 2)
    row["tflops_matmul"] = round(flops_mm / med / 1e12, 2)
    if cuda:
        row["peak_alloc_bytes"] = torch.cuda.max_memory_allocated(dev)
        row["peak_reserved_bytes"] = torch.cuda.max_memory_reserved(dev)
        row["reserved_end_bytes"] = torch.cuda.memory_reserved(dev)
        row["peak_alloc_gib"] = round(row["peak_alloc_bytes"] / GiB, 3)
        row["peak_reserved_gib"] = round(row["peak_reserved_bytes"] / GiB, 3)
        row["process_used_bytes"] = devmem.process_used_bytes()
        row["gpu_used_bytes"] = devmem.gpu_used_bytes()
        base = args._gpu_used_baseline
        row["device_used_bytes"] = (row["process_used_bytes"] if row["process_used_bytes"] is not None else
                                    (row["gpu_used_bytes"] - base if row["gpu_used_bytes"] is not None
                                     and base is not None else None))
        if row["device_used_bytes"] is not None:
            row["device_used_gib"] = round(row["device_used_bytes"] / GiB, 3)
            row["device_minus_reserved_bytes"] = row["device_used_bytes"] - row["reserved_end_bytes"]
    if args.profile_steps > 0:
        row["kernels"] = profile_kernels(step, dev, args.profile_steps)
    row["status"] = "ok"


# ----------------------------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(
        description="Measure eager-PyTorch training steps (time and memory) of Orrery library models on one "
                    "GPU; writes DIR/torch_training.jsonl (see the module docstring for the columns).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--models", default=os.path.join(REPO_ROOT, "data", "models.json"),
                    help="Orrery model library (data/models.json)")
    ap.add_argument("--out", default=".", help="output folder (torch_training.jsonl)")
    ap.add_argument("--budget-s", type=float, default=240.0,
                    help="wall-clock budget for the whole run; a configuration predicted not to fit is skipped")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up steps per configuration (untimed)")
    ap.add_argument("--steps", type=int, default=10, help="timed steps per configuration")
    ap.add_argument("--config", action="append", type=parse_config, metavar="MODEL:MODE:MB[:SEQ]",
                    help="measure these instead of the default list (MODE amp or bf16; SEQ defaults to the "
                         "model's seq); repeatable")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: two tiny configurations (tiny-gpt2 amp, tiny-llama bf16), 1 warm-up, "
                         "2 timed steps")
    ap.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu (cpu: smoke tests only)")
    ap.add_argument("--compile", action="store_true", help="wrap the model in torch.compile (off by default)")
    ap.add_argument("--dropout", type=float, default=None,
                    help="override the dropout (default: 0.1 for the gpt2 family, as GPT-2 trains; 0 otherwise)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile-steps", type=int, default=0,
                    help="after the timed steps, run this many more under torch.profiler and record the GPU kernel "
                         "time per step by kind (gemm, attention, optimizer, elementwise, norm, ...) in the row")
    ap.add_argument("--list", action="store_true",
                    help="print the configurations (in order) with their parameter counts against "
                         "published_params, then exit without measuring")
    args = ap.parse_args()

    if args.list:
        lib = load_models(args.models)
        lib.update(TINY_MODELS)
        for name, mode, mb, seq, *_ in (args.config or default_configs()):
            m = lib[name]
            p, pub = analytic_params(m), m.get("published_params")
            log("%-28s params %14d  published %14s  ratio %s" % (
                "%s-%s-mb%d-s%d" % (name, mode, mb, seq or m["seq"]), p, pub, "%.4f" % (p / pub) if pub else "-"))
        return
    dev = torch.device(args.device)
    cuda = dev.type == "cuda"
    t0 = time.perf_counter()
    deadline = t0 + args.budget_s
    if cuda and not torch.cuda.is_available():
        sys.exit("CUDA is not available (use --device cpu for a smoke test)")
    torch.manual_seed(args.seed)

    # CUDA context: device memory before and after initialising CUDA with one tiny allocation.
    devmem = DeviceMemory() if cuda else None
    context = {}
    args._gpu_used_baseline = None
    if cuda:
        before = devmem.gpu_used_bytes()
        args._gpu_used_baseline = before
        torch.cuda.init()
        torch.empty(1, device=dev)
        torch.cuda.synchronize(dev)
        time.sleep(0.2)
        after = devmem.gpu_used_bytes()
        proc = devmem.process_used_bytes()
        context = {"gpu_used_before_init_bytes": before, "gpu_used_after_init_bytes": after,
                   "process_used_after_init_bytes": proc,
                   "context_bytes": (proc if proc is not None else
                                     (after - before if after is not None and before is not None else None)),
                   "how": "device memory used after torch.cuda.init() + torch.empty(1) minus before (NVML "
                          "per-process figure when available); with CUDA lazy loading, kernels loaded later "
                          "add to it (see device_minus_reserved_bytes per row)"}
        if context["context_bytes"] is not None:
            context["context_gib"] = round(context["context_bytes"] / 2**30, 3)

    flash = None
    if cuda and HAS_SDPA:
        try:  # does the flash backend take a bf16 causal call with dropout on this GPU?
            q = torch.randn(1, 4, 128, 64, device=dev, dtype=torch.bfloat16)
            if hasattr(torch.nn, "attention") and hasattr(torch.nn.attention, "sdpa_kernel"):
                from torch.nn.attention import SDPBackend, sdpa_kernel
                ctx = sdpa_kernel(SDPBackend.FLASH_ATTENTION)
            else:
                ctx = torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False,
                                                     enable_mem_efficient=False)
            with ctx:
                F.scaled_dot_product_attention(q, q, q, dropout_p=0.1, is_causal=True)
            torch.cuda.synchronize(dev)
            flash = True
        except Exception as e:
            flash = "no: " + str(e).splitlines()[0][:200]

    if args.quick:
        args.steps, args.warmup = 2, 1
    header = {
        "type": "header",
        "script": "scripts/validation/measure_torch_training.py",
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "hostname": socket.gethostname(),
        "command_line": " ".join([sys.executable] + sys.argv),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if cuda else None,
        "device": str(dev),
        "gpu_name": torch.cuda.get_device_name(dev) if cuda else platform.processor() or "cpu",
        "gpu_total_bytes": torch.cuda.get_device_properties(dev).total_memory if cuda else None,
        "gpu_capability": list(torch.cuda.get_device_capability(dev)) if cuda else None,
        "gpu_sm_count": torch.cuda.get_device_properties(dev).multi_processor_count if cuda else None,
        "driver": devmem.driver_version() if cuda else None,
        "nvml": bool(devmem and devmem.nvml),
        "cuda_context": context,
        "sdpa": HAS_SDPA,
        "sdpa_flash_bf16_dropout_ok": flash,
        "tf32_matmul": torch.backends.cuda.matmul.allow_tf32 if cuda else None,
        "warmup_steps": args.warmup,
        "timed_steps": args.steps,
        "budget_s": args.budget_s,
        "compile": args.compile,
        "optimizer": "torch.optim.AdamW(lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1), default implementation "
                     "(foreach on CUDA, not fused)",
        "step": "forward (F.cross_entropy over the full vocabulary on random token ids) + backward + "
                "optimizer.step() + zero_grad(set_to_none=True); no gradient accumulation, no clipping",
        "flops_formula": "model flops per step = tokens * (6 * params + 12 * layers * hidden * seq); "
                         "tflops_matmul uses params minus the position embedding and the untied input embedding",
        "modes": {"amp": "fp32 weights/grads/AdamW states, torch.autocast(bfloat16) forward",
                  "bf16": "model.to(bfloat16): weights, grads, AdamW states bf16 (pure half, bf16-true)"},
    }
    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, "torch_training.jsonl")
    out = open(out_path, "w")

    def emit(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()
        os.fsync(out.fileno())

    emit(header)
    log("# %s | torch %s | CUDA %s | driver %s | context %s GiB | flash %s" % (
        header["gpu_name"], torch.__version__, header["cuda"], header["driver"], context.get("context_gib"), flash))
    log("# flops/step = tokens * (6*params + 12*layers*hidden*seq)")

    if args.quick:
        lib = dict(TINY_MODELS)
        configs = [("tiny-gpt2", "amp", 2, 128), ("tiny-llama", "bf16", 2, 128)]
    else:
        lib = load_models(args.models)
        lib.update(TINY_MODELS)
        configs = args.config or default_configs()
    configs = [tuple(c) + (1, "none")[len(c) - 4:] for c in configs]

    rates = {}  # mode -> lowest observed model FLOP/s
    overhead_per_param = []  # (build + first-step extra) seconds per parameter
    failed = set()  # (model, mode) that ran out of memory at some micro-batch
    n_ok = 0
    for name, mode, mb, seq, accum, recompute in configs:
        if name not in lib:
            log("! unknown model %s, skipped" % name)
            continue
        m = lib[name]
        seq = seq or m["seq"]
        dropout = args.dropout if args.dropout is not None else (0.1 if m["family"] == "gpt2" else 0.0)
        key = "%s-%s-mb%d-s%d" % (name, mode, mb, seq)
        if accum > 1:
            key += "-ga%d" % accum
        if recompute != "none":
            key += "-rc" + recompute
        row = {"type": "config", "config": key, "model": name, "family": m["family"], "mode": mode,
               "precision": "bf16", "autocast": mode == "amp", "pure_half": mode == "bf16",
               "micro_batch": mb, "batch": mb * accum, "grad_accum": accum, "seq": seq, "dp": 1, "tp": 1,
               "pp": 1, "recompute": recompute, "dropout": dropout, "optimizer": "adamw", "compile": args.compile,
               "attention": "sdpa(is_causal)" if HAS_SDPA else "manual"}
        if mode == "amp" and not cuda and not hasattr(torch, "autocast"):
            row.update(status="skipped", reason="no torch.autocast")
            emit(row)
            continue
        if any(f[0] == name and f[1] == mode and f[2] <= mb for f in failed):
            row.update(status="skipped", reason="a smaller micro-batch ran out of memory")
            emit(row)
            log("- %s: skipped (smaller micro-batch OOM)" % key)
            continue
        # Predict the duration from earlier configurations.
        approx_params = 12 * m["layers"] * m["hidden"] ** 2 + m["vocab"] * m["hidden"]
        flops = mb * seq * (6 * approx_params + 12 * m["layers"] * m["hidden"] * seq)
        rate = rates.get(mode) or min(rates.values(), default=(100e12 if cuda else 2e10))
        per_param = max(overhead_per_param, default=(2e-9 if cuda else 5e-8))
        predicted = 1.0 + per_param * approx_params + (args.warmup + args.steps) * flops / rate * 1.15
        left = deadline - time.perf_counter()
        if predicted > left:
            row.update(status="skipped", reason="budget: predicted %.1f s, %.1f s left" % (predicted, left))
            emit(row)
            log("- %s: skipped (predicted %.1f s > %.1f s left)" % (key, predicted, left))
            continue

        t_cfg = time.perf_counter()
        oom = err = None
        try:
            run_config(row, m, args, dev, devmem, deadline)
        except KeyboardInterrupt:
            raise
        except Exception as e:  # noqa: BLE001 - one configuration's failure must not end the run
            msg = (str(e).splitlines() or [type(e).__name__])[0][:300]
            if isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or "out of memory" in str(e).lower():
                oom = msg
            else:
                err = "%s: %s" % (type(e).__name__, msg)
        # outside the except block: the traceback (and the tensors its frames hold) is gone
        if oom is not None:
            row.update(status="oom", error=oom)
            failed.add((name, mode, mb))
            if cuda:
                row["peak_alloc_bytes_at_oom"] = torch.cuda.max_memory_allocated(dev)
                row["peak_reserved_bytes_at_oom"] = torch.cuda.max_memory_reserved(dev)
        elif err is not None:
            row.update(status="error", error=err)
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
        row["config_s"] = round(time.perf_counter() - t_cfg, 3)
        emit(row)
        if row["status"] == "ok":
            n_ok += 1
            r = row["model_flops_per_step"] / row["step_median_s"]
            rates[mode] = min(rates.get(mode, r), r)
            extra = row["config_s"] - (row["steps_timed"] + args.warmup) * row["step_median_s"]
            overhead_per_param.append(max(extra, 0.0) / row["params"])
            mem = ""
            if cuda:
                mem = " | peak alloc %.2f GiB reserved %.2f GiB device %s GiB" % (
                    row["peak_alloc_gib"], row["peak_reserved_gib"], row.get("device_used_gib"))
            log("%s: params %.1fM (%.3fx published) | step median %.4f s min %.4f s | %.0f tok/s | "
                "%.1f TFLOP/s%s | loss %.3f | %.1f s" % (
                    key, row["params"] / 1e6, row["params_vs_published"] or float("nan"), row["step_median_s"],
                    row["step_min_s"], row["tokens_per_s"], row["tflops"], mem, row["loss_last"],
                    row["config_s"]))
        else:
            log("%s: %s (%s) | %.1f s" % (key, row["status"].upper(), row.get("error", "")[:160], row["config_s"]))
    emit({"type": "footer", "configs_ok": n_ok, "elapsed_s": round(time.perf_counter() - t0, 1)})
    out.close()
    log("# %d configurations measured in %.1f s -> %s" % (n_ok, time.perf_counter() - t0, out_path))


if __name__ == "__main__":
    main()

#pragma once

// Internal to the CUDA profiler (cuda_probe.cu): the GEMM shapes it times, per precision.

#include <initializer_list>
#include <vector>

namespace orrery::profile::detail {

struct Shape
{
    const char* precision;
    double m, n, k;
};

inline std::vector<Shape> gemmGrid(bool quick, bool fp8)
{
    std::vector<Shape> g;
    const auto squares = [&](const char* p, std::initializer_list<double> sizes) {
        for (double s : sizes)
            g.push_back({p, s, s, s});
    };
    // The four GEMMs of a transformer layer at t tokens and hidden size h (QKV, projection, MLP up, down).
    const auto layer = [&](const char* p, double t, double h) {
        g.push_back({p, t, 3 * h, h});
        g.push_back({p, t, h, h});
        g.push_back({p, t, 4 * h, h});
        g.push_back({p, t, h, 4 * h});
    };
    if (quick) {
        // Up to 16384^3 (about 12 ms each): the clocks a long GEMM settles at are the ones training sees.
        squares("bf16", {512, 1024, 2048, 4096, 8192, 16384});
        layer("bf16", 4096, 1024);
        layer("bf16", 4096, 4096);
        for (double k : {32.0, 128.0, 512.0})
            g.push_back({"bf16", 4096, 4096, k});
        // Off the 16-byte alignment (GPT-2's vocabulary): the fallback kernels' rate.
        g.push_back({"bf16", 8192, 50257, 768});
        g.push_back({"bf16", 8192, 768, 50257});
        squares("fp16", {4096, 8192});
        squares("tf32", {4096, 8192});
        squares("fp32", {4096});
        if (fp8)
            squares("fp8", {4096, 8192});
        return g;
    }
    squares("bf16", {256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384});
    for (double t : {1024.0, 4096.0, 16384.0})
        for (double h : {768.0, 2048.0, 4096.0, 8192.0})
            layer("bf16", t, h);
    for (double k : {16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0})
        g.push_back({"bf16", 8192, 8192, k});
    for (double m : {16.0, 64.0, 128.0, 256.0, 512.0})
        g.push_back({"bf16", m, 8192, 8192});
    // Off the 16-byte alignment: GPT-2's vocabulary in the three logits GEMMs, and odd sizes.
    for (double t : {4096.0, 16384.0}) {
        g.push_back({"bf16", t, 50257, 768});
        g.push_back({"bf16", t, 768, 50257});
        g.push_back({"bf16", 50257, 768, t});
    }
    g.push_back({"bf16", 8191, 8192, 8192});
    g.push_back({"bf16", 8192, 8192, 8190});
    squares("fp16", {1024, 2048, 4096, 8192, 16384});
    layer("fp16", 4096, 4096);
    squares("tf32", {1024, 2048, 4096, 8192});
    squares("fp32", {1024, 2048, 4096, 8192});
    if (fp8) {
        squares("fp8", {1024, 2048, 4096, 8192, 16384});
        layer("fp8", 4096, 4096);
        layer("fp8", 16384, 8192);
    }
    return g;
}

} // namespace orrery::profile::detail

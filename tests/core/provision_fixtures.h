#pragma once

// Shared fixtures of the provisioning tests: the paper's four GPU types
// (Table I as reconstructed in spec B.9.1) and random small instances.

#include "provision/layer_profile.h"
#include "provision/provision_types.h"
#include "util/units.h"

#include <rapidcheck.h>

#include <string>
#include <vector>

namespace orrery::test {

inline hardware::GpuType paperGpu(const std::string& name, double memoryGiB, double tflops)
{
    hardware::GpuType g;
    g.name = name;
    g.memoryGiB = memoryGiB;
    g.fp16TFlops = tflops;
    return g;
}

/** A (48 GB, 154.8), B (24, 165), C (24, 142), D (16, 76) with the code's prices 6 / 4 / 2.5 / 2. */
inline std::vector<provision::PoolGpu> juchiPool(int a = 8, int b = 16, int c = 16, int d = 16)
{
    return {{paperGpu("a6000", 48, 154.8), a, 6},
            {paperGpu("a30", 24, 165), b, 4},
            {paperGpu("rtx3090", 24, 142), c, 2.5},
            {paperGpu("a4000", 16, 76), d, 2}};
}

/** A layer that takes `perLayerS` forward (twice that backward) and `staticGiB` + `activationGiB` per micro-batch. */
inline provision::LayerProfile simpleProfile(double perLayerS, double staticGiB, double activationGiB,
                                             double gradientBytes, double flops = 1e12)
{
    provision::LayerProfile p;
    p.layer.forwardS = perLayerS;
    p.layer.backwardS = 2 * perLayerS;
    p.layer.staticBytes = staticGiB * kGiB;
    p.layer.activationBytes = activationGiB * kGiB;
    p.layer.gradientBytes = gradientBytes;
    p.layer.flops = flops;
    return p;
}

/** A random small instance: 2-3 of the paper's types, quotas <= 4, L <= 10, profiles scaled by F(t). */
struct SmallInstance
{
    provision::ProvisionJob job;
    std::vector<provision::PoolGpu> pool;
    provision::TableProfileSource source;
};

inline SmallInstance genSmallInstance()
{
    SmallInstance in;
    const auto all = juchiPool();
    const int types = *rc::gen::inRange(2, 4);
    const auto pick = *rc::gen::unique<std::vector<int>>(static_cast<std::size_t>(types), rc::gen::inRange(0, 4));
    for (int t : pick) {
        auto g = all[static_cast<std::size_t>(t)];
        g.quota = *rc::gen::inRange(1, 5);
        in.pool.push_back(g);
        // Per-layer time inversely proportional to F(t), with a random efficiency; memory so that a
        // 16 GB card holds 2-8 layers.
        const double eff = *rc::gen::inRange(30, 60) / 100.0;
        const double layerS = 10.0 / (g.gpu.fp16TFlops * eff);
        const double staticGiB = *rc::gen::inRange(15, 60) / 10.0;
        const double actGiB = *rc::gen::inRange(0, 10) / 10.0;
        const double gradBytes = *rc::gen::inRange(0, 200) * 1e6;
        auto p = simpleProfile(layerS, staticGiB, actGiB, gradBytes, 1e13);
        p.boundaryBytes = *rc::gen::inRange(0, 50) * 1e6;
        in.source.set(g.gpu.name, p);
    }
    in.job.model.name = "small";
    in.job.model.layers = *rc::gen::inRange(3, 11);
    in.job.microBatches = *rc::gen::element(1, 2, 4);
    in.job.training.globalBatch = in.job.microBatches * 4;
    in.job.iterations = 100;
    in.job.sloS = *rc::gen::element(0.0, 200.0, 600.0, 1500.0, 4000.0);
    return in;
}

} // namespace orrery::test

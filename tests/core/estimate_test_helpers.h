#pragma once

// Helpers of the estimator tests (test_estimate_*.cpp).

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"

#include <string>

namespace orrery::test {

/** Nodes of `gpusPerNode` GPUs of catalog type `gpu` on the type's own link, InfiniBand of `networkGBps` GB/s
 *  between nodes, at most `maxGpus` GPUs. */
inline estimate::PlanTarget planTarget(const std::string& gpu, int gpusPerNode, double networkGBps, int maxGpus = 1024)
{
    estimate::PlanTarget t;
    t.gpu = &hardware::GpuCatalog::builtin().at(gpu);
    t.maxGpus = maxGpus;
    t.gpusPerNode = gpusPerNode;
    t.intraNode = t.gpu->intraLink;
    t.interNode = {hardware::LinkKind::InfiniBand, networkGBps, 5};
    return t;
}

} // namespace orrery::test

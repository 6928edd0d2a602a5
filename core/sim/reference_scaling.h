#pragma once

#include "hardware/gpu_catalog.h"
#include "sim/throughput.h"

#include <string>

namespace orrery::sim {

/**
 * Jobs with a run time measured on a reference GPU (Philly, Helios, PAI
 * traces). Work is the measured duration in reference seconds; on `count` GPUs
 * of another type the rate is (count / job.gpus) * speed(type) / speed(ref).
 *
 * The speed model is the GPU's memory bandwidth. Calibrated against Gavel's
 * measured table (26 single-GPU job types): the geometric-mean speed-ups are
 * V100/K80 3.36, P100/K80 3.17, V100/P100 1.06; bandwidth predicts 3.75, 3.05,
 * 1.23, whereas fp16 peak predicts 28.6, 4.3, 6.7 and fp32 peak 3.6, 2.1, 1.7.
 * The traces it serves (2017-2020) are mostly fp32/mixed-precision CNN and
 * RNN training, memory-bound enough that bandwidth is the better proxy.
 * See docs/simulator.md.
 */
class ReferenceScaling : public ThroughputSource
{
public:
    ReferenceScaling(const hardware::GpuCatalog& catalog, std::string defaultReferenceGpu);

    double work(const workload::Job& job) const override { return job.durationS; }
    int demand(const workload::Job& job) const override { return job.gpus; }
    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override;

    static double speed(const hardware::GpuType& gpu) { return gpu.memoryBandwidthGBps; }

private:
    const hardware::GpuType& reference(const workload::Job& job) const;

    hardware::GpuCatalog m_catalog;
    std::string m_defaultReference;
};

} // namespace orrery::sim

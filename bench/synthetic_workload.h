#pragma once
// The simulator benchmark's workload (issue #4: 100,000 jobs on 10,000 GPUs), shared by the
// simulator and store benchmarks so that both measure the same run.
#include "hardware/cluster.h"
#include "io/scenario.h"
#include "sim/prepared_workload.h"
#include "sim/reference_scaling.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace orrery::bench {

/** 10,000 GPUs: 500 A100 + 500 V100 + 250 RTX 2080 Ti nodes of 8. */
inline hardware::Cluster bigCluster()
{
    std::vector<hardware::NodeGroup> groups = {{"a100", "a100-40gb-sxm", 500, 8, std::nullopt},
                                               {"v100", "v100-16gb", 500, 8, std::nullopt},
                                               {"rtx", "rtx2080ti", 250, 8, std::nullopt}};
    return hardware::Cluster(groups, hardware::Link{hardware::LinkKind::InfiniBand, 25, 2},
                             hardware::GpuCatalog::builtin());
}

/**
 * 100,000 jobs: Poisson arrivals at 1.1 jobs/s, GPU demands 1/1/1/2/4/8, log-normal durations
 * (median 30 min, mean about 1 h, capped at 2 days) measured on a V100: about 95% of the cluster's V100-equivalent
 * capacity, so queues form.
 */
inline const sim::PreparedWorkload& syntheticWorkload()
{
    static const auto workload = [] {
        std::mt19937_64 rng(42);
        std::exponential_distribution<double> gap(1.1);
        std::lognormal_distribution<double> duration(std::log(1800.0), 1.2);
        const int demands[] = {1, 1, 1, 2, 4, 8};
        std::uniform_int_distribution<int> pick(0, 5);
        std::vector<workload::Job> jobs;
        jobs.reserve(100000);
        double t = 0;
        for (int i = 0; i < 100000; ++i) {
            t += gap(rng);
            workload::Job j;
            j.id = std::to_string(i);
            j.arrivalS = t;
            j.gpus = demands[pick(rng)];
            j.durationS = std::min(std::max(duration(rng), 60.0), 172800.0);
            jobs.push_back(std::move(j));
        }
        io::ScenarioOptions options;
        auto source = std::make_shared<sim::ReferenceScaling>(hardware::GpuCatalog::builtin(), options.referenceGpu);
        return std::make_unique<sim::PreparedWorkload>(bigCluster(), std::move(jobs), source, options);
    }();
    return *workload;
}

} // namespace orrery::bench

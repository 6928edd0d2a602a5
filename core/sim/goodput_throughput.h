#pragma once

#include "sim/throughput.h"
#include "workload/goodput_model.h"

#include <map>
#include <memory>
#include <set>
#include <string>

namespace orrery::sim {

/**
 * Goodput jobs (Pollux/Sia workloads: a job with an `application`), docs/models/goodput.md. Work is the job's
 * samples of progress (GoodputModel::workSamples); the rate on an allocation is Pollux's goodput: the fitted
 * iteration time of the GPU type's profile at the plan's global batch (the job's tuned batch when the plan gives
 * none) split over the GPUs used and the nodes spanned, times the statistical efficiency of that batch at the
 * job's progress. So the rate is progress-dependent: the engine refreshes it at every decision. On a mix of types
 * the slowest type's goodput holds (replicas wait for the slowest). A GPU type without a profile (see
 * workload::profileSuffixForGpu) has rate 0: the job cannot run there.
 */
class GoodputThroughput : public ThroughputSource
{
public:
    explicit GoodputThroughput(std::map<std::string, std::shared_ptr<const workload::GoodputModel>> models);
    /** Reads and fits `dir`/<app>/ for each application; errors name the directory and file. */
    static std::shared_ptr<const GoodputThroughput> load(const std::string& dir, const std::set<std::string>& apps);

    /** The job's application model; an error naming the job when its application was not loaded. */
    const workload::GoodputModel& goodputModel(const workload::Job& job) const;
    /** The global batch the job runs when a plan gives none: its tuned batch, else the initial batch. */
    int defaultBatch(const workload::Job& job) const;
    /** Profile suffix of a catalog GPU type ("" none). */
    static std::string suffixOf(const hardware::GpuType& gpu);

    double work(const workload::Job& job) const override { return goodputModel(job).workSamples(); }
    int demand(const workload::Job& job) const override { return job.gpus; }
    /** Goodput on `count` GPUs of one node at the job's batch with the best efficiency of the run (a bound). */
    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override;
    double planRate(const workload::Job& job, const Composition& allocation, const Plan& plan,
                    double progress) const override;
    bool progressDependent(const workload::Job& /*job*/) const override { return true; }
    /** The goodput-maximising global batch on the allocation's slowest type (GoodputModel::bestBatch). */
    Plan bestPlan(const workload::Job& job, const Composition& allocation, double progress) const override;

private:
    std::map<std::string, std::shared_ptr<const workload::GoodputModel>> m_models;
};

} // namespace orrery::sim

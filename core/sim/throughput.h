#pragma once

#include "hardware/gpu_type.h"
#include "sim/plan.h"
#include "workload/job.h"
#include "workload/model_spec.h"

#include <memory>
#include <string>
#include <vector>

namespace orrery::io {
struct Scenario;
}
namespace orrery::workload {
class GavelThroughputTable;
}

namespace orrery::sim {

/**
 * An allocation as a throughput source sees it when it answers for a plan or for progress
 * (ThroughputSource::planRate): what PreparedWorkload::allocationRate, the one composition, made of
 * a set of GPUs. Rates are before the locality factor, which the engine applies to every answer.
 */
struct Composition
{
    struct Part
    {
        const hardware::GpuType* gpu = nullptr;
        int type = -1;   ///< sim type (PreparedWorkload numbering)
        int count = 0;   ///< GPUs of this type in the allocation
        double rate = 0; ///< rate(job, gpu, usedGpus) as the engine reads it (its prepared table)
    };
    std::vector<Part> parts; ///< one per GPU type present, in sim type order
    int gpus = 0;            ///< GPUs given
    int usedGpus = 0;        ///< GPUs the job uses of them (its elastic range), 0 = none
    int nodes = 0;           ///< nodes spanned
    double packedRate = 0;   ///< today's composition: the slowest part's rate (0 when usedGpus is 0)
};

/**
 * "How fast does job j run on this allocation." Rates are in the job's work
 * units per second: steps for throughput-table jobs, reference seconds for
 * jobs with a measured duration, iterations for serverless jobs. The engine
 * asks for one GPU type and a count placed within one node; it derives mixed
 * and cross-node allocations from that (see docs/simulator.md).
 */
class ThroughputSource
{
public:
    virtual ~ThroughputSource() = default;

    /** Total work of the job, in the units of rate(). */
    virtual double work(const workload::Job& job) const = 0;
    /** GPUs the job asks for (a baseline policy gives it exactly this many). */
    virtual int demand(const workload::Job& job) const = 0;
    /**
     * GPUs the job asks for when it runs on `gpu` alone; 0 when it has no feasible request there. Jobs with a
     * fixed request ask for demand() on every type; a serverless job asks for its best plan on that type.
     */
    virtual int demandOn(const workload::Job& job, const hardware::GpuType& /*gpu*/) const { return demand(job); }
    /** Work units per second on `count` GPUs of `gpu` in one node; 0 when it cannot run there (e.g. out of memory). */
    virtual double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const = 0;
    /** The model of a serverless job, for policies that plan it themselves (Frenzy); nullptr otherwise. */
    virtual const workload::ModelSpec* model(const workload::Job& /*job*/) const { return nullptr; }

    // ---- plans and progress (docs/simulator.md, "Plans and progress-dependent rates") ----
    /**
     * Work units per second of the job on a whole allocation under `plan` at `progress` (fraction of its
     * work done, in [0, 1]), before the locality factor. The engine asks this only when the plan is not
     * the default one or the job is progressDependent(); otherwise it composes rate() as it always has.
     * The default ignores plan and progress: today's composition, so every existing source is unchanged.
     * A positive answer must stay positive as progress grows (a running job cannot stall).
     */
    virtual double planRate(const workload::Job& /*job*/, const Composition& allocation, const Plan& /*plan*/,
                            double /*progress*/) const
    {
        return allocation.packedRate;
    }
    /** Whether the job's rate depends on its progress (statistical efficiency): the engine then refreshes
     *  its rate at every decision, without a restart. */
    virtual bool progressDependent(const workload::Job& /*job*/) const { return false; }
    /**
     * The plan this source would run the job best under on an allocation at `progress` (Pollux's and Sia's
     * batch-size tuning: the goodput-maximising global batch); the default plan for sources without plans.
     * Policies that tune batches ask this, then give the plan (docs/models/goodput.md).
     */
    virtual Plan bestPlan(const workload::Job& /*job*/, const Composition& /*allocation*/, double /*progress*/) const
    {
        return {};
    }
    /** Training samples per work unit under `plan` (for samples per second); 0 when unknown. */
    virtual double samplesPerUnit(const workload::Job& /*job*/, const Plan& /*plan*/) const { return 0; }
};

/**
 * The source a scenario implies: Gavel's table (options.throughputs) for jobs
 * with a job type, reference-duration scaling for jobs with durationS, the
 * estimators for serverless jobs. Throws orrery::Error when a job needs a
 * source the scenario lacks (e.g. a job type without a throughput table).
 */
std::shared_ptr<const ThroughputSource> makeScenarioThroughput(const io::Scenario& scenario);
/** The same with the scenario's Gavel table already read (nullptr: none), so it is parsed once. */
std::shared_ptr<const ThroughputSource>
makeScenarioThroughput(const io::Scenario& scenario, std::shared_ptr<const workload::GavelThroughputTable> gavelTable);
/** The Gavel table `options.throughputs` names, or nullptr when it names none. */
std::shared_ptr<const workload::GavelThroughputTable> loadGavelTable(const io::Scenario& scenario);

} // namespace orrery::sim

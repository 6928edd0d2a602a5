#pragma once

#include "hardware/gpu_type.h"
#include "workload/job.h"
#include "workload/model_spec.h"

#include <memory>
#include <string>

namespace orrery::io {
struct Scenario;
}
namespace orrery::workload {
class GavelThroughputTable;
}

namespace orrery::sim {

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

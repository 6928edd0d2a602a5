#include "sim/throughput.h"

#include "io/error.h"
#include "io/scenario.h"
#include "sim/estimator_throughput.h"
#include "sim/gavel_throughputs.h"
#include "sim/goodput_throughput.h"
#include "sim/reference_scaling.h"

#include <fmt/format.h>

#include <optional>
#include <set>

namespace orrery::sim {

namespace {

/** Dispatches each job to the source its fields call for. */
class ScenarioThroughput : public ThroughputSource
{
public:
    ScenarioThroughput(std::optional<GavelThroughputs> table, std::string tablePath, ReferenceScaling reference,
                       std::shared_ptr<const ThroughputSource> estimator,
                       std::shared_ptr<const GoodputThroughput> goodput)
        : m_table(std::move(table)), m_tablePath(std::move(tablePath)), m_reference(std::move(reference)),
          m_estimator(std::move(estimator)), m_goodput(std::move(goodput))
    {}

    double work(const workload::Job& job) const override { return pick(job).work(job); }
    int demand(const workload::Job& job) const override { return pick(job).demand(job); }
    int demandOn(const workload::Job& job, const hardware::GpuType& gpu) const override
    {
        return pick(job).demandOn(job, gpu);
    }
    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override
    {
        return pick(job).rate(job, gpu, count);
    }
    const workload::ModelSpec* model(const workload::Job& job) const override { return pick(job).model(job); }
    double planRate(const workload::Job& job, const Composition& allocation, const Plan& plan,
                    double progress) const override
    {
        return pick(job).planRate(job, allocation, plan, progress);
    }
    bool progressDependent(const workload::Job& job) const override { return pick(job).progressDependent(job); }
    Plan bestPlan(const workload::Job& job, const Composition& allocation, double progress) const override
    {
        return pick(job).bestPlan(job, allocation, progress);
    }
    double samplesPerUnit(const workload::Job& job, const Plan& plan) const override
    {
        // A serverless job's work is iterations of its configured global batch (JobRecord::samples); the
        // estimators answer for that batch whatever a plan says. Table and reference-duration jobs do not
        // say what a step or a second holds.
        if (job.kind == workload::JobKind::Serverless)
            return job.config.globalBatch;
        return pick(job).samplesPerUnit(job, plan);
    }

private:
    const ThroughputSource& pick(const workload::Job& job) const
    {
        if (job.kind == workload::JobKind::Serverless)
            return *m_estimator;
        if (!job.application.empty()) {
            if (!m_goodput)
                throw Error("", "options.goodput_profiles",
                            fmt::format("job \"{}\" has application \"{}\", which needs goodput profiles", job.id,
                                        job.application));
            return *m_goodput;
        }
        if (!job.jobType.empty()) {
            if (!m_table)
                throw Error("", "options.throughputs",
                            fmt::format("job \"{}\" has job type \"{}\", which needs a Gavel throughput table", job.id,
                                        job.jobType));
            return *m_table;
        }
        return m_reference;
    }

    std::optional<GavelThroughputs> m_table;
    std::string m_tablePath;
    ReferenceScaling m_reference;
    std::shared_ptr<const ThroughputSource> m_estimator;
    std::shared_ptr<const GoodputThroughput> m_goodput;
};

} // namespace

std::shared_ptr<const workload::GavelThroughputTable> loadGavelTable(const io::Scenario& scenario)
{
    if (scenario.options.throughputs.empty())
        return nullptr;
    return std::make_shared<const workload::GavelThroughputTable>(
        workload::GavelThroughputTable::fromFile(scenario.resolvePath(scenario.options.throughputs)));
}

std::shared_ptr<const ThroughputSource> makeScenarioThroughput(const io::Scenario& scenario)
{
    return makeScenarioThroughput(scenario, loadGavelTable(scenario));
}

std::shared_ptr<const ThroughputSource>
makeScenarioThroughput(const io::Scenario& scenario, std::shared_ptr<const workload::GavelThroughputTable> gavelTable)
{
    std::optional<GavelThroughputs> table;
    if (gavelTable)
        table.emplace(std::move(gavelTable));
    // Goodput profiles are read and fitted for the applications the scenario's jobs name, once per preparation.
    std::shared_ptr<const GoodputThroughput> goodput;
    if (!scenario.options.goodputProfiles.empty()) {
        std::set<std::string> apps;
        for (const auto& j : scenario.workload.jobs)
            if (!j.application.empty())
                apps.insert(j.application);
        goodput = GoodputThroughput::load(scenario.resolvePath(scenario.options.goodputProfiles), apps);
    }
    return std::make_shared<ScenarioThroughput>(
        std::move(table), scenario.options.throughputs,
        ReferenceScaling(scenario.cluster.catalog(), scenario.options.referenceGpu), makeEstimatorThroughput(scenario),
        std::move(goodput));
}

} // namespace orrery::sim

#include "io/workload_loader.h"

#include "io/error.h"
#include "util/text.h"
#include "workload/duration_distribution.h"
#include "workload/gavel_throughput_table.h"
#include "workload/generator.h"
#include "workload/hyperband_generator.h"
#include "workload/trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <unordered_set>

namespace orrery::io {

using namespace orrery::workload;

namespace {

std::vector<Job> traceJobs(const Scenario& s, const TraceRef& ref,
                           const std::shared_ptr<const GavelThroughputTable>& gavelTable)
{
    const std::string path = s.resolvePath(ref.path);
    TraceOptions o;
    o.limit = ref.limit;
    if (ref.format == "gavel" && gavelTable)
        o.gavel.referenceStepsPerS = gavelReferenceRates(gavelTable);
    TraceRead read = readTrace(ref.format, path, o);
    const auto& catalog = s.cluster.catalog();
    std::string referenceGpu;
    if (!ref.referenceGpu.empty())
        referenceGpu = catalog.at(ref.referenceGpu).name;
    for (auto& j : read.jobs) {
        if (j.kind == JobKind::Fixed && j.jobType.empty() && j.referenceGpu.empty())
            j.referenceGpu = referenceGpu;
        // openb's G1/G2/G3 exist only as custom types: the scenario must declare them.
        for (std::string* type : {&j.gpuType, &j.referenceGpu}) {
            if (type->empty())
                continue;
            const auto* t = catalog.find(*type);
            if (!t)
                throw Error(util::baseName(path), "",
                            fmt::format("job \"{}\" needs GPU type \"{}\", which the scenario does not define "
                                        "(add it under \"gpus\"; `orrery-cli import` writes openb's)",
                                        j.id, *type));
            *type = t->name;
        }
    }
    return std::move(read.jobs);
}

std::vector<Job> generatedJobs(const Scenario& s, const GeneratorSpec& g)
{
    const DurationDistribution durations = g.durations == "philly"
                                               ? DurationDistribution::philly()
                                               : DurationDistribution::fromCsvFile(s.resolvePath(g.durations));
    const std::uint64_t seed = g.seed ? static_cast<std::uint64_t>(*g.seed) : s.options.seed;
    return generateJobs(g, seed, s.models(), durations);
}

} // namespace

void assignUniqueIds(std::vector<Job>& jobs)
{
    std::unordered_set<std::string> ids;
    ids.reserve(jobs.size());
    std::vector<std::size_t> clashes;
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (!ids.insert(jobs[i].id).second)
            clashes.push_back(i);
    for (std::size_t i : clashes) {
        for (int k = 2;; ++k) {
            std::string id = fmt::format("{}~{}", jobs[i].id, k);
            if (ids.insert(id).second) {
                jobs[i].id = std::move(id);
                break;
            }
        }
    }
}

std::vector<Job> loadJobs(const Scenario& s)
{
    std::shared_ptr<const GavelThroughputTable> table;
    if (s.workload.trace && s.workload.trace->format == "gavel" && !s.options.throughputs.empty())
        table = std::make_shared<const GavelThroughputTable>(
            GavelThroughputTable::fromFile(s.resolvePath(s.options.throughputs)));
    return loadJobs(s, table);
}

std::vector<Job> loadJobs(const Scenario& s, const std::shared_ptr<const GavelThroughputTable>& gavelTable)
{
    std::vector<Job> jobs = s.workload.jobs;
    auto append = [&](std::vector<Job> more) {
        jobs.reserve(jobs.size() + more.size());
        std::move(more.begin(), more.end(), std::back_inserter(jobs));
    };
    if (s.workload.trace)
        append(traceJobs(s, *s.workload.trace, gavelTable));
    if (s.workload.generator)
        append(generatedJobs(s, *s.workload.generator));
    if (const auto& h = s.workload.hyperband)
        append(generateHyperbandApps(*h, h->seed ? static_cast<std::uint64_t>(*h->seed) : s.options.seed));
    // Inline jobs come first, so they keep their ids.
    assignUniqueIds(jobs);
    // Each source is already in arrival order; a merge sort over 100,000 jobs is most of the cost, so skip it then.
    const auto byArrival = [](const Job& a, const Job& b) { return a.arrivalS < b.arrivalS; };
    if (!std::is_sorted(jobs.begin(), jobs.end(), byArrival))
        std::stable_sort(jobs.begin(), jobs.end(), byArrival);
    return jobs;
}

} // namespace orrery::io

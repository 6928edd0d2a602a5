#include "sim/prepare_scenario.h"

#include "io/workload_loader.h"
#include "sim/throughput.h"

namespace orrery::sim {

PreparedWorkload prepareScenario(const io::Scenario& scenario)
{
    return prepareScenario(scenario, {});
}

PreparedWorkload prepareScenario(const io::Scenario& scenario,
                                 const std::function<void(std::vector<workload::Job>&)>& editJobs)
{
    // Read once: Gavel's table gives both the trace's durations and the rates, and parsing it is
    // most of the time a simulation of a Gavel trace takes.
    const auto table = loadGavelTable(scenario);
    io::ScenarioOptions options = scenario.options;
    options.locality.table = scenario.resolvePath(options.locality.table); // relative to the scenario, as throughputs
    std::vector<workload::Job> jobs = io::loadJobs(scenario, table);
    if (editJobs)
        editJobs(jobs);
    return PreparedWorkload(scenario.cluster, std::move(jobs), makeScenarioThroughput(scenario, table), options);
}

} // namespace orrery::sim

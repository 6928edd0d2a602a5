#include "sim/prepare_scenario.h"

#include "io/workload_loader.h"
#include "sim/throughput.h"

namespace orrery::sim {

PreparedWorkload prepareScenario(const io::Scenario& scenario)
{
    // Read once: Gavel's table gives both the trace's durations and the rates, and parsing it is
    // most of the time a simulation of a Gavel trace takes.
    const auto table = loadGavelTable(scenario);
    io::ScenarioOptions options = scenario.options;
    options.locality.table = scenario.resolvePath(options.locality.table); // relative to the scenario, as throughputs
    return PreparedWorkload(scenario.cluster, io::loadJobs(scenario, table), makeScenarioThroughput(scenario, table),
                            options);
}

} // namespace orrery::sim

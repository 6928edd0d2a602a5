#include "runs/simulate_function.h"

#include "io/error.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/prepared_workload.h"
#include "sim/simulator.h"
#include "util/progress.h"

namespace orrery::gui {

SimulateFunction coreSimulateFunction()
{
    return [](const io::Scenario& scenario, const std::string& policyName, TaskContext& context,
              const sim::PartialResultFn& onPartial) {
        auto policy = sched::makePolicy(policyName); // unknown names fail before any work
        context.reportProgress(0.0, kPhasePreparing);
        // Inline jobs plus any trace or generator, expanded here on the worker: imports can be large.
        const sim::PreparedWorkload prepared = sim::prepareScenario(scenario);
        if (prepared.jobCount() == 0)
            throw Error("the scenario has no jobs to run (add a job mix in the Workload panel)");
        context.reportProgress(0.0, kPhaseSimulating);
        util::Progress progress;
        progress.report = [&context](double fraction) { context.reportProgress(fraction); };
        progress.stop = context.stopToken();
        return sim::simulate(prepared, *policy, scenario.options.seed, progress, onPartial);
    };
}

std::vector<std::string> registeredPolicies()
{
    std::vector<std::string> names;
    for (const auto& p : sched::registeredPolicies())
        names.push_back(p.name);
    return names;
}

} // namespace orrery::gui

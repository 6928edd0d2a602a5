#include "sim/run_policies.h"

#include "io/workload_loader.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

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

std::vector<RunResult> runPolicies(const PreparedWorkload& workload, const std::vector<std::string>& policies,
                                   std::uint64_t seed, int threads, const util::Progress& progress,
                                   const IndexedPartialResultFn& onPartial)
{
    std::vector<std::unique_ptr<sched::Policy>> instances;
    for (const auto& name : policies)
        instances.push_back(sched::makePolicy(name));

    const std::size_t n = policies.size();
    std::vector<RunResult> results(n);
    std::vector<std::exception_ptr> errors(n);
    std::vector<double> fractions(n, 0.0);
    std::mutex progressMutex;
    std::atomic<std::size_t> next{0};

    auto worker = [&] {
        for (std::size_t i = next++; i < n; i = next++) {
            util::Progress runProgress;
            runProgress.stop = progress.stop;
            runProgress.report = [&, i](double f) {
                std::lock_guard lock(progressMutex);
                fractions[i] = f;
                double sum = 0;
                for (double x : fractions)
                    sum += x;
                progress(sum / static_cast<double>(n));
            };
            try {
                PartialResultFn partial;
                if (onPartial)
                    partial = [&onPartial, i](const RunResult& r) { onPartial(i, r); };
                results[i] = simulate(workload, *instances[i], seed, runProgress, partial);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const int pool = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(n, 1)));
    if (pool == 1) {
        worker();
    } else {
        std::vector<std::jthread> workers;
        for (int t = 0; t < pool; ++t)
            workers.emplace_back(worker);
    }
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    return results;
}

} // namespace orrery::sim

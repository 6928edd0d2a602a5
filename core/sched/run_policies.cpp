#include "sched/run_policies.h"

#include "sched/registry.h"
#include "sim/simulator.h"
#include "util/run_workers.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace orrery::sched {

std::vector<sim::RunResult> runPolicies(const sim::PreparedWorkload& workload, const std::vector<std::string>& policies,
                                        std::uint64_t seed, int threads, const util::Progress& progress,
                                        const IndexedPartialResultFn& onPartial)
{
    std::vector<std::unique_ptr<sim::Policy>> instances;
    for (const auto& name : policies)
        instances.push_back(makePolicy(name));

    const std::size_t n = policies.size();
    std::vector<sim::RunResult> results(n);
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
                sim::PartialResultFn partial;
                if (onPartial)
                    partial = [&onPartial, i](const sim::RunResult& r) { onPartial(i, r); };
                results[i] = sim::simulate(workload, *instances[i], seed, runProgress, partial);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    util::runWorkers(threads, n, worker);
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    return results;
}

} // namespace orrery::sched

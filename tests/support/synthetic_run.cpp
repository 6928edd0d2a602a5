#include "synthetic_run.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace orrery::gui::test {

std::shared_ptr<sim::RunResult> syntheticRun(const hardware::Cluster& cluster, int jobs, std::uint64_t seed,
                                             const std::string& policy)
{
    auto run = std::make_shared<sim::RunResult>();
    run->policy = policy;
    run->seed = seed;
    run->totalGpus = cluster.totalGpus();
    for (int t : cluster.presentTypes())
        run->gpuTypes.push_back(cluster.catalog().types()[static_cast<std::size_t>(t)].name);
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(1.0 / 120.0);
    std::uniform_real_distribution<double> dur(300, 7200);
    std::vector<int> demands{1, 1, 2, 4, 8};
    std::vector<double> freeAt(static_cast<std::size_t>(run->totalGpus), 0.0);
    double t = 0;
    for (int j = 0; j < jobs; ++j) {
        t += gap(rng);
        sim::JobRecord rec;
        rec.id = "j" + std::to_string(j);
        rec.model = j % 3 == 0 ? "gpt2-124m" : (j % 3 == 1 ? "bert-large" : "gpt2-1.5b");
        rec.user = "u" + std::to_string(j % 5);
        rec.arrivalS = t;
        const int demand = std::min(demands[static_cast<std::size_t>(rng() % demands.size())], run->totalGpus);
        std::vector<int> order(freeAt.size());
        for (std::size_t g = 0; g < order.size(); ++g)
            order[g] = static_cast<int>(g);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return freeAt[static_cast<std::size_t>(a)] < freeAt[static_cast<std::size_t>(b)];
        });
        double start = t;
        for (int k = 0; k < demand; ++k)
            start = std::max(start, freeAt[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
        const double d = dur(rng);
        for (int k = 0; k < demand; ++k) {
            const int g = order[static_cast<std::size_t>(k)];
            run->intervals.push_back({j, g, start, start + d});
            freeAt[static_cast<std::size_t>(g)] = start + d;
        }
        rec.startS = start;
        rec.endS = start + d;
        rec.gpus = demand;
        rec.idealS = d;
        rec.gpuSeconds = d * demand;
        rec.costUsd = rec.gpuSeconds / 3600.0 * 1.5;
        run->jobs.push_back(rec);
        run->makespanS = std::max(run->makespanS, rec.endS);
    }
    // Utilisation from the intervals: +1 at start, -1 at end, swept in time order.
    std::vector<std::pair<double, int>> events;
    for (const auto& i : run->intervals) {
        events.push_back({i.startS, 1});
        events.push_back({i.endS, -1});
    }
    std::sort(events.begin(), events.end());
    int busy = 0;
    for (const auto& [time, delta] : events) {
        busy += delta;
        if (!run->utilization.empty() && run->utilization.back().timeS == time)
            run->utilization.back().busyGpus = busy;
        else
            run->utilization.push_back({time, busy, {busy}});
    }
    for (auto& s : run->utilization)
        s.busyByType = std::vector<int>(run->gpuTypes.size(), 0), s.busyByType[0] = s.busyGpus;
    return run;
}

} // namespace orrery::gui::test

#include "serve/request_simulator.h"

#include "serve/batched_simulator.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace orrery::serve {

namespace {

/** Finish times of a group's accepted requests, oldest first; popped as the clock passes them. */
struct FinishQueue
{
    std::vector<double> times;
    std::size_t head = 0;
    std::size_t length(double now)
    {
        while (head < times.size() && times[head] <= now)
            ++head;
        if (head == times.size()) {
            times.clear();
            head = 0;
        }
        return times.size() - head;
    }
};

} // namespace

std::vector<double> SimResult::groupUtilisation() const
{
    std::vector<double> u(groupBusyS.size(), 0.0);
    for (std::size_t g = 0; g < u.size(); ++g)
        if (spanS > 0 && groupStages[g] > 0)
            u[g] = groupBusyS[g] / (spanS * groupStages[g]);
    return u;
}

SimResult simulateRequests(const std::vector<SimGroup>& groups, const Workload& workload, const SimOptions& options)
{
    const int models = workload.models;
    if (static_cast<int>(options.sloS.size()) != models)
        throw Error("", "slo", fmt::format("expected {} SLOs (one per model), got {}", models, options.sloS.size()));
    std::vector<std::vector<HostSlot>> hosts(static_cast<std::size_t>(models));
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const SimGroup& group = groups[g];
        if (group.stages < 1)
            throw Error("", fmt::format("groups[{}].stages", g), "expected at least one stage");
        for (std::size_t k = 0; k < group.models.size(); ++k) {
            const StageTimes& t = group.models[k];
            const std::string path = fmt::format("groups[{}].models[{}]", g, k);
            if (t.model < 0 || t.model >= models)
                throw Error("", path + ".model", fmt::format("model {} outside 0..{}", t.model, models - 1));
            if (static_cast<int>(t.stageS.size()) != group.stages ||
                static_cast<int>(t.commS.size()) != group.stages - 1)
                throw Error("", path,
                            fmt::format("expected {} stage times and {} transfers", group.stages, group.stages - 1));
            hosts[static_cast<std::size_t>(t.model)].push_back({static_cast<int>(g), static_cast<int>(k)});
        }
    }

    SimResult r;
    r.requests = static_cast<long long>(workload.requests.size());
    r.requestsPerModel.assign(static_cast<std::size_t>(models), 0);
    r.servedPerModel.assign(static_cast<std::size_t>(models), 0);
    r.groupBusyS.assign(groups.size(), 0.0);
    for (const SimGroup& g : groups)
        r.groupStages.push_back(g.stages);
    if (options.recordLatencies) {
        r.latencyS.assign(workload.requests.size(), std::numeric_limits<double>::quiet_NaN());
        r.groupOf.assign(workload.requests.size(), -1);
    }
    if (options.maxBatch > 1) {
        for (std::size_t i = 0; i < workload.requests.size(); ++i)
            if (workload.requests[i].model < 0 || workload.requests[i].model >= models)
                throw Error("", fmt::format("requests[{}].model", i),
                            fmt::format("model {} outside 0..{}", workload.requests[i].model, models - 1));
        simulateBatched(groups, workload, options, hosts, r);
        return r;
    }
    std::vector<FinishQueue> queues(groups.size());
    std::vector<std::vector<double>> stageFree(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g)
        stageFree[g].assign(static_cast<std::size_t>(groups[g].stages), -std::numeric_limits<double>::infinity());
    std::vector<double> starts, ends;
    double lastFinish = 0;

    for (std::size_t i = 0; i < workload.requests.size(); ++i) {
        const Request& req = workload.requests[i];
        if (req.model < 0 || req.model >= models)
            throw Error("", fmt::format("requests[{}].model", i),
                        fmt::format("model {} outside 0..{}", req.model, models - 1));
        ++r.requestsPerModel[static_cast<std::size_t>(req.model)];
        const auto& candidates = hosts[static_cast<std::size_t>(req.model)];
        if (candidates.empty()) {
            ++r.rejected;
            ++r.unplaced;
            continue;
        }
        // Shortest queue; ties go to the first group (placement order).
        const HostSlot* best = nullptr;
        std::size_t bestLength = std::numeric_limits<std::size_t>::max();
        for (const HostSlot& c : candidates) {
            const std::size_t length = queues[static_cast<std::size_t>(c.group)].length(req.arrivalS);
            if (length < bestLength) {
                bestLength = length;
                best = &c;
            }
        }
        const std::size_t g = static_cast<std::size_t>(best->group);
        const StageTimes& t = groups[g].models[static_cast<std::size_t>(best->slot)];
        std::vector<double>& free = stageFree[g];
        starts.resize(free.size());
        ends.resize(free.size());
        double ready = req.arrivalS;
        for (std::size_t s = 0; s < free.size(); ++s) {
            starts[s] = std::max(ready, free[s]);
            ends[s] = starts[s] + t.stageS[s];
            ready = ends[s] + (s + 1 < free.size() ? t.commS[s] : 0.0);
        }
        const double finish = ends.back();
        if (finish - req.arrivalS > options.sloS[static_cast<std::size_t>(req.model)] * (1 + 1e-12)) {
            ++r.rejected;
            continue;
        }
        for (std::size_t s = 0; s < free.size(); ++s) {
            if (options.recordStages)
                r.stageIntervals.push_back(
                    {static_cast<int>(i), static_cast<int>(g), static_cast<int>(s), starts[s], ends[s]});
            free[s] = ends[s];
            r.groupBusyS[g] += t.stageS[s];
        }
        queues[g].times.push_back(finish);
        ++r.served;
        r.servedLatencySumS += finish - req.arrivalS;
        ++r.servedPerModel[static_cast<std::size_t>(req.model)];
        lastFinish = std::max(lastFinish, finish);
        if (options.recordLatencies) {
            r.latencyS[i] = finish - req.arrivalS;
            r.groupOf[i] = static_cast<int>(g);
        }
    }
    const double first = workload.requests.empty() ? 0.0 : workload.requests.front().arrivalS;
    r.spanS = std::max(workload.durationS, lastFinish - first);
    return r;
}

} // namespace orrery::serve

#include "serve/batched_simulator.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace orrery::serve {

namespace {

constexpr double kSloSlack = 1 + 1e-12; // the main runtime's tolerance on a finish exactly at the deadline

class BatchedRun
{
public:
    BatchedRun(const std::vector<SimGroup>& groups, const Workload& workload, const SimOptions& options,
               const std::vector<std::vector<HostSlot>>& hosts, SimResult& r)
        : m_groups(groups), m_workload(workload), m_options(options), m_hosts(hosts), m_r(r),
          m_queues(static_cast<std::size_t>(workload.models)), m_pending(groups.size(), 0)
    {
        for (const SimGroup& g : groups)
            m_free.emplace_back(static_cast<std::size_t>(g.stages), -std::numeric_limits<double>::infinity());
    }

    void run()
    {
        std::size_t next = 0;
        const std::size_t n = m_workload.requests.size();
        for (;;) {
            const double arrival =
                next < n ? m_workload.requests[next].arrivalS : std::numeric_limits<double>::infinity();
            // The group with waiting work that frees first; at a tie with an arrival the queue goes first (its
            // requests came earlier).
            int freeing = -1;
            for (std::size_t g = 0; g < m_groups.size(); ++g)
                if (m_pending[g] > 0 && (freeing < 0 || m_free[g][0] < m_free[static_cast<std::size_t>(freeing)][0]))
                    freeing = static_cast<int>(g);
            if (freeing >= 0 && m_free[static_cast<std::size_t>(freeing)][0] <= arrival) {
                dispatch(static_cast<std::size_t>(freeing));
                continue;
            }
            if (next == n)
                break;
            arrive(next++);
        }
        const double first = m_workload.requests.empty() ? 0.0 : m_workload.requests.front().arrivalS;
        m_r.spanS = std::max(m_workload.durationS, m_lastFinish - first);
    }

private:
    const StageTimes& times(const HostSlot& h) const
    {
        return m_groups[static_cast<std::size_t>(h.group)].models[static_cast<std::size_t>(h.slot)];
    }
    static double scale(const StageTimes& t, int batch) { return 1 + t.batchSlope * (batch - 1); }

    /** When a batch of `batch` started on group g at `start` finishes; the stage times go to `ends`. */
    double finish(std::size_t g, const StageTimes& t, int batch, double start,
                  std::vector<double>* ends = nullptr) const
    {
        const std::vector<double>& free = m_free[g];
        const double k = scale(t, batch);
        double ready = start;
        double end = start;
        for (std::size_t s = 0; s < free.size(); ++s) {
            end = std::max(ready, free[s]) + t.stageS[s] * k;
            if (ends)
                (*ends)[s] = end;
            ready = end + (s + 1 < free.size() ? t.commS[s] : 0.0);
        }
        return end;
    }

    double deadline(std::size_t request) const
    {
        const Request& q = m_workload.requests[request];
        return q.arrivalS + m_options.sloS[static_cast<std::size_t>(q.model)] * kSloSlack;
    }

    /** Runs `batch` requests (in arrival order) of the model in slot h on its group from `start`. */
    void execute(const HostSlot& h, const std::vector<std::size_t>& batch, double start)
    {
        const std::size_t g = static_cast<std::size_t>(h.group);
        const StageTimes& t = times(h);
        const int b = static_cast<int>(batch.size());
        std::vector<double> ends(m_free[g].size());
        const double done = finish(g, t, b, start, &ends);
        for (std::size_t s = 0; s < ends.size(); ++s) {
            const double duration = t.stageS[s] * scale(t, b);
            if (m_options.recordStages)
                for (std::size_t request : batch)
                    m_r.stageIntervals.push_back({static_cast<int>(request), static_cast<int>(g), static_cast<int>(s),
                                                  ends[s] - duration, ends[s]});
            m_free[g][s] = ends[s];
            m_r.groupBusyS[g] += duration;
        }
        m_lastFinish = std::max(m_lastFinish, done);
        for (std::size_t request : batch) {
            const Request& q = m_workload.requests[request];
            ++m_r.served;
            ++m_r.servedPerModel[static_cast<std::size_t>(q.model)];
            m_r.servedLatencySumS += done - q.arrivalS;
            if (m_options.recordLatencies) {
                m_r.latencyS[request] = done - q.arrivalS;
                m_r.groupOf[request] = static_cast<int>(g);
            }
        }
    }

    void arrive(std::size_t i)
    {
        const Request& q = m_workload.requests[i];
        const auto& hosts = m_hosts[static_cast<std::size_t>(q.model)];
        ++m_r.requestsPerModel[static_cast<std::size_t>(q.model)];
        if (hosts.empty()) {
            ++m_r.rejected;
            ++m_r.unplaced;
            return;
        }
        // A group whose first stage is free takes it at once (the one finishing first; ties to the first listed)
        // and, like the main runtime's group, rejects it when even that is too late.
        const HostSlot* now = nullptr;
        double nowFinish = std::numeric_limits<double>::infinity();
        bool reachable = false; // when all are busy: some group could still finish it in time once free
        for (const HostSlot& h : hosts) {
            const std::size_t g = static_cast<std::size_t>(h.group);
            const double f = finish(g, times(h), 1, std::max(q.arrivalS, m_free[g][0]));
            if (m_free[g][0] <= q.arrivalS && f < nowFinish) {
                nowFinish = f;
                now = &h;
            }
            reachable = reachable || f <= deadline(i);
        }
        if (now) {
            if (nowFinish <= deadline(i))
                execute(*now, {i}, q.arrivalS);
            else
                ++m_r.rejected;
            return;
        }
        if (!reachable) { // rejected up front: no group could finish it in time even alone once free
            ++m_r.rejected;
            return;
        }
        m_queues[static_cast<std::size_t>(q.model)].push_back(i);
        for (const HostSlot& h : hosts)
            ++m_pending[static_cast<std::size_t>(h.group)];
    }

    void popFront(int model)
    {
        m_queues[static_cast<std::size_t>(model)].pop_front();
        for (const HostSlot& h : m_hosts[static_cast<std::size_t>(model)])
            --m_pending[static_cast<std::size_t>(h.group)];
    }

    /** Group g frees up with requests waiting for its models. */
    void dispatch(std::size_t g)
    {
        // Every waiting request arrived while all its model's groups were busy, so this is after its arrival.
        const double start = m_free[g][0];
        int chosen = -1; // slot in the group
        double oldest = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < m_groups[g].models.size(); ++k) {
            const StageTimes& t = m_groups[g].models[k];
            auto& queue = m_queues[static_cast<std::size_t>(t.model)];
            // [CHOICE] A waiting request that this group, the first of its hosts to free, cannot finish in time
            // even alone is rejected now, as the main runtime's chosen group rejects one.
            while (!queue.empty() && finish(g, t, 1, start) > deadline(queue.front())) {
                ++m_r.rejected;
                popFront(t.model);
            }
            // [CHOICE] The model whose oldest request has waited longest (FCFS across models).
            if (!queue.empty() && m_workload.requests[queue.front()].arrivalS < oldest) {
                oldest = m_workload.requests[queue.front()].arrivalS;
                chosen = static_cast<int>(k);
            }
        }
        if (chosen < 0)
            return;
        const HostSlot slot{static_cast<int>(g), chosen};
        const StageTimes& t = times(slot);
        auto& queue = m_queues[static_cast<std::size_t>(t.model)];
        // The oldest request has the earliest deadline (one SLO per model), so it bounds the batch.
        int b = 1;
        const int cap = std::min<int>(m_options.maxBatch, static_cast<int>(queue.size()));
        while (b < cap && finish(g, t, b + 1, start) <= deadline(queue.front()))
            ++b;
        const std::vector<std::size_t> batch(queue.begin(), queue.begin() + b);
        for (int k = 0; k < b; ++k)
            popFront(t.model);
        execute(slot, batch, start);
    }

    const std::vector<SimGroup>& m_groups;
    const Workload& m_workload;
    const SimOptions& m_options;
    const std::vector<std::vector<HostSlot>>& m_hosts;
    SimResult& m_r;
    std::vector<std::deque<std::size_t>> m_queues; // per model, request indices in arrival order
    std::vector<long long> m_pending;              // per group, requests waiting for one of its models
    std::vector<std::vector<double>> m_free;       // per group and stage, when it is next free
    double m_lastFinish = 0;
};

} // namespace

void simulateBatched(const std::vector<SimGroup>& groups, const Workload& workload, const SimOptions& options,
                     const std::vector<std::vector<HostSlot>>& hosts, SimResult& r)
{
    BatchedRun(groups, workload, options, hosts, r).run();
}

} // namespace orrery::serve

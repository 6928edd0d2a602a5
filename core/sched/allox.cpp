#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace orrery::sched {

namespace {

/**
 * Min-cost flow by successive shortest paths (Dijkstra on reduced costs), one unit per augmentation:
 * enough for AlloX's assignment (a few hundred jobs, a few dozen slot classes), exact, and deterministic.
 */
class MinCostFlow
{
public:
    explicit MinCostFlow(int nodes) : m_adj(static_cast<std::size_t>(nodes)) {}
    int addEdge(int from, int to, int capacity, double cost)
    {
        m_edges.push_back({to, capacity, cost});
        m_adj[static_cast<std::size_t>(from)].push_back(static_cast<int>(m_edges.size()) - 1);
        m_edges.push_back({from, 0, -cost});
        m_adj[static_cast<std::size_t>(to)].push_back(static_cast<int>(m_edges.size()) - 1);
        return static_cast<int>(m_edges.size()) - 2;
    }
    /** Sends as much flow as possible from s to t at least cost. */
    void run(int s, int t)
    {
        const auto n = m_adj.size();
        std::vector<double> potential(n, 0.0), dist(n);
        std::vector<int> via(n);
        constexpr double inf = std::numeric_limits<double>::infinity();
        using Item = std::pair<double, int>;
        for (;;) {
            std::fill(dist.begin(), dist.end(), inf);
            std::fill(via.begin(), via.end(), -1);
            dist[static_cast<std::size_t>(s)] = 0;
            std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
            heap.push({0.0, s});
            while (!heap.empty()) {
                const auto [d, u] = heap.top();
                heap.pop();
                if (d > dist[static_cast<std::size_t>(u)])
                    continue;
                for (int e : m_adj[static_cast<std::size_t>(u)]) {
                    const Edge& edge = m_edges[static_cast<std::size_t>(e)];
                    if (edge.capacity <= 0)
                        continue;
                    const double reduced = edge.cost + potential[static_cast<std::size_t>(u)] -
                                           potential[static_cast<std::size_t>(edge.to)];
                    const double nd = d + std::max(0.0, reduced);
                    if (nd < dist[static_cast<std::size_t>(edge.to)]) {
                        dist[static_cast<std::size_t>(edge.to)] = nd;
                        via[static_cast<std::size_t>(edge.to)] = e;
                        heap.push({nd, edge.to});
                    }
                }
            }
            if (via[static_cast<std::size_t>(t)] < 0)
                return;
            for (std::size_t v = 0; v < n; ++v)
                if (dist[v] < inf)
                    potential[v] += dist[v];
            for (int v = t; v != s;) {
                const int e = via[static_cast<std::size_t>(v)];
                m_edges[static_cast<std::size_t>(e)].capacity -= 1;
                m_edges[static_cast<std::size_t>(e ^ 1)].capacity += 1;
                v = m_edges[static_cast<std::size_t>(e ^ 1)].to;
            }
        }
    }
    bool used(int edge) const { return m_edges[static_cast<std::size_t>(edge)].capacity == 0; }

private:
    struct Edge
    {
        int to;
        int capacity;
        double cost;
    };
    std::vector<Edge> m_edges;
    std::vector<std::vector<int>> m_adj;
};

} // namespace

std::vector<int> alloxFirstJobs(const std::vector<double>& seconds, int m, int types, const std::vector<int>& freeGpus)
{
    const auto T = static_cast<std::size_t>(types);
    std::vector<int> first(static_cast<std::size_t>(m), -1);
    int n = 0;
    for (int f : freeGpus)
        n += f;
    if (m == 0 || n == 0)
        return first;
    // Nodes: source, m jobs, then per type its positions 0..K_t-1 (k-th from last), sink. K_t = ceil(m / free_t):
    // at the optimum positions fill evenly over a type's GPUs, so no type needs more.
    std::vector<int> positions(T, 0), firstSlot(T, 0);
    int nodes = 1 + m;
    for (std::size_t t = 0; t < T; ++t) {
        positions[t] = freeGpus[t] > 0 ? (m + freeGpus[t] - 1) / freeGpus[t] : 0;
        firstSlot[t] = nodes;
        nodes += positions[t];
    }
    const int sink = nodes++;
    MinCostFlow flow(nodes);
    struct Arc
    {
        int job, type, position, edge;
        double seconds;
    };
    std::vector<Arc> arcs;
    for (int i = 0; i < m; ++i) {
        flow.addEdge(0, 1 + i, 1, 0);
        for (std::size_t t = 0; t < T; ++t) {
            const double s = seconds[static_cast<std::size_t>(i) * T + t];
            if (s <= 0)
                continue;
            for (int k = 0; k < positions[t]; ++k)
                arcs.push_back({i, static_cast<int>(t), k, flow.addEdge(1 + i, firstSlot[t] + k, 1, (k + 1) * s), s});
        }
    }
    for (std::size_t t = 0; t < T; ++t)
        for (int k = 0; k < positions[t]; ++k)
            flow.addEdge(firstSlot[t] + k, sink, freeGpus[t], 0);
    flow.run(0, sink);

    // Per type and position, the jobs placed there: c_k of them, non-increasing in k at the optimum, so
    // c_k - c_{k+1} GPUs have position k as the first to run; the shortest jobs of position k take those.
    for (std::size_t t = 0; t < T; ++t) {
        const auto P = static_cast<std::size_t>(positions[t]);
        std::vector<std::vector<std::pair<double, int>>> at(P + 1);
        for (const auto& arc : arcs)
            if (static_cast<std::size_t>(arc.type) == t && flow.used(arc.edge))
                at[static_cast<std::size_t>(arc.position)].push_back({arc.seconds, arc.job});
        for (std::size_t k = 0; k < P; ++k) {
            auto& here = at[k];
            std::sort(here.begin(), here.end());
            const std::size_t count = here.size() - std::min(here.size(), at[k + 1].size());
            for (std::size_t q = 0; q < count; ++q)
                first[static_cast<std::size_t>(here[q].second)] = static_cast<int>(t);
        }
    }
    return first;
}

namespace {

/**
 * Gavel's AlloX_Perf (policies/allox.py; Le et al., EuroSys'20): jobs not yet placed are matched to GPUs by
 * a min-cost assignment that minimises the sum of their completion times: putting job i k-th from last on a
 * GPU of type t costs k x (steps left / rate(i, t)) (Gavel's matrix [q, 2q, 3q, ...]; its added waiting
 * time is the same for every column of a row, so it never changes the assignment). The job that runs first on
 * each GPU (the one k-th from last with the largest k there) gets x = 1 on that type; a job that got x = 1
 * keeps it until it finishes, and its GPUs are left out of later matchings (AlloX does not preempt).
 *
 * GPUs of one type are interchangeable, so Orrery solves the same assignment as a min-cost flow from jobs to
 * (type, position) slots of capacity "free GPUs of that type" (exact; Gavel runs the Hungarian method on the
 * expanded matrix). Which of the jobs sharing a position on a type sit on GPUs where that position is the first
 * to run is a tie in cost; Orrery takes the shortest first (Gavel: whatever scipy's solver returns). Gavel's
 * AlloX asserts single-GPU jobs; Orrery lets a job of d GPUs take d GPUs of the type's free count and match
 * only types that can hold it. `alpha` (Gavel's allox_alpha=) keeps only the max(alpha x m, free GPUs) oldest
 * unplaced jobs in the matching.
 */
class AlloX : public MaxMinRoundPolicy
{
public:
    explicit AlloX(double alpha)
        : MaxMinRoundPolicy(false, [this](const sim::View& view, const std::vector<int>& jobs,
                                          std::vector<double>& x) { allocate(view, jobs, x); }),
          m_alpha(alpha)
    {}
    std::string name() const override { return "allox"; }

private:
    void allocate(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
    {
        const auto& w = view.workload();
        const int nt = view.typeCount();
        const auto T = static_cast<std::size_t>(nt);
        std::vector<int> freeGpus(T);
        for (int t = 0; t < nt; ++t)
            freeGpus[static_cast<std::size_t>(t)] = view.totalGpus(t);
        std::vector<int> unplaced;
        std::unordered_map<int, std::vector<double>> next;
        for (int j : jobs) {
            const auto it = m_previous.find(j);
            double total = 0;
            if (it != m_previous.end())
                total = std::accumulate(it->second.begin(), it->second.end(), 0.0);
            if (total == 1.0) {
                next[j] = it->second;
                for (std::size_t t = 0; t < T; ++t)
                    if (it->second[t] == 1.0)
                        freeGpus[t] = std::max(0, freeGpus[t] - w.demandOn(j, static_cast<int>(t)));
            } else {
                unplaced.push_back(j);
                next[j] = std::vector<double>(T, 0.0);
            }
        }
        // Oldest first (Gavel sorts by time since arrival), then at most max(alpha m, free GPUs) of them.
        std::stable_sort(unplaced.begin(), unplaced.end(),
                         [&](int a, int b) { return view.job(a).arrivalS < view.job(b).arrivalS; });
        const int n = std::accumulate(freeGpus.begin(), freeGpus.end(), 0);
        const auto keep =
            static_cast<std::size_t>(std::max(static_cast<int>(m_alpha * static_cast<double>(unplaced.size())), n));
        if (unplaced.size() > keep)
            unplaced.resize(keep);

        std::vector<double> seconds(unplaced.size() * T, 0.0);
        for (std::size_t i = 0; i < unplaced.size(); ++i) {
            const int j = unplaced[i];
            for (int t = 0; t < nt; ++t)
                if (w.allowed(j, t) && w.demandOn(j, t) <= view.totalGpus(t))
                    seconds[i * T + static_cast<std::size_t>(t)] = view.remainingWork(j) / w.rate(j, t);
        }
        const auto first = alloxFirstJobs(seconds, static_cast<int>(unplaced.size()), nt, freeGpus);
        for (std::size_t i = 0; i < unplaced.size(); ++i)
            if (first[i] >= 0)
                next[unplaced[i]][static_cast<std::size_t>(first[i])] = 1.0;
        for (std::size_t k = 0; k < jobs.size(); ++k)
            std::copy(next[jobs[k]].begin(), next[jobs[k]].end(), x.begin() + static_cast<std::ptrdiff_t>(k * T));
        m_previous = std::move(next);
    }

    double m_alpha;
    std::unordered_map<int, std::vector<double>> m_previous;
};

} // namespace

std::vector<ParamSpec> alloxParams()
{
    return {{"alpha",
             ParamType::Number,
             "1",
             0,
             1,
             {},
             1,
             16,
             false,
             "share of the waiting jobs (oldest first) matched at each recomputation, at least as many as free GPUs "
             "(Gavel's allox_alpha)"}};
}

std::unique_ptr<Policy> makeAllox(const PolicyParams& params)
{
    return std::make_unique<AlloX>(params.number("alpha"));
}

} // namespace orrery::sched

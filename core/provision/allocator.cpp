#include "provision/allocator.h"

#include "provision/search_state.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

namespace orrery::provision {

std::vector<int> powerOfTwoSizes(int x)
{
    std::vector<int> out;
    for (int d = 1; d <= x && d > 0; d *= 2)
        out.push_back(d);
    return out;
}

int totalQuota(const std::vector<PoolGpu>& pool)
{
    int x = 0;
    for (const auto& g : pool)
        x += std::max(0, g.quota);
    return x;
}

int stageQuota(const PoolGpu& gpu, int dp)
{
    return dp > 0 ? std::max(0, gpu.quota) / dp : 0;
}

namespace {

/** Fewest stages that hold all layers on type t, filling each to its position-dependent limit; 0 if none. */
int stagesToHold(const PipelineModel& model, int type, int kMax)
{
    for (int k = 1; k <= kMax; ++k) {
        long long held = 0;
        for (int s = 0; s < k; ++s) {
            const int lm = model.maxLayers(type, s, k);
            if (lm < 1) {
                held = -1;
                break;
            }
            held += lm;
        }
        if (held >= model.layers())
            return k;
    }
    return 0;
}

int maxStages(const PipelineModel& model)
{
    int stages = 0;
    for (const auto& g : model.pool())
        stages += stageQuota(g, model.dp());
    return std::min(stages, model.layers());
}

} // namespace

std::pair<int, int> pipelineRange(const PipelineModel& model, bool boundaryPruning)
{
    const int kMax = maxStages(model);
    if (!boundaryPruning)
        return {1, kMax};
    int largest = -1, smallest = -1;
    for (int t = 0; t < model.types(); ++t) {
        if (model.pool()[static_cast<std::size_t>(t)].quota <= 0)
            continue;
        if (largest < 0 || model.capacityBytes(t) > model.capacityBytes(largest))
            largest = t;
        if (smallest < 0 || model.capacityBytes(t) < model.capacityBytes(smallest))
            smallest = t;
    }
    if (largest < 0)
        return {1, 0};
    const int kLo = stagesToHold(model, largest, model.layers());
    if (kLo == 0)
        return {1, 0};
    const int onSmallest = stagesToHold(model, smallest, model.layers());
    const int kHi = std::min(onSmallest == 0 ? kMax : onSmallest, kMax);
    return {kLo, kHi};
}

namespace {

struct HeapEntry
{
    double priority;
    long long seq; // insertion order breaks ties deterministically
    int node;
    bool operator>(const HeapEntry& o) const { return priority != o.priority ? priority > o.priority : seq > o.seq; }
};

/** One (d, k) cost tree. Types are branched in `order` (cheapest compute first). */
class CostTree
{
public:
    CostTree(const PipelineModel& model, int k, const ProvisionOptions& options, const Placer& placer,
             SearchState& state)
        : m_model(model), m_k(k), m_options(options), m_placer(placer), m_state(state), m_n(model.types())
    {
        const auto& pool = model.pool();
        for (int t = 0; t < m_n; ++t)
            if (pool[static_cast<std::size_t>(t)].quota > 0 && model.rate(t) > 0)
                m_order.push_back(t);
        // [CHOICE] Branch on cheap compute first (c_t / r_t ascending) so good incumbents appear early.
        std::stable_sort(m_order.begin(), m_order.end(),
                         [&](int a, int b) { return model.price(a) / model.rate(a) < model.price(b) / model.rate(b); });
        for (int t : m_order) {
            m_quota.push_back(stageQuota(pool[static_cast<std::size_t>(t)], model.dp()));
            m_rate.push_back(model.rate(t));
            m_price.push_back(model.price(t));
            m_mem.push_back(model.capacityBytes(t));
            m_beta.push_back(model.fragmentedLayers(t, options.fragmentation));
        }
        m_memLower = lowerMemory();
        const int n = static_cast<int>(m_order.size());
        m_quotaAfter.assign(static_cast<std::size_t>(n), 0);
        for (int j = n - 2; j >= 0; --j)
            m_quotaAfter[static_cast<std::size_t>(j)] =
                m_quotaAfter[static_cast<std::size_t>(j) + 1] + m_quota[static_cast<std::size_t>(j) + 1];
        for (int j = 0; j < n; ++j) {
            m_byRate.push_back(j);
            m_byMem.push_back(j);
        }
        std::stable_sort(m_byRate.begin(), m_byRate.end(), [&](int a, int b) {
            return m_rate[static_cast<std::size_t>(a)] > m_rate[static_cast<std::size_t>(b)];
        });
        std::stable_sort(m_byMem.begin(), m_byMem.end(), [&](int a, int b) {
            return m_mem[static_cast<std::size_t>(a)] > m_mem[static_cast<std::size_t>(b)];
        });
    }

    void run()
    {
        const int n = static_cast<int>(m_order.size());
        pushNode(-1, 0, 0, 0, 0);
        while (!m_heap.empty()) {
            const HeapEntry top = m_heap.top();
            m_heap.pop();
            auto& stats = m_state.stats();
            ++stats.expanded;
            if ((stats.expanded & 255) == 0)
                m_state.checkCancel();
            const Node node = m_nodes[static_cast<std::size_t>(top.node)];
            if (node.s < m_k && node.i >= n)
                continue;
            // [CHOICE] A complete plan is a tree node too: CP and TCP are checked before the
            // (costly) stage placement, as the prototype does when it pushes.
            if (node.s > 0) {
                if (m_options.timeCapacityPruning && violatesTimeOrCapacity(node)) {
                    ++stats.prunedTcp;
                    continue;
                }
                if (m_options.costPruning && lowerCost(node) > m_state.bestCost()) {
                    ++stats.prunedCp;
                    continue;
                }
            }
            if (node.s == m_k) {
                place(node);
                continue;
            }
            const int type = node.i;
            const int yMax = std::min(m_k - node.s, m_quota[static_cast<std::size_t>(type)]);
            // A child whose missing stages exceed what the later types' quotas can supply is a dead
            // end, not a plan: it is never pushed (this is not one of the paper's pruning rules).
            const int yMin = std::max(0, m_k - node.s - m_quotaAfter[static_cast<std::size_t>(type)]);
            for (int y = yMin; y <= yMax; ++y)
                pushNode(node.offset, type, y, node.s + y, node.i + 1);
        }
    }

private:
    struct Node
    {
        int offset; // into m_counts
        int s;      // stages so far
        int i;      // next type position to branch on
    };

    /** Appends a child of the node whose counts start at `parent` (-1: the root), with y stages of `type`. */
    void pushNode(int parent, int type, int y, int s, int i)
    {
        const std::size_t n = m_order.size();
        const auto offset = m_counts.size();
        m_counts.resize(offset + n, 0);
        if (parent >= 0)
            std::copy_n(m_counts.begin() + parent, n, m_counts.begin() + static_cast<long>(offset));
        m_counts[offset + static_cast<std::size_t>(type)] = y;
        const double prio = parent < 0 ? 0.0 : upperCost(m_counts.data() + offset, s);
        m_nodes.push_back({static_cast<int>(offset), s, i});
        m_heap.push({prio, m_seq++, static_cast<int>(m_nodes.size() - 1)});
    }

    /** Eq. (4) with Eqs. (5)-(7): fill the missing stages homogeneously with each type, keep the cheapest. */
    double upperCost(const int* counts, int s) const
    {
        const std::size_t n = m_order.size();
        double sumRate = 0, price = 0;
        for (std::size_t j = 0; j < n; ++j) {
            sumRate += counts[j] * m_rate[j];
            price += counts[j] * m_price[j];
        }
        const int missing = m_k - s;
        double best = INFINITY;
        for (std::size_t j = 0; j < n; ++j) {
            if (missing > 0 && m_quota[j] - counts[j] < missing)
                continue;
            const double t = m_model.lowerIterationS(sumRate + missing * m_rate[j], m_k, m_model.layers());
            best = std::min(best, trainingCost(t, price + missing * m_price[j]));
            if (missing == 0)
                break;
        }
        return best;
    }

    double trainingCost(double iterationS, double stagePricePerHour) const
    {
        return m_model.job().iterations * iterationS * m_model.dp() * stagePricePerHour / 3600.0;
    }

    /**
     * CP's c_lower. Paper: the layers beta-fragmented memory can host, at the partial plan's own
     * speed and price. Default: a valid bound. Any completion runs all L layers, and the estimator's
     * iteration is at least m * L * flops / (sum of rates) (the busiest stage alone); its price per
     * rate is at least the smaller of the partial plan's and the cheapest reachable type's (types
     * are branched by ascending c/r), by the mediant inequality.
     */
    double lowerCost(const Node& node) const
    {
        if (m_options.validBounds) {
            double sumRate = 0, price = 0;
            for (std::size_t j = 0; j < m_order.size(); ++j) {
                const int c = m_counts[static_cast<std::size_t>(node.offset) + j];
                sumRate += c * m_rate[j];
                price += c * m_price[j];
            }
            double pricePerRate = sumRate > 0 ? price / sumRate : INFINITY;
            if (node.s < m_k && node.i < static_cast<int>(m_order.size()))
                pricePerRate = std::min(pricePerRate, m_price[static_cast<std::size_t>(node.i)] /
                                                          m_rate[static_cast<std::size_t>(node.i)]);
            const double work = m_model.layers() * m_model.layerFlops() * m_model.microBatches();
            return m_model.job().iterations * m_model.dp() * work * pricePerRate / 3600.0;
        }
        double sumRate = 0, price = 0;
        long long hosted = 0;
        for (std::size_t j = 0; j < m_order.size(); ++j) {
            const int c = m_counts[static_cast<std::size_t>(node.offset) + j];
            sumRate += c * m_rate[j];
            price += c * m_price[j];
            hosted += static_cast<long long>(c) * m_beta[j];
        }
        const double layers = static_cast<double>(std::min<long long>(hosted, m_model.layers()));
        return trainingCost(m_model.lowerIterationS(sumRate, m_k, layers), price);
    }

    /**
     * TCP: the fastest completion (remaining stages on the highest-r types still
     * reachable, within quota) misses the SLO, or even the largest-memory
     * completion cannot hold one pipeline replica.
     */
    bool violatesTimeOrCapacity(const Node& node) const
    {
        const int n = static_cast<int>(m_order.size());
        double sumRate = 0, mem = 0;
        for (int j = 0; j < n; ++j) {
            const int c = m_counts[static_cast<std::size_t>(node.offset + j)];
            sumRate += c * m_rate[static_cast<std::size_t>(j)];
            mem += c * m_mem[static_cast<std::size_t>(j)];
        }
        const int missing = m_k - node.s;
        // Greedy completion by decreasing value, within the quota of the types not yet branched on.
        auto fill = [&](const std::vector<int>& byValue, const std::vector<double>& value) {
            double total = 0;
            int need = missing;
            for (int j : byValue) {
                if (need == 0)
                    break;
                if (j < node.i)
                    continue;
                const int take = std::min(need, m_quota[static_cast<std::size_t>(j)]);
                total += take * value[static_cast<std::size_t>(j)];
                need -= take;
            }
            return need > 0 ? -1.0 : total;
        };
        const double fastRate = fill(m_byRate, m_rate);
        if (fastRate < 0)
            return true; // the reachable types cannot complete the plan
        const double tLower =
            m_options.validBounds
                ? m_model.layers() * m_model.layerFlops() * m_model.microBatches() / (sumRate + fastRate)
                : m_model.lowerIterationS(sumRate + fastRate, m_k, m_model.layers());
        if (tLower > m_state.iterationSloS())
            return true;
        return mem + fill(m_byMem, m_mem) < m_memLower;
    }

    /** m_lower: memory of one replica of an even homogeneous k-stage split (least over the types). */
    double lowerMemory() const
    {
        const int L = m_model.layers();
        double best = INFINITY;
        if (m_options.validBounds) {
            // Every stage keeps at least one micro-batch in flight and holds its fixed parts once.
            for (int t : m_order) {
                const auto& p = m_model.profile(t);
                best = std::min(best, L * (p.layer.staticBytes + p.layer.activationBytes) + p.embedding.staticBytes +
                                          p.head.staticBytes + m_k * p.reservedBytes);
            }
            return best;
        }
        for (int t : m_order) {
            double sum = 0;
            for (int s = 0; s < m_k; ++s)
                sum += m_model.stageMemoryBytes(t, L / m_k + (s >= m_k - L % m_k ? 1 : 0), s, m_k);
            best = std::min(best, sum);
        }
        return best;
    }

    void place(const Node& node)
    {
        std::vector<int> types;
        types.reserve(static_cast<std::size_t>(m_k));
        for (std::size_t j = 0; j < m_order.size(); ++j)
            for (int c = 0; c < m_counts[static_cast<std::size_t>(node.offset) + j]; ++c)
                types.push_back(m_order[j]);
        ++m_state.stats().placements;
        // Unless the scatter wants every plan, a placement only matters if it can beat the
        // incumbent's cost and meet the SLO.
        double cutoff = INFINITY;
        if (m_state.seekFastest) {
            const ProvisionPlan* fastest = m_state.fastest();
            cutoff = fastest ? fastest->iterationS * (1 + 1e-12) : INFINITY;
        } else if (!m_options.recordEvaluated) {
            double price = 0;
            for (int t : types)
                price += m_model.price(t);
            cutoff = m_state.iterationSloS() * (1 + 1e-12);
            if (m_state.hasFeasible() && price > 0)
                cutoff =
                    std::min(cutoff, m_state.bestCost() * 3600.0 / (m_model.job().iterations * m_model.dp() * price));
        }
        m_state.offer(m_placer(m_model, types, cutoff), m_model.dp());
    }

    const PipelineModel& m_model;
    int m_k;
    const ProvisionOptions& m_options;
    const Placer& m_placer;
    SearchState& m_state;
    int m_n;
    std::vector<int> m_order;
    std::vector<int> m_quota;
    std::vector<double> m_rate, m_price, m_mem;
    std::vector<int> m_beta;
    std::vector<int> m_byRate, m_byMem; // type positions by decreasing r_t and M(t)
    std::vector<int> m_quotaAfter;      // stages the types after position j can still supply
    double m_memLower = 0;
    std::vector<int> m_counts;
    std::vector<Node> m_nodes;
    std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> m_heap;
    long long m_seq = 0;
};

void search(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
            const ProvisionOptions& options, const Placer& placer, SearchState& state)
{
    const int x = totalQuota(pool);
    for (int d : powerOfTwoSizes(x)) {
        if (!PipelineModel::validDp(job, d))
            continue;
        state.checkCancel();
        const PipelineModel model(job, pool, source, d);
        const auto [kLo, kHi] = pipelineRange(model, options.boundaryPruning);
        if (options.boundaryPruning) {
            const auto [uLo, uHi] = pipelineRange(model, false);
            state.stats().prunedBp += std::max(0, uHi - uLo + 1) - std::max(0, kHi - kLo + 1);
        }
        for (int k = kLo; k <= kHi; ++k) {
            CostTree tree(model, k, options, placer, state);
            tree.run();
        }
    }
}

} // namespace

ProvisionResult allocate(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                         const ProvisionOptions& options, const Placer& placer, const std::atomic<bool>* cancel)
{
    SearchState state(job, pool, options, cancel);
    search(job, pool, source, options, placer, state);
    ProvisionResult result = state.finish();
    if (!result.hasPlan && job.sloS > 0) {
        // [CHOICE] Nothing met the SLO and TCP cut every branch: search again without the deadline
        // to report the fastest plan found, keeping the first search's counters.
        ProvisionJob relaxed = job;
        relaxed.sloS = 0;
        ProvisionOptions quiet = options;
        quiet.costPruning = false; // the fastest plan is wanted, not the cheapest
        SearchState second(relaxed, pool, quiet, cancel);
        second.seekFastest = true;
        search(relaxed, pool, source, quiet, placer, second);
        if (const ProvisionPlan* fastest = second.fastest()) {
            result.hasPlan = true;
            result.plan = *fastest;
        }
        ProvisionResult fallback = second.finish();
        result.relaxed = true;
        result.relaxedStats = fallback.stats;
        result.stats.wallS += fallback.stats.wallS;
        // The plans it placed (recorded when the caller asked for them) are judged against the real SLO:
        // a scatter of the first search alone would be empty, the chosen plan a lone star.
        const double iterationSloS = job.sloS / job.iterations;
        for (auto& e : fallback.evaluated) {
            e.meetsSlo = e.iterationS <= iterationSloS * (1 + 1e-12);
            result.evaluated.push_back(std::move(e));
        }
    }
    return result;
}

} // namespace orrery::provision

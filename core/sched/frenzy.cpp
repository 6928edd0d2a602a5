#include "estimate/marp_plans.h"
#include "sched/has_cluster.h"
#include "sched/has_index.h"
#include "sched/registry.h"

#include "io/error.h"

#include <fmt/format.h>

namespace orrery::sched {

namespace {

/**
 * Frenzy (Chang et al. 2024): MARP plans every serverless job (fewest GPUs first, per-GPU memory
 * from the paper's formula, checked against the simulator's itemised model: frenzyPolicyPlans) and
 * HAS places it (docs/models/frenzy.md). On every arrival and
 * completion the pending jobs are scanned in arrival order; each gets the first of its plans the
 * idle GPUs cover, placed best-fit. A job nothing fits keeps its place and later jobs may start
 * (backfilling). Fixed-request jobs (traces) are one plan: their GPU count, any memory.
 * Non-preemptive; a job keeps its plan to the end.
 */
class Frenzy : public Policy
{
public:
    Frenzy(std::string name, HasOptions options) : m_name(std::move(name)), m_options(options) {}

    std::string name() const override { return m_name; }

    void onArrival(const sim::View& view, int j) override
    {
        init(view);
        const auto i = static_cast<std::size_t>(j);
        const auto& w = view.workload();
        const auto& job = w.jobs()[i];
        if (job.kind == workload::JobKind::Serverless) {
            const workload::ModelSpec* model = w.source().model(job);
            if (!model)
                throw Error(fmt::format("policy \"{}\": no model for serverless job \"{}\"", name(), job.id));
            for (const estimate::MarpPlan& p : estimate::frenzyPolicyPlans(*model, job.config, w.cluster()))
                m_plans[i].push_back(p.demand);
            if (m_plans[i].empty())
                throw Error(fmt::format("policy \"{}\": job \"{}\" fits no GPU of the cluster (MARP_INFEASIBLE)",
                                        name(), job.id));
        } else {
            m_plans[i].push_back({view.job(j).demand, 0.0}); // a trace job states no memory
        }
        for (int t = 0; t < w.typeCount(); ++t)
            if (job.kind == workload::JobKind::Fixed && !w.allowed(j, t))
                m_restricted[i] = 1;
        m_queue.push_back(j);
    }

    void onCompletion(const sim::View& /*view*/, int j) override
    {
        auto& shares = m_shares[static_cast<std::size_t>(j)];
        for (const NodeShare& s : shares)
            m_index.release(s.node, s.gpus);
        shares.clear();
    }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        std::vector<int> waiting;
        waiting.reserve(m_queue.size());
        bool blocked = false;
        for (int j : m_queue) {
            if (blocked) {
                waiting.push_back(j);
                decision.explain(j, kBlocked);
                continue;
            }
            if (m_index.totalIdleGpus() == 0) {
                waiting.push_back(j);
                decision.explain(j, kNoFit);
                continue;
            }
            const auto i = static_cast<std::size_t>(j);
            auto placement = m_restricted[i] ? placeRestricted(view, j) : m_index.allocate(m_plans[i], m_options);
            if (!placement) {
                waiting.push_back(j);
                decision.explain(j, kNoFit);
                blocked = m_options.strictFcfs;
                continue;
            }
            decision.assign(j, gpusFor(view, placement->shares));
            m_shares[i] = std::move(placement->shares);
        }
        m_queue = std::move(waiting);
    }

private:
    static constexpr const char* kNoFit = "none of its plans fits the idle GPUs (HAS best-fit over MARP's plans)";
    static constexpr const char* kBlocked = "behind an earlier job that does not fit (strict FCFS)";

    void init(const sim::View& view)
    {
        if (m_ready)
            return;
        const auto& cluster = view.workload().cluster();
        std::vector<HasNode> nodes = hasNodes(cluster);
        for (HasNode& n : nodes)
            n.idleGpus = view.state().freeGpusOfNode(n.id);
        m_index = HasIndex(nodes);
        const auto n = static_cast<std::size_t>(view.jobCount());
        m_plans.resize(n);
        m_shares.resize(n);
        m_restricted.assign(n, 0);
        m_ready = true;
    }

    // A fixed job limited to some GPU types: HAS over the nodes of those types only.
    std::optional<HasPlacement> placeRestricted(const sim::View& view, int j)
    {
        const auto& w = view.workload();
        std::vector<HasNode> nodes = hasNodes(w.cluster());
        std::erase_if(nodes, [&](const HasNode& n) { return !w.allowed(j, w.typeOfNode(n.id)); });
        for (HasNode& n : nodes)
            n.idleGpus = m_index.idleGpus(n.id);
        auto placement = hasPlace(nodes, m_plans[static_cast<std::size_t>(j)], m_options);
        if (placement)
            for (const NodeShare& s : placement->shares)
                m_index.take(s.node, s.gpus);
        return placement;
    }

    static std::vector<int> gpusFor(const sim::View& view, const std::vector<NodeShare>& shares)
    {
        std::vector<int> gpus;
        for (const NodeShare& s : shares) {
            const auto& node = view.workload().cluster().nodes()[static_cast<std::size_t>(s.node)];
            int need = s.gpus;
            for (int g = node.firstGpu; g < node.firstGpu + node.gpuCount && need > 0; ++g)
                if (view.state().isFree(g)) {
                    gpus.push_back(g);
                    --need;
                }
        }
        return gpus;
    }

    std::string m_name;
    HasOptions m_options;
    bool m_ready = false;
    HasIndex m_index;
    std::vector<int> m_queue; // pending jobs in arrival order
    std::vector<std::vector<HasPlan>> m_plans;
    std::vector<std::vector<NodeShare>> m_shares;
    std::vector<char> m_restricted;
};

} // namespace

std::unique_ptr<Policy> makeFrenzy()
{
    return std::make_unique<Frenzy>("frenzy", HasOptions{});
}
std::unique_ptr<Policy> makeFrenzyExact()
{
    return std::make_unique<Frenzy>("frenzy_exact", HasOptions{SizeFilter::Exact, false});
}
std::unique_ptr<Policy> makeFrenzyStrict()
{
    return std::make_unique<Frenzy>("frenzy_strict", HasOptions{SizeFilter::AtLeast, true});
}

} // namespace orrery::sched

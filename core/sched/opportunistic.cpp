#include "estimate/marp_plans.h"
#include "sched/has.h"
#include "sched/registry.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>

namespace orrery::sched {

namespace {

/**
 * Opportunistic scheduling, Frenzy's baseline (spec A.6.1, after Lyra): first come, first served
 * with backfilling, each job greedily given idle GPUs of the most powerful types (peak FP16, then
 * memory, then NVLink), filling a node before moving on. The request is what a careful user would
 * ask for without a planner ("minSafe"): the fewest GPUs of a MARP layout that would fit even the
 * smallest GPU of the cluster (or, when nothing fits that one, the smallest GPU that can hold the
 * job at all). Fixed-request jobs ask for their GPU count. Never places a job where it would run
 * out of memory. Non-preemptive.
 */
class Opportunistic : public Policy
{
public:
    std::string name() const override { return "opportunistic"; }

    void onArrival(const sim::View& view, int j) override
    {
        const auto& w = view.workload();
        const auto i = static_cast<std::size_t>(j);
        if (m_requests.empty()) {
            m_requests.resize(static_cast<std::size_t>(view.jobCount()));
            for (int t = 0; t < w.typeCount(); ++t)
                m_capacities.push_back(estimate::marpCapacityGiB(w.type(t)));
            m_sortedCapacities = m_capacities;
            std::sort(m_sortedCapacities.begin(), m_sortedCapacities.end());
        }
        const auto& job = w.jobs()[i];
        Request& r = m_requests[i];
        if (job.kind == workload::JobKind::Serverless) {
            const workload::ModelSpec* model = w.source().model(job);
            if (!model)
                throw Error(fmt::format("policy \"{}\": no model for serverless job \"{}\"", name(), job.id));
            const auto plans = estimate::frenzyPolicyPlans(*model, job.config, w.cluster());
            for (double cap : m_sortedCapacities) {
                const auto it = std::find_if(plans.begin(), plans.end(), [cap](const estimate::MarpPlan& p) {
                    return gpuFits(cap, p.demand.requiredGiB);
                });
                if (it != plans.end()) {
                    r.plan = it->demand;
                    break;
                }
            }
            if (r.plan.gpus == 0)
                throw Error(fmt::format("policy \"{}\": job \"{}\" fits no GPU of the cluster", name(), job.id));
        } else {
            r.plan = {view.job(j).demand, 0.0};
            r.fixed = true;
        }
        m_queue.push_back(j);
    }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        std::vector<int> waiting;
        for (int j : m_queue) {
            auto gpus = pick(view, j);
            if (gpus.empty()) {
                waiting.push_back(j);
                decision.explain(j, waitText(view, j));
            } else
                decision.assign(j, gpus);
        }
        m_queue = std::move(waiting);
    }

private:
    struct Request
    {
        HasPlan plan; ///< GPUs asked for and the memory each needs
        bool fixed = false;
        std::string why; ///< its wait reason, made when first needed
    };

    bool eligible(const sim::View& view, int j, int type) const
    {
        const Request& r = m_requests[static_cast<std::size_t>(j)];
        if (r.fixed)
            return view.workload().allowed(j, type);
        return gpuFits(m_capacities[static_cast<std::size_t>(type)], r.plan.requiredGiB);
    }

    /** Stable per job (no free counts: the viewer reads those from the run), so it is recorded once a wait;
     *  made once per job, as a long queue is told again at every decision. */
    const std::string& waitText(const sim::View& view, int j)
    {
        Request& r = m_requests[static_cast<std::size_t>(j)];
        if (!r.why.empty())
            return r.why;
        std::string types;
        for (int t = 0; t < view.typeCount(); ++t)
            if (eligible(view, j, t))
                types += (types.empty() ? "" : ", ") + view.workload().type(t).name;
        r.why = fmt::format("fewer idle GPUs than its request of {} ({}: {}; FCFS with backfill)", r.plan.gpus,
                            r.fixed ? "any of" : "a conservative count, on GPUs that hold it", types);
        return r.why;
    }

    std::vector<int> pick(const sim::View& view, int j) const
    {
        const auto& w = view.workload();
        const int need = m_requests[static_cast<std::size_t>(j)].plan.gpus;
        int free = 0;
        for (int t = 0; t < w.typeCount(); ++t)
            if (eligible(view, j, t))
                free += view.freeGpus(t);
        if (free < need)
            return {};
        std::vector<int> nodes;
        for (const auto& n : w.cluster().nodes())
            if (view.state().freeGpusOfNode(n.id) > 0 && eligible(view, j, w.typeOfNode(n.id)))
                nodes.push_back(n.id);
        // Most powerful first; among equals the larger memory, NVLink, then the node with most idle GPUs.
        auto key = [&](int n) {
            const auto& type = w.type(w.typeOfNode(n));
            const auto& node = w.cluster().nodes()[static_cast<std::size_t>(n)];
            return std::make_tuple(-type.fp16TFlops, -type.memoryGiB, node.intraLink.kind != hardware::LinkKind::NVLink,
                                   -view.state().freeGpusOfNode(n), n);
        };
        std::sort(nodes.begin(), nodes.end(), [&](int a, int b) { return key(a) < key(b); });
        std::vector<int> gpus;
        for (int n : nodes) {
            const auto& node = w.cluster().nodes()[static_cast<std::size_t>(n)];
            for (int g = node.firstGpu; g < node.firstGpu + node.gpuCount && static_cast<int>(gpus.size()) < need; ++g)
                if (view.state().isFree(g))
                    gpus.push_back(g);
            if (static_cast<int>(gpus.size()) == need)
                break;
        }
        return gpus;
    }

    std::vector<int> m_queue; // pending jobs in arrival order
    std::vector<Request> m_requests;
    std::vector<double> m_capacities; // per sim type, in HAS's unit
    std::vector<double> m_sortedCapacities;
};

} // namespace

std::unique_ptr<Policy> makeOpportunistic()
{
    return std::make_unique<Opportunistic>();
}

} // namespace orrery::sched

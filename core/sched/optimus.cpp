#include "sched/interval_rounds.h"
#include "sched/queue_reasons.h"
#include "sched/registry.h"
#include "sched/single_type_composition.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace orrery::sched {

namespace {

/**
 * Optimus (Peng et al., EuroSys'18) as Pollux's simulator runs it (petuum/adaptdl osdi21-artifact,
 * simulator/optimus.py; docs/models/goodput.md, "optimus"): every `interval_s` seconds (60, on a grid from
 * t = 0, by wake-ups) each active job gets one GPU in arrival order while GPUs last, then GPUs go one at a time
 * to the job whose remaining run time falls most with one more (remaining work x (1 / rate(n) - 1 / rate(n + 1)),
 * Optimus' marginal gain: Pollux's step-time difference x remaining iterations), until GPUs run out or no job
 * gains. Each job runs its own batch (no tuning). A job whose GPU count is unchanged keeps its GPUs; the others
 * are released and placed again, fewest GPUs first, on the type with the most free GPUs that fits them (fewest
 * nodes). Rates come from the throughput source on the job's fastest type for that count, packed on whole nodes.
 * Pollux's cluster is homogeneous; on several types this is a heterogeneity-agnostic extension.
 */
class Optimus : public Policy
{
public:
    explicit Optimus(const PolicyParams& params) : m_intervalS(params.number("interval_s")) {}

    std::string name() const override { return "optimus"; }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        if (!atRoundTick(decision, m_intervalS))
            return;
        const double now = view.nowS();
        std::vector<int> active = activeJobs(view);
        if (active.empty())
            return;
        // Arrival order (job index breaks ties), as Pollux's job dictionary iterates.
        std::sort(active.begin(), active.end(), [&](int a, int b) {
            return view.job(a).arrivalS != view.job(b).arrivalS ? view.job(a).arrivalS < view.job(b).arrivalS : a < b;
        });
        int free = 0;
        m_largestType = 0;
        for (int t = 0; t < view.typeCount(); ++t) {
            free += view.totalGpus(t);
            m_largestType = std::max(m_largestType, view.totalGpus(t));
        }
        const std::size_t n = active.size();
        std::vector<int> count(n, 0);
        std::vector<double> gain(n, 0);
        const auto gainOf = [&](std::size_t i) {
            const int j = active[i];
            const int c = count[i];
            if (c + 1 > view.job(j).maxGpus || c + 1 > m_largestType || free < 1)
                return 0.0;
            const double r0 = rateAt(view, j, c), r1 = rateAt(view, j, c + 1);
            if (!(r0 > 0) || !(r1 > 0))
                return 0.0;
            return view.estimatedRemainingWork(j) * (1.0 / r0 - 1.0 / r1);
        };
        // Smallest request first (every job's minimum is one GPU), in arrival order.
        for (std::size_t i = 0; i < n; ++i) {
            const int first = firstCount(view, active[i]);
            if (first == 0 || first > free)
                continue;
            count[i] = first;
            free -= first;
        }
        for (std::size_t i = 0; i < n; ++i)
            gain[i] = count[i] > 0 ? gainOf(i) : 0.0;
        while (free > 0) {
            const auto best = std::max_element(gain.begin(), gain.end());
            if (!(*best > 0))
                break;
            const auto i = static_cast<std::size_t>(best - gain.begin());
            // The next count the job accepts (its range may skip some).
            int next = count[i] + 1;
            while (next <= view.job(active[i]).maxGpus && !view.accepts(active[i], next))
                ++next;
            if (next - count[i] > free || next > view.job(active[i]).maxGpus) {
                gain[i] = 0;
                continue;
            }
            free -= next - count[i];
            count[i] = next;
            gain[i] = gainOf(i);
        }
        // Keep unchanged counts; release the rest, then place fewest GPUs first.
        std::vector<std::size_t> toPlace;
        for (std::size_t i = 0; i < n; ++i) {
            const int j = active[i];
            const bool running = view.status(j) == sim::JobStatus::Running;
            if (running && static_cast<int>(view.gpusOf(j).size()) == count[i])
                continue;
            if (running)
                decision.release(j);
            if (count[i] > 0)
                toPlace.push_back(i);
        }
        std::stable_sort(toPlace.begin(), toPlace.end(),
                         [&](std::size_t a, std::size_t b) { return count[a] < count[b]; });
        for (std::size_t i : toPlace) {
            const int j = active[i];
            int bestType = -1;
            for (int t = 0; t < view.typeCount(); ++t)
                if (view.workload().allowed(j, t) && view.freeGpus(t) >= count[i] &&
                    view.workload().rate(j, t, count[i]) > 0 &&
                    (bestType < 0 || view.freeGpus(t) > view.freeGpus(bestType)))
                    bestType = t;
            if (bestType >= 0)
                decision.assign(j, view.state().pick(count[i], bestType));
            else if (count[i] == view.job(j).demand)
                decision.place(j, -1); // a job larger than any one type: its demand on a mix of types
        }
        // Why the others wait: every GPU went, one at a time, to jobs (arrival order first) that gained more.
        for (std::size_t i = 0; i < n; ++i) {
            const int j = active[i];
            if (!view.gpusOf(j).empty()) {
                m_reasons.running(j);
                continue;
            }
            const bool given = count[i] > 0;
            if (!m_reasons.changed(j, given ? 1 : 0))
                continue;
            decision.explain(j, given ? std::string("given GPUs this round, but no one GPU type had that many free")
                                      : fmt::format("no GPU left for it this round: each job in arrival order gets "
                                                    "its first GPUs while any are free, then each GPU goes to the "
                                                    "job whose remaining time falls most (Optimus); next round in "
                                                    "{:g} s",
                                                    m_intervalS));
        }
        decision.wakeAt(now + m_intervalS);
    }

private:
    // The smallest count the job accepts and runs on somewhere (1 for elastic goodput jobs; a rigid job's demand; a
    // serverless job's smallest plan that fits a type's memory); its demand when no single type runs any count.
    static int firstCount(const sim::View& view, int j)
    {
        const auto& s = view.job(j);
        for (int c = std::max(1, s.minGpus); c <= std::min(s.maxGpus, view.workload().cluster().totalGpus()); ++c)
            if (view.accepts(j, c) && rateAt(view, j, c) > 0)
                return c;
        return s.demand;
    }

    // Rate on `count` GPUs of the job's fastest type for that count, packed on whole nodes (the engine's
    // composition for one type), at the job's progress now.
    static double rateAt(const sim::View& view, int j, int count)
    {
        const auto& w = view.workload();
        double best = 0;
        for (int t = 0; t < view.typeCount(); ++t) {
            if (!w.allowed(j, t) || count > view.totalGpus(t))
                continue;
            const int used = w.usableGpus(j, count);
            if (used == 0)
                continue;
            const int perNode = std::max(1, w.maxGpusPerNode(t));
            const sim::Composition comp = singleTypeComposition(w, j, t, count, (count + perNode - 1) / perNode);
            best = std::max(best, w.source().planRate(w.jobs()[static_cast<std::size_t>(j)], comp, sim::Plan{},
                                                      std::clamp(view.progress(j), 0.0, 1.0)));
        }
        return best;
    }

    double m_intervalS;
    int m_largestType = 0; ///< GPUs of the largest type: no count beyond it fits one type
    ReasonMemo m_reasons;
};

} // namespace

std::vector<ParamSpec> optimusParams()
{
    return {{"interval_s",
             ParamType::Number,
             "60",
             1,
             1e9,
             {},
             1,
             16,
             false,
             "seconds between decisions, by wake-ups on a grid from t = 0 (Pollux's simulator --interval)"}};
}

std::unique_ptr<Policy> makeOptimus(const PolicyParams& params)
{
    return std::make_unique<Optimus>(params);
}

} // namespace orrery::sched

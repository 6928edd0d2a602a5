#include "io/error.h"
#include "sched/interval_rounds.h"
#include "sched/queue_reasons.h"
#include "sched/registry.h"
#include "sched/sia_ilp.h"
#include "sched/single_type_composition.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

namespace orrery::sched {

namespace {

/**
 * Sia (Jayaram Subramanya et al., SOSP'23), as its artifact's simulator runs it (sia-simulator/sia.py;
 * docs/models/goodput.md, "Sia's ILP"): every `interval_s` seconds (60, a grid from t = 0, reached by
 * wake-ups; decisions between ticks change nothing, as Sia's simulator only decides on ticks) each active job
 * gets configurations (GPU type, GPU count): per type 1, 2, 4, ... up to a node, then whole nodes, within the
 * job's elastic range (a rigid job: its own count on each type, so it may change type only). Each is valued by
 * the job's goodput there at its progress (the source's best batch when `batch_tuning`, its tuned batch
 * otherwise), normalised by the job's smallest value (rigid jobs: so that the slowest type is worth its GPU
 * count), scaled by the restart factor on all but its current configuration; one ILP over all jobs picks at
 * most one configuration each within every type's GPUs (solveSiaIlp). Jobs whose configuration changed are
 * released and placed again (largest first, fewest nodes), under the plan of the chosen batch; the rest keep
 * their GPUs and plan. Restart factor: (age - restarts x R) / (age + R), 1 while age < R, R the application's
 * restart penalty (sia.py get_restart_penalty). A job with no single-type configuration (larger than every
 * type) starts on a mix of types when GPUs are left over.
 */
class Sia : public Policy
{
public:
    explicit Sia(const PolicyParams& params)
        : m_intervalS(params.number("interval_s")), m_batchTuning(params.boolean("batch_tuning")),
          m_restartFactor(params.boolean("restart_factor"))
    {
        m_ilp.p = params.number("p");
        m_ilp.lambdaN = params.number("lambda_n");
        m_ilp.clip = params.number("goodput_clip");
        m_ilp.gap = params.number("solver_gap");
        m_ilp.maxNodes = static_cast<int>(params.integer("max_nodes"));
        if (m_ilp.p == 0)
            throw Error("policy sia parameter p: the fairness exponent cannot be 0 (sia.py asserts p != 0)");
    }

    std::string name() const override { return "sia"; }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        if (!atRoundTick(decision, m_intervalS))
            return;
        const double now = view.nowS();
        std::vector<int> active = activeJobs(view);
        std::sort(active.begin(), active.end());
        if (active.empty())
            return;
        std::vector<SiaJob> jobs(active.size());
        std::vector<std::vector<sim::Plan>> plans(active.size());
        for (std::size_t i = 0; i < active.size(); ++i)
            buildConfigs(view, active[i], jobs[i], plans[i]);
        std::vector<int> capacity(static_cast<std::size_t>(view.typeCount()));
        for (int t = 0; t < view.typeCount(); ++t)
            capacity[static_cast<std::size_t>(t)] = view.totalGpus(t);
        const SiaIlpResult r = solveSiaIlp(jobs, capacity, m_ilp);
        if (!r.solved)
            throw Error(fmt::format("policy \"{}\" at t={:.1f}s: the ILP failed ({})", view.policyName(), now,
                                    opt::toString(r.status)));
        decision.record("sia_objective", r.objective);
        // What a node limit may have left: 0 when the round is proven optimal (within the gap).
        decision.record("sia_gap", std::abs(r.objective - r.bound));

        // Release first, so that the placements below see every GPU that is given up this round.
        std::vector<std::size_t> toPlace;
        for (std::size_t i = 0; i < active.size(); ++i) {
            const int j = active[i];
            const int c = r.chosen[i];
            if (c >= 0 && c == jobs[i].current)
                continue; // keeps its GPUs and its plan
            if (view.status(j) == sim::JobStatus::Running)
                decision.release(j);
            if (c >= 0)
                toPlace.push_back(i);
        }
        std::stable_sort(toPlace.begin(), toPlace.end(), [&](std::size_t a, std::size_t b) {
            return jobs[a].configs[static_cast<std::size_t>(r.chosen[a])].gpus >
                   jobs[b].configs[static_cast<std::size_t>(r.chosen[b])].gpus;
        });
        for (std::size_t i : toPlace) {
            const int j = active[i];
            const auto c = static_cast<std::size_t>(r.chosen[i]);
            const SiaConfig& cfg = jobs[i].configs[c];
            const std::vector<int> gpus = view.state().pick(cfg.gpus, cfg.type);
            if (gpus.empty())
                continue; // the capacity rows count GPUs, not nodes: fragmentation may leave it out this round
            decision.assign(j, gpus, plans[i][c]);
            if (plans[i][c].globalBatch > 0)
                decision.annotate(j, "batch", plans[i][c].globalBatch);
        }
        // Jobs larger than any single type: a mix of types from what is left.
        for (std::size_t i = 0; i < active.size(); ++i)
            if (jobs[i].configs.empty() && view.status(active[i]) == sim::JobStatus::Queued)
                decision.place(active[i], -1);
        explainWaiting(decision, active, jobs, r);
        decision.wakeAt(now + m_intervalS);
    }

private:
    void explainWaiting(sim::Decision& decision, const std::vector<int>& active, const std::vector<SiaJob>& jobs,
                        const SiaIlpResult& r)
    {
        enum Kind { LeftOut, Fragmented, NeedsMix };
        const auto& view = decision.view();
        for (std::size_t i = 0; i < active.size(); ++i) {
            const int j = active[i];
            if (!view.gpusOf(j).empty()) {
                m_reasons.running(j);
                continue;
            }
            const int kind = jobs[i].configs.empty() ? NeedsMix : r.chosen[i] < 0 ? LeftOut : Fragmented;
            if (!m_reasons.changed(j, kind))
                continue;
            if (kind == LeftOut)
                decision.explain(j, fmt::format("Sia's ILP gave it no GPUs this round: the cluster's goodput, with "
                                                "fairness exponent p = {:g}, is higher with them elsewhere; next "
                                                "round in {:g} s",
                                                m_ilp.p, m_intervalS));
            else if (kind == Fragmented)
                decision.explain(j, "Sia's ILP gave it GPUs of a type, but they were not free on few enough nodes "
                                    "together (the ILP counts GPUs, not nodes)");
            else
                decision.explain(j, fmt::format("larger than any one GPU type it may use (needs {}); waits for a "
                                                "mix of the GPUs a round leaves over",
                                                needsText(view, j)));
        }
    }

    // sia.py:23-36 get_restart_penalty: by the job's name (its application), 30 s for any other.
    static double restartPenaltyS(const workload::Job& job)
    {
        const std::string& key = job.application.empty() ? job.id : job.application;
        if (key.find("deepspeech") != std::string::npos)
            return 25;
        if (key.find("imagenet") != std::string::npos)
            return 250;
        if (key.find("cifar") != std::string::npos)
            return 30;
        if (key.find("bert") != std::string::npos)
            return 120;
        if (key.find("yolov3") != std::string::npos)
            return 45;
        return 30;
    }

    // GPU counts Sia offers on a type with `perNode` GPUs per node and `nodes` nodes: powers of two inside a node,
    // then whole nodes (sia.py CONFIGS_4GPU / CONFIGS_8GPU).
    static std::vector<int> counts(int perNode, int nodes)
    {
        std::vector<int> out;
        for (int g = 1; g < perNode; g *= 2)
            out.push_back(g);
        for (int n = 1; n <= nodes; ++n)
            out.push_back(n * perNode);
        return out;
    }

    void buildConfigs(const sim::View& view, int j, SiaJob& job, std::vector<sim::Plan>& plans) const
    {
        const auto& w = view.workload();
        const auto& sj = view.job(j);
        const workload::Job& wj = w.jobs()[static_cast<std::size_t>(j)];
        const bool rigid = sj.minGpus == sj.maxGpus;
        const double progress = std::clamp(view.progress(j), 0.0, 1.0);
        const int curType = view.status(j) == sim::JobStatus::Running ? view.typeOf(j) : -1;
        const int curGpus = static_cast<int>(view.gpusOf(j).size());
        std::vector<double> raw;
        for (int t = 0; t < view.typeCount(); ++t) {
            if (sj.requiredType >= 0 && sj.requiredType != t)
                continue;
            const int perNode = std::max(1, w.maxGpusPerNode(t));
            const int nodes = (view.totalGpus(t) + perNode - 1) / perNode;
            std::vector<int> cs = rigid ? std::vector<int>{sj.demand} : counts(perNode, nodes);
            for (int g : cs) {
                if (g > view.totalGpus(t) || !view.accepts(j, g))
                    continue;
                // g GPUs of type t packed on whole nodes (the locality factor aside, which is the same for every
                // configuration of a span).
                const sim::Composition comp = singleTypeComposition(w, j, t, g, (g + perNode - 1) / perNode);
                sim::Plan plan;
                const bool isCurrent = t == curType && g == curGpus;
                if (isCurrent)
                    plan = view.planOf(j); // its current batch, which it keeps if it stays
                else if (m_batchTuning)
                    plan = w.source().bestPlan(wj, comp, progress);
                const double v = w.source().planRate(wj, comp, plan, progress);
                if (!(v > 0))
                    continue;
                if (isCurrent)
                    job.current = static_cast<int>(job.configs.size());
                job.configs.push_back({t, g, v});
                plans.push_back(plan);
                raw.push_back(v);
            }
        }
        if (raw.empty())
            return;
        // Normalise: the job's least valuable configuration is worth 1 (rigid: its GPU count), so jobs compare
        // by speed-up, not by their units of work.
        const double lo = *std::min_element(raw.begin(), raw.end());
        for (auto& c : job.configs)
            c.value = c.value / lo * (rigid ? sj.demand : 1);
        // Only a job that holds GPUs has something to lose by moving (sia.py scales a job's row only when it has a
        // previous allocation): a waiting job is valued as it is.
        if (m_restartFactor && job.current >= 0) {
            const double age = view.nowS() - sj.arrivalS;
            const double pen = restartPenaltyS(wj);
            job.restartFactor = age < pen ? 1.0 : std::max(age - view.restarts(j) * pen, 0.0) / (age + pen);
        }
    }

    double m_intervalS;
    bool m_batchTuning;
    bool m_restartFactor;
    SiaIlpOptions m_ilp;
    ReasonMemo m_reasons;
};

} // namespace

std::vector<ParamSpec> siaParams()
{
    return {
        {"p",
         ParamType::Number,
         "-0.5",
         -10,
         10,
         {},
         1,
         16,
         false,
         "fairness exponent of the normalised goodput (sia_default_p_val; < 0 minimises, > 0 maximises; not 0)"},
        {"lambda_n",
         ParamType::Number,
         "1.1",
         -1e6,
         1e6,
         {},
         1,
         16,
         false,
         "penalty per job left without GPUs (sia_default_lambda_n; sign opposite to p)"},
        {"goodput_clip",
         ParamType::Number,
         "3000",
         1,
         1e12,
         {},
         1,
         16,
         false,
         "cap on a configuration's powered goodput (sia_goodput_clip_val)"},
        {"solver_gap",
         ParamType::Number,
         "0.0001",
         0,
         1,
         {},
         1,
         16,
         false,
         "relative optimality gap at which the ILP stops (sia_solver_thresh; 0: prove optimality)"},
        {"max_nodes",
         ParamType::Integer,
         "100",
         1,
         1e9,
         {},
         1,
         16,
         false,
         "branch-and-bound nodes per round; past them the best assignment found, at least the rounded root LP's (a "
         "count, so runs stay deterministic)"},
        {"interval_s",
         ParamType::Number,
         "60",
         1,
         1e9,
         {},
         1,
         16,
         false,
         "seconds between decisions, by wake-ups on a grid from t = 0 (sia.py sched_interval)"},
        {"batch_tuning",
         ParamType::Boolean,
         "true",
         0,
         0,
         {},
         1,
         16,
         false,
         "give each (re)placed job the goodput-maximising batch (enable_bsz_tuning); false: its own batch"},
        {"restart_factor",
         ParamType::Boolean,
         "true",
         0,
         0,
         {},
         1,
         16,
         false,
         "scale other configurations by (age - restarts x R) / (age + R), R the application's restart penalty"},
    };
}

std::unique_ptr<Policy> makeSia(const PolicyParams& params)
{
    return std::make_unique<Sia>(params);
}

} // namespace orrery::sched

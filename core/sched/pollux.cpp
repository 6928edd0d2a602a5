// Pollux (Qiao et al., OSDI'21) as its artifact's simulator runs it (petuum/adaptdl, branch osdi21-artifact,
// simulator/pollux.py; docs/models/goodput.md, "pollux"): every 60 s a genetic search over replica placements
// (jobs x nodes) for the allocation whose jobs' goodput speed-ups have the largest power mean (p = -1), with
// Pollux's own mutation, crossover and repair operators. Pollux runs NSGA-II from pymoo on two objectives and
// then takes the solution with the best first one; Orrery runs the same operators in a seeded single-objective
// (mu + lambda) search on that objective, the second (cluster utility) breaking ties (docs/models/goodput.md
// says why).

#include "sched/interval_rounds.h"
#include "sched/queue_reasons.h"
#include "sched/registry.h"
#include "sched/single_type_composition.h"

#include "io/error.h"
#include "util/portable_random.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <vector>

namespace orrery::sched {

namespace {

using State = std::vector<std::uint16_t>; // jobs x nodes, row-major: replicas of job i on node n

constexpr double kSpeedupFloor = 1e-3; // pollux.py: (scaled_speedups + 1e-3) ** p

class Pollux final : public Policy
{
public:
    explicit Pollux(const PolicyParams& params)
        : m_intervalS(params.number("interval_s")), m_population(static_cast<int>(params.integer("population"))),
          m_generations(static_cast<int>(params.integer("generations"))), m_p(params.number("p")),
          m_restartDelayS(params.number("restart_delay_s")), m_maxNodes(static_cast<int>(params.integer("max_nodes"))),
          m_patience(static_cast<int>(params.integer("patience")))
    {
        if (m_p == 0)
            throw Error("policy pollux parameter p: the power-mean exponent cannot be 0 (Pollux's geometric mean "
                        "case is not modelled)");
    }

    std::string name() const override { return "pollux"; }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        if (!atRoundTick(decision, m_intervalS))
            return;
        std::vector<int> jobs = activeJobs(view);
        if (jobs.empty())
            return;
        // pollux.py optimize(): jobs by attained service, then creation time; earlier jobs win the node
        // capacity in the repair step.
        std::sort(jobs.begin(), jobs.end(), [&](int a, int b) {
            const double sa = view.attainedGpuS(a), sb = view.attainedGpuS(b);
            if (sa != sb)
                return sa < sb;
            if (view.job(a).arrivalS != view.job(b).arrivalS)
                return view.job(a).arrivalS < view.job(b).arrivalS;
            return a < b;
        });
        prepare(view, jobs);
        search(view);
        apply(decision);
        explainWaiting(decision);
        decision.wakeAt(view.nowS() + m_intervalS);
    }

private:
    struct JobInfo
    {
        int job = -1;
        int minReplicas = 1;
        int maxReplicas = 1;
        double baseGoodput = 0;   ///< at its fair share: speed-up 1
        double restartFactor = 1; ///< applied when its allocation changes
    };

    // ---- the round's problem ----
    void prepare(const sim::View& view, const std::vector<int>& jobs)
    {
        const auto& w = view.workload();
        const auto& nodes = w.cluster().nodes();
        m_nodeCount = static_cast<int>(nodes.size());
        m_capacity.assign(nodes.size(), 0);
        m_nodeType.assign(nodes.size(), 0);
        for (std::size_t n = 0; n < nodes.size(); ++n) {
            m_capacity[n] = nodes[n].gpuCount;
            m_nodeType[n] = w.typeOfNode(static_cast<int>(n));
        }
        const int totalGpus = w.cluster().totalGpus();
        m_jobs.assign(jobs.size(), {});
        m_shapes.clear();
        const auto J = jobs.size();
        const auto N = nodes.size();
        m_base.assign(J * N, 0);
        const double now = view.nowS();
        // Fair share (pollux.py Problem.__init__): ceil(1 / dominant share / jobs) replicas, dominant share 1/GPUs.
        const int fair = std::max(1, static_cast<int>(std::ceil(static_cast<double>(totalGpus) / J)));
        for (std::size_t i = 0; i < J; ++i) {
            const int j = jobs[i];
            JobInfo& info = m_jobs[i];
            info.job = j;
            const auto& sj = view.job(j);
            info.minReplicas = std::max(1, sj.minGpus);
            info.maxReplicas = std::max(info.minReplicas, std::min(sj.maxGpus, totalGpus));
            for (int g : view.gpusOf(j))
                ++m_base[i * N + static_cast<std::size_t>(w.cluster().nodeOfGpu(g))];
            // Speed-ups are relative to the goodput at a fair share, on the job's best type (Pollux's cluster has
            // one type), packed on the fewest nodes; the nearest count the job accepts when it is not elastic.
            // A job that runs on no type at that count (a serverless job's plans allow only some counts) is
            // measured at the smallest count it runs on.
            const auto bestAt = [&](int count) {
                double best = 0;
                for (int t = 0; t < view.typeCount(); ++t) {
                    const int perNode = std::max(1, w.maxGpusPerNode(t));
                    best = std::max(best, goodput(view, i, t, count, (count + perNode - 1) / perNode));
                }
                return best;
            };
            info.baseGoodput = bestAt(std::clamp(fair, info.minReplicas, info.maxReplicas));
            for (int c = info.minReplicas; info.baseGoodput <= 0 && c <= info.maxReplicas; ++c)
                info.baseGoodput = bestAt(c);
            // pollux.py _evaluate: factor = max(age - restarts x delay, 0) / (age + delay).
            const double age = now - sj.arrivalS;
            info.restartFactor = age + m_restartDelayS > 0
                                     ? std::max(age - view.restarts(j) * m_restartDelayS, 0.0) / (age + m_restartDelayS)
                                     : 1.0;
        }
        m_scale = static_cast<double>(m_nodeCount) / std::max(1, totalGpus); // dominant share x nodes
        m_emptyTerm = std::pow(kSpeedupFloor, m_p);
    }

    /** What a job's row is worth: its speed-up, and its term of the power mean when its allocation stays and when
     *  it changes (the restart factor applied). */
    struct Shape
    {
        double speedup = 0;
        double same = 0;
        double changed = 0;
    };

    /** Job i on `replicas` GPUs of type t over `nodes` nodes, memoised for the round: the search asks the same
     *  shapes again and again. */
    const Shape& shape(const sim::View& view, std::size_t i, int t, int replicas, int nodes)
    {
        // Fields within their bounds: jobs < 2^20 active, types < 2^8, replicas and nodes < 2^18 (io/limits.h).
        const std::uint64_t key = (static_cast<std::uint64_t>(i) << 44) | (static_cast<std::uint64_t>(t) << 36) |
                                  (static_cast<std::uint64_t>(replicas) << 18) | static_cast<std::uint64_t>(nodes);
        if (const auto it = m_shapes.find(key); it != m_shapes.end())
            return it->second;
        Shape sh;
        if (m_jobs[i].baseGoodput > 0)
            sh.speedup = goodput(view, i, t, replicas, nodes) / m_jobs[i].baseGoodput;
        const double scaled = sh.speedup * m_scale;
        sh.same = std::pow(scaled + kSpeedupFloor, m_p);
        sh.changed = std::pow(scaled * m_jobs[i].restartFactor + kSpeedupFloor, m_p);
        return m_shapes.emplace(key, sh).first->second;
    }

    /** Goodput of job i on `replicas` GPUs of type t over `nodes` nodes: the engine's rate under the best plan
     *  there, locality included. */
    double goodput(const sim::View& view, std::size_t i, int t, int replicas, int nodes)
    {
        if (replicas <= 0 || nodes <= 0 || nodes > replicas)
            return 0;
        double value = 0;
        const auto& w = view.workload();
        const int j = m_jobs[i].job;
        if (w.allowed(j, t) && view.accepts(j, replicas)) {
            // A representative placement: `replicas` spread evenly over the `nodes` largest nodes of type t.
            std::vector<int> candidates;
            for (int n = 0; n < m_nodeCount; ++n)
                if (m_nodeType[static_cast<std::size_t>(n)] == t)
                    candidates.push_back(n);
            std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
                return m_capacity[static_cast<std::size_t>(a)] > m_capacity[static_cast<std::size_t>(b)];
            });
            std::vector<int> gpus;
            bool fits = static_cast<int>(candidates.size()) >= nodes;
            for (int k = 0; fits && k < nodes; ++k) {
                const auto& node =
                    w.cluster().nodes()[static_cast<std::size_t>(candidates[static_cast<std::size_t>(k)])];
                const int here = replicas / nodes + (k < replicas % nodes ? 1 : 0);
                fits = here <= node.gpuCount;
                for (int g = 0; fits && g < here; ++g)
                    gpus.push_back(node.firstGpu + g);
            }
            if (fits) {
                const sim::Plan plan = bestPlan(view, j, t, replicas, nodes);
                value = view.rateOn(j, gpus, plan);
            }
        }
        return value;
    }

    sim::Plan bestPlan(const sim::View& view, int j, int t, int replicas, int nodes) const
    {
        const auto& w = view.workload();
        return w.source().bestPlan(w.jobs()[static_cast<std::size_t>(j)],
                                   singleTypeComposition(w, j, t, replicas, nodes),
                                   std::clamp(view.progress(j), 0.0, 1.0));
    }

    // ---- the search ----
    struct Individual
    {
        State state;
        double value = 0;   ///< power mean of the scaled speed-ups (larger is better)
        double utility = 0; ///< cluster utility (pollux.py get_cluster_utilities), the tie-breaker
    };

    std::uint16_t get(const State& s, std::size_t i, std::size_t n) const
    {
        return s[i * static_cast<std::size_t>(m_nodeCount) + n];
    }

    void evaluate(const sim::View& view, Individual& ind)
    {
        const auto N = static_cast<std::size_t>(m_nodeCount);
        double sum = 0;
        double weighted = 0; // sum of speed-up / replicas x replicas over the jobs that have GPUs
        m_active.assign(N, 0);
        for (std::size_t i = 0; i < m_jobs.size(); ++i) {
            int replicas = 0, nodes = 0, type = -1;
            bool changed = false;
            for (std::size_t n = 0; n < N; ++n) {
                const int c = get(ind.state, i, n);
                changed = changed || c != m_base[i * N + n];
                if (c == 0)
                    continue;
                replicas += c;
                ++nodes;
                type = m_nodeType[n];
                m_active[n] = 1;
            }
            if (replicas == 0) {
                sum += m_emptyTerm;
                continue;
            }
            const Shape& sh = shape(view, i, type, replicas, nodes);
            sum += changed ? sh.changed : sh.same;
            weighted += sh.speedup;
        }
        ind.value = std::pow(sum / static_cast<double>(m_jobs.size()), 1.0 / m_p);
        // pollux.py get_cluster_utilities: each job's share of ideal speed-up, weighted by its share of the GPUs of
        // the nodes in use.
        double inUse = 0;
        for (std::size_t n = 0; n < N; ++n)
            inUse += m_active[n] ? m_capacity[n] : 0;
        ind.utility = inUse > 0 ? weighted / inUse : 0;
    }

    static bool better(const Individual& a, const Individual& b)
    {
        if (a.value != b.value)
            return a.value > b.value;
        return a.utility > b.utility;
    }

    /** pollux.py Problem._repair, plus what Orrery's engine needs: one GPU type per job, a count it accepts. */
    void repair(const sim::View& view, State& s)
    {
        const auto J = m_jobs.size();
        const auto N = static_cast<std::size_t>(m_nodeCount);
        // At most one distributed job per node: the first (in job order) keeps it.
        std::vector<char> taken(N, 0);
        for (std::size_t i = 0; i < J; ++i) {
            int spread = 0;
            for (std::size_t n = 0; n < N; ++n)
                spread += s[i * N + n] > 0;
            if (spread <= 1)
                continue;
            for (std::size_t n = 0; n < N; ++n) {
                if (s[i * N + n] == 0)
                    continue;
                if (taken[n])
                    s[i * N + n] = 0;
                taken[n] = 1;
            }
        }
        // At most max replicas and max nodes per job, over its nodes in a random order.
        std::vector<std::size_t> order(N);
        for (std::size_t i = 0; i < J; ++i) {
            std::iota(order.begin(), order.end(), std::size_t{0});
            shuffle(order);
            int replicas = 0, nodes = 0;
            for (std::size_t n : order) {
                auto& c = s[i * N + n];
                if (c == 0)
                    continue;
                const int keep = std::min<int>(c, m_jobs[i].maxReplicas - replicas);
                if (keep <= 0 || nodes >= m_maxNodes) {
                    c = 0;
                    continue;
                }
                c = static_cast<std::uint16_t>(keep);
                replicas += keep;
                ++nodes;
            }
        }
        // Node capacity, earlier jobs first.
        std::vector<int> used(N, 0);
        for (std::size_t i = 0; i < J; ++i)
            for (std::size_t n = 0; n < N; ++n) {
                auto& c = s[i * N + n];
                const int keep = std::min<int>(c, m_capacity[n] - used[n]);
                c = static_cast<std::uint16_t>(std::max(0, keep));
                used[n] += c;
            }
        // Orrery: a job runs on one GPU type (the one holding most of its replicas), on a count it accepts, and
        // at least its minimum (pollux.py: min_replicas).
        std::vector<int> byType(static_cast<std::size_t>(view.typeCount()));
        for (std::size_t i = 0; i < J; ++i) {
            std::fill(byType.begin(), byType.end(), 0);
            for (std::size_t n = 0; n < N; ++n)
                byType[static_cast<std::size_t>(m_nodeType[n])] += s[i * N + n];
            const auto keepType = static_cast<int>(std::max_element(byType.begin(), byType.end()) - byType.begin());
            int replicas = 0, nodes = 0;
            for (std::size_t n = 0; n < N; ++n) {
                if (m_nodeType[n] != keepType)
                    s[i * N + n] = 0;
                replicas += s[i * N + n];
                nodes += s[i * N + n] > 0;
            }
            // A shape the job cannot run on (out of memory there, a count no plan of it uses) is worth nothing
            // to the search and refused by the engine: the row is emptied.
            if (replicas > 0 && (replicas < m_jobs[i].minReplicas || !view.accepts(m_jobs[i].job, replicas) ||
                                 !(shape(view, i, keepType, replicas, nodes).speedup > 0)))
                for (std::size_t n = 0; n < N; ++n)
                    s[i * N + n] = 0;
        }
    }

    /** pollux.py Problem._mutation. */
    void mutate(State& s)
    {
        const auto J = m_jobs.size();
        const auto N = static_cast<std::size_t>(m_nodeCount);
        for (std::size_t i = 0; i < J; ++i) {
            // (1) back to the current allocation; (2) some elements of some rows to zero.
            if (m_rng->uniform() < 0.1)
                std::copy_n(m_base.begin() + static_cast<std::ptrdiff_t>(i * N), N,
                            s.begin() + static_cast<std::ptrdiff_t>(i * N));
            if (m_rng->uniform() < 0.1)
                for (std::size_t n = 0; n < N; ++n)
                    if (m_rng->uniform() < 0.1)
                        s[i * N + n] = 0;
        }
        // (3) Raise some elements where the node has a free GPU: each such node with probability one over their
        // number, and each node the job already uses with one over theirs; to a value drawn between what it has
        // and the node's size.
        std::vector<int> freeGpus(m_capacity.begin(), m_capacity.end());
        for (std::size_t i = 0; i < J; ++i)
            for (std::size_t n = 0; n < N; ++n)
                freeGpus[n] -= s[i * N + n];
        for (std::size_t i = 0; i < J; ++i) {
            int fitting = 0, holding = 0;
            for (std::size_t n = 0; n < N; ++n)
                if (freeGpus[n] >= 1) {
                    ++fitting;
                    holding += s[i * N + n] > 0;
                }
            for (std::size_t n = 0; n < N; ++n) {
                if (freeGpus[n] < 1)
                    continue;
                const double p1 = 1.0 / fitting;
                const double p2 = s[i * N + n] > 0 ? 1.0 / holding : 0.0;
                if (m_rng->uniform() < p1 + p2 - p1 * p2) {
                    const int lo = s[i * N + n], hi = m_capacity[n];
                    s[i * N + n] = static_cast<std::uint16_t>(lo + draw(hi - lo + 1));
                }
            }
        }
    }

    void search(const sim::View& view)
    {
        if (!m_rng)
            m_rng.emplace(view.seed() ^ 0x706f6c6c7578ULL); // "pollux"
        const auto J = m_jobs.size();
        const auto N = static_cast<std::size_t>(m_nodeCount);
        // The first population: last round's, carried over to this round's jobs (pollux.py _adapt_prev_states),
        // and the current allocation.
        std::vector<Individual> pop;
        pop.push_back({m_base, 0, 0});
        for (const auto& prev : m_previous) {
            State s(J * N, 0);
            for (std::size_t i = 0; i < J; ++i)
                if (const auto it = prev.find(m_jobs[i].job); it != prev.end())
                    std::copy(it->second.begin(), it->second.end(), s.begin() + static_cast<std::ptrdiff_t>(i * N));
            repair(view, s);
            pop.push_back({std::move(s), 0, 0});
        }
        for (auto& ind : pop)
            evaluate(view, ind);
        std::vector<Individual> offspring;
        double best = -std::numeric_limits<double>::infinity();
        int stale = 0;
        for (int gen = 0; gen < m_generations; ++gen) {
            offspring.clear();
            while (static_cast<int>(offspring.size()) < m_population) {
                const Individual& a = tournament(pop);
                const Individual& b = tournament(pop);
                // Single-point crossover over jobs: rows before the point swapped (pollux.py _crossover).
                const std::size_t point = static_cast<std::size_t>(draw(static_cast<int>(J)));
                Individual c1{a.state, 0, 0}, c2{b.state, 0, 0};
                std::copy_n(b.state.begin(), static_cast<std::ptrdiff_t>(point * N), c1.state.begin());
                std::copy_n(a.state.begin(), static_cast<std::ptrdiff_t>(point * N), c2.state.begin());
                for (Individual* c : {&c1, &c2}) {
                    mutate(c->state);
                    repair(view, c->state);
                    evaluate(view, *c);
                    offspring.push_back(std::move(*c));
                }
            }
            // (mu + lambda): the best of parents and offspring, duplicates dropped (pymoo drops them too).
            for (auto& o : offspring)
                pop.push_back(std::move(o));
            std::stable_sort(pop.begin(), pop.end(), better);
            std::vector<Individual> next;
            for (auto& ind : pop) {
                if (static_cast<int>(next.size()) == m_population)
                    break;
                if (!next.empty() && next.back().state == ind.state)
                    continue;
                next.push_back(std::move(ind));
            }
            pop = std::move(next);
            // Stop once the best has not improved for `patience` generations (0: always run them all).
            stale = pop.front().value > best ? 0 : stale + 1;
            best = std::max(best, pop.front().value);
            if (m_patience > 0 && stale >= m_patience)
                break;
        }
        m_best = pop.front().state;
        m_previous.clear();
        for (const auto& ind : pop) {
            std::unordered_map<int, State> rows;
            for (std::size_t i = 0; i < J; ++i)
                rows.emplace(m_jobs[i].job, State(ind.state.begin() + static_cast<std::ptrdiff_t>(i * N),
                                                  ind.state.begin() + static_cast<std::ptrdiff_t>((i + 1) * N)));
            m_previous.push_back(std::move(rows));
        }
    }

    const Individual& tournament(const std::vector<Individual>& pop)
    {
        const auto& a = pop[static_cast<std::size_t>(draw(static_cast<int>(pop.size())))];
        const auto& b = pop[static_cast<std::size_t>(draw(static_cast<int>(pop.size())))];
        return better(b, a) ? b : a;
    }

    int draw(int n) { return std::min(n - 1, static_cast<int>(m_rng->uniform() * n)); }

    void shuffle(std::vector<std::size_t>& v)
    {
        for (std::size_t k = v.size(); k > 1; --k)
            std::swap(v[k - 1], v[static_cast<std::size_t>(draw(static_cast<int>(k)))]);
    }

    // ---- the decision ----
    void apply(sim::Decision& decision)
    {
        const auto& view = decision.view();
        const auto& w = view.workload();
        const auto N = static_cast<std::size_t>(m_nodeCount);
        std::vector<std::size_t> toPlace;
        for (std::size_t i = 0; i < m_jobs.size(); ++i) {
            const int j = m_jobs[i].job;
            const bool same = std::equal(m_best.begin() + static_cast<std::ptrdiff_t>(i * N),
                                         m_best.begin() + static_cast<std::ptrdiff_t>((i + 1) * N),
                                         m_base.begin() + static_cast<std::ptrdiff_t>(i * N));
            if (same)
                continue;
            if (!view.gpusOf(j).empty())
                decision.release(j);
            toPlace.push_back(i);
        }
        for (std::size_t i : toPlace) {
            const int j = m_jobs[i].job;
            std::vector<int> gpus;
            int nodes = 0, type = -1, wanted = 0;
            for (std::size_t n = 0; n < N; ++n) {
                int want = m_best[i * N + n];
                wanted += want;
                if (want == 0)
                    continue;
                ++nodes;
                type = m_nodeType[n];
                const auto& node = w.cluster().nodes()[n];
                for (int g = node.firstGpu; g < node.firstGpu + node.gpuCount && want > 0; ++g)
                    if (view.state().isFree(g)) {
                        gpus.push_back(g);
                        --want;
                    }
            }
            // The repair kept every node within its GPUs and the releases above freed them, so all are found; a
            // shortfall would be a bug, and a partial allocation may be a count the job does not accept.
            if (gpus.empty() || static_cast<int>(gpus.size()) != wanted)
                continue;
            const sim::Plan plan = bestPlan(view, j, type, static_cast<int>(gpus.size()), nodes);
            decision.assign(j, gpus, plan);
            if (plan.globalBatch > 0)
                decision.annotate(j, "batch", plan.globalBatch);
        }
    }

    void explainWaiting(sim::Decision& decision)
    {
        const auto& view = decision.view();
        for (const auto& info : m_jobs) {
            if (!view.gpusOf(info.job).empty()) {
                m_reasons.running(info.job);
                continue;
            }
            if (m_reasons.changed(info.job, 0))
                decision.explain(info.job,
                                 fmt::format("Pollux's search left it without GPUs this round: the power mean (p = "
                                             "{:g}) of all jobs' goodput speed-ups is higher with them elsewhere; "
                                             "next round in {:g} s",
                                             m_p, m_intervalS));
        }
    }

    double m_intervalS;
    int m_population;
    int m_generations;
    double m_p;
    double m_restartDelayS;
    int m_maxNodes;
    int m_patience;

    int m_nodeCount = 0;
    std::vector<int> m_capacity, m_nodeType;
    std::vector<char> m_active; ///< evaluate's scratch: nodes in use
    std::vector<JobInfo> m_jobs;
    State m_base, m_best;
    double m_scale = 1;
    std::unordered_map<std::uint64_t, Shape> m_shapes;
    double m_emptyTerm = 0;                                 ///< the power-mean term of a job without GPUs
    std::vector<std::unordered_map<int, State>> m_previous; ///< last round's population, rows by job
    std::optional<util::PortableRandom> m_rng;
    ReasonMemo m_reasons;
};

} // namespace

std::vector<ParamSpec> polluxParams()
{
    return {
        {"interval_s",
         ParamType::Number,
         "60",
         1,
         1e9,
         {},
         1,
         16,
         false,
         "seconds between decisions, by wake-ups on a grid from t = 0 (Pollux's simulator: 60)"},
        {"population",
         ParamType::Integer,
         "100",
         2,
         10000,
         {},
         1,
         16,
         false,
         "individuals kept per generation (pollux.py: NSGA2 pop_size=100)"},
        {"generations",
         ParamType::Integer,
         "100",
         1,
         100000,
         {},
         1,
         16,
         false,
         "generations per round (pollux.py: n_gen 100)"},
        {"p",
         ParamType::Number,
         "-1",
         -10,
         10,
         {},
         1,
         16,
         false,
         "power-mean exponent over the jobs' speed-ups (pollux.py: -1; more negative is fairer; not 0)"},
        {"restart_delay_s",
         ParamType::Number,
         "30",
         0,
         1e9,
         {},
         1,
         16,
         false,
         "restart delay in the restart factor (age - restarts x delay) / (age + delay) (pollux.py: 30)"},
        {"max_nodes",
         ParamType::Integer,
         "16",
         1,
         100000,
         {},
         1,
         16,
         false,
         "nodes one job may span (pollux.py _repair: 16)"},
        {"patience",
         ParamType::Integer,
         "10",
         0,
         100000,
         {},
         1,
         16,
         false,
         "stop a round's search after this many generations without a better state (0: run every generation, as "
         "Pollux does)"},
    };
}

std::unique_ptr<Policy> makePollux(const PolicyParams& params)
{
    return std::make_unique<Pollux>(params);
}

} // namespace orrery::sched

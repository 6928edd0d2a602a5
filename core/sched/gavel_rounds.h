#pragma once

#include "sched/queue_reasons.h"
#include "sim/view.h"
#include "util/python_random.h"

#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace orrery::sched {

/**
 * Gavel's round-based mechanism (Narayanan et al., OSDI'20, section 5), shared
 * by the policies that Gavel defines by an allocation matrix X (job x GPU
 * type, the fraction of time job j should spend on type t):
 *  - X is recomputed when jobs arrived or finished, at most every
 *    `minResetS` seconds (Gavel: 1,920 s; Orrery: every round);
 *  - at each round, priority(j, t) = X[j][t] / (share of type t's time that j
 *    received since the last recomputation), 1e9 * X when it received none,
 *    with deficits (time owed minus time received) as the tie-breaker;
 *  - per type, fastest type first (agnostic policies: in a seeded random
 *    order), jobs are taken in priority order while GPUs of that type remain;
 *  - a job continuing on the same type keeps its GPUs.
 * With `gavelQuirks` it also reproduces what Gavel's simulator does: jobs that
 * arrived since the last recomputation are not in X and cannot run; such a job
 * ranked above others still consumes its GPUs in the greedy pass, leaving them
 * idle for the round; recomputation is forced when nothing ran and nothing is
 * left to arrive. See docs/validation.md.
 * Every job left without GPUs by a round is told why (docs/simulator.md, "Why a job waits").
 */
class GavelRounds
{
public:
    struct Config
    {
        double minResetS = 0;
        bool skipZeroPriority = false; ///< Gavel's FIFO policies never run a job with priority 0
        bool shuffleTypes = false;     ///< Gavel shuffles the type order for policies without "Perf"
        bool gavelQuirks = false;
    };
    /** Fills x (jobs.size() x typeCount, row-major) for the active jobs, in index order. */
    using AllocateFn = std::function<void(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)>;

    GavelRounds(Config config, AllocateFn allocate) : m_cfg(config), m_allocate(std::move(allocate)) {}

    void onArrival(const sim::View& view, int j);
    void onCompletion(const sim::View& view, int j);
    void schedule(sim::Decision& decision);

private:
    void ensureSize(const sim::View& view);
    void reset(const sim::View& view, const std::vector<int>& active);
    double& at(std::vector<double>& v, int j, int t)
    {
        return v[static_cast<std::size_t>(j) * m_types + static_cast<std::size_t>(t)];
    }

    Config m_cfg;
    AllocateFn m_allocate;
    std::size_t m_types = 0;
    std::vector<double> m_jobTime, m_deficit, m_x; // per job x type
    std::vector<char> m_inAlloc;
    std::vector<char> m_chosen;               // per job: picked by the last round
    std::vector<int> m_pickedType;            // per job: the type it was picked on, -1 when none
    std::vector<std::pair<int, int>> m_picks; // the last round's picks (job, type)
    std::vector<double> m_workerTime;
    struct Ran
    {
        int job;
        int type;
        double sinceS;
        double leaseS; ///< under gavelQuirks: the time its whole steps of the round take; else infinite
    };
    double leaseS(const sim::View& view, int j, int t) const;
    void explainWaiting(sim::Decision& decision, const std::vector<int>& active, const std::vector<char>& chosen);
    ReasonMemo m_reasons;
    std::vector<Ran> m_lastRound;
    double m_lastResetS = 0;
    bool m_needUpdate = false;
    int m_arrived = 0;
    util::PythonRandom m_rng;
    bool m_rngSeeded = false;
};

} // namespace orrery::sched

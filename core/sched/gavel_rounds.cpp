#include "sched/gavel_rounds.h"

#include "sim/reference_scaling.h"
#include "util/mostly_sorted.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace orrery::sched {

namespace {
constexpr double kNoShareYet = 1e9; // Gavel's stand-in for "infinitely behind" that still scales with X
constexpr double kNoLease = std::numeric_limits<double>::infinity();
} // namespace

double GavelRounds::leaseS(const sim::View& view, int j, int t) const
{
    // The engine's whole steps per round under gavel_compat: min(floor(rate x round), steps left) / rate.
    const double rate = view.workload().rate(j, t);
    const double perRound = std::floor(rate * view.options().roundS);
    if (!m_cfg.gavelQuirks || perRound < 1)
        return kNoLease;
    return std::min(perRound, std::round(view.remainingWork(j))) / rate;
}

void GavelRounds::ensureSize(const sim::View& view)
{
    if (m_types)
        return;
    m_types = static_cast<std::size_t>(view.typeCount());
    const auto cells = static_cast<std::size_t>(view.jobCount()) * m_types;
    m_jobTime.assign(cells, 0);
    m_deficit.assign(cells, 0);
    m_x.assign(cells, 0);
    m_inAlloc.assign(static_cast<std::size_t>(view.jobCount()), 0);
    m_workerTime.assign(m_types, 0);
    m_chosen.assign(static_cast<std::size_t>(view.jobCount()), 0);
    m_pickedType.assign(static_cast<std::size_t>(view.jobCount()), -1);
}

void GavelRounds::onArrival(const sim::View& view, int j)
{
    ensureSize(view);
    ++m_arrived;
    // A new job starts as if it had already run half a round on every type (Gavel's initial value).
    for (std::size_t t = 0; t < m_types; ++t)
        at(m_jobTime, j, static_cast<int>(t)) = view.options().roundS / 2;
    m_needUpdate = true;
}

void GavelRounds::onCompletion(const sim::View& /*view*/, int /*j*/)
{
    m_needUpdate = true;
}

void GavelRounds::reset(const sim::View& view, const std::vector<int>& active)
{
    const double now = view.nowS();
    const double elapsed = now - m_lastResetS;
    const double half = view.options().roundS / 2;
    std::fill(m_workerTime.begin(), m_workerTime.end(), 0.0);
    for (int j : active)
        for (std::size_t t = 0; t < m_types; ++t) {
            const int ti = static_cast<int>(t);
            const double received = at(m_jobTime, j, ti) - half;
            const double owed = m_inAlloc[static_cast<std::size_t>(j)] ? at(m_x, j, ti) * elapsed : 0.0;
            at(m_deficit, j, ti) += owed - received;
            at(m_jobTime, j, ti) = half;
            m_workerTime[t] += half;
        }
    m_lastResetS = now;

    std::vector<double> x(active.size() * m_types, 0.0);
    m_allocate(view, active, x);
    for (std::size_t k = 0; k < active.size(); ++k) {
        const int j = active[k];
        m_inAlloc[static_cast<std::size_t>(j)] = 1;
        for (std::size_t t = 0; t < m_types; ++t)
            at(m_x, j, static_cast<int>(t)) = std::clamp(x[k * m_types + t], 0.0, 1.0);
    }
    m_needUpdate = false;
}

void GavelRounds::schedule(sim::Decision& decision)
{
    const sim::View& view = decision.view();
    ensureSize(view);
    const double now = view.nowS();
    const auto& w = view.workload();

    // 1. Time received in the round that just ended (to its end, or the job's completion).
    for (const auto& r : m_lastRound) {
        const double end = view.status(r.job) == sim::JobStatus::Done ? view.endS(r.job) : now;
        // Gavel credits a job the time its own steps took, not the whole round (docs/simulator.md).
        const double ran = std::max(0.0, std::min(end, r.sinceS + r.leaseS) - r.sinceS);
        at(m_jobTime, r.job, r.type) += ran;
        m_workerTime[static_cast<std::size_t>(r.type)] += ran;
    }
    const bool nothingRan = m_lastRound.empty();
    m_lastRound.clear();

    std::vector<int> active(view.queued().begin(), view.queued().end());
    active.insert(active.end(), view.running().begin(), view.running().end());
    std::sort(active.begin(), active.end());

    // 2. Recompute the allocation when the job set changed, at most every minResetS.
    if (m_cfg.gavelQuirks && nothingRan && m_arrived == view.jobCount())
        m_lastResetS = 0;
    if (m_needUpdate && (now - m_lastResetS >= m_cfg.minResetS || m_lastResetS == 0 || !m_cfg.gavelQuirks))
        reset(view, active);

    // 3. Type order: fastest first (Gavel's v100, p100, k80), shuffled for throughput-agnostic policies.
    std::vector<int> types(m_types);
    std::iota(types.begin(), types.end(), 0);
    std::stable_sort(types.begin(), types.end(), [&](int a, int b) {
        return sim::ReferenceScaling::speed(w.type(a)) > sim::ReferenceScaling::speed(w.type(b));
    });
    if (m_cfg.shuffleTypes) {
        // Gavel's scheduler shuffles with its own random.Random(seed + 5), reproduced draw for draw.
        if (!m_rngSeeded) {
            m_rng = util::PythonRandom(view.seed() + 5);
            m_rngSeeded = true;
        }
        m_rng.shuffle(types);
    }

    // 4. Priorities, and the greedy pass per type in priority order.
    struct Entry
    {
        int job;
        double priority, deficit, x;
    };
    std::vector<int> left(m_types);
    for (std::size_t t = 0; t < m_types; ++t)
        left[t] = view.totalGpus(static_cast<int>(t));
    // Per job, whether a type picked it and which: set for the last round's picks only, so only those are reset
    // (a round costs the active jobs, not the trace's).
    for (const auto& [j, t] : m_picks) {
        m_chosen[static_cast<std::size_t>(j)] = 0;
        m_pickedType[static_cast<std::size_t>(j)] = -1;
    }
    m_picks.clear();
    std::vector<char>& chosen = m_chosen;
    std::vector<std::pair<int, int>>& picks = m_picks; // (job, type)
    // Entries with priority 0 rank below every other (the first key), so they are sorted only when the greedy pass
    // reaches them: the same order as sorting all, in two parts. Gavel's FIFO policies never run them.
    std::vector<Entry> ranked, unranked;
    const auto byPriority = [](const Entry& a, const Entry& b) {
        if (a.priority != b.priority)
            return a.priority > b.priority;
        if (a.deficit != b.deficit)
            return a.deficit > b.deficit;
        return a.x > b.x;
    };
    for (int t : types) {
        ranked.clear();
        unranked.clear();
        const double total = m_workerTime[static_cast<std::size_t>(t)];
        for (int j : active) {
            double priority = 0;
            const double x = m_inAlloc[static_cast<std::size_t>(j)] ? at(m_x, j, t) : 0.0;
            if (x > 0 && w.rate(j, t) > 0) {
                const double share = total > 0 ? at(m_jobTime, j, t) / total : 0.0;
                priority = share > 0 ? x / share : x * kNoShareYet;
            }
            (priority > 0 ? ranked : unranked).push_back({j, priority, at(m_deficit, j, t), x});
        }
        int& gpusLeft = left[static_cast<std::size_t>(t)];
        const auto take = [&](const std::vector<Entry>& entries) {
            for (const auto& e : entries) {
                if (gpusLeft == 0)
                    break;
                if (chosen[static_cast<std::size_t>(e.job)] || w.rate(e.job, t) <= 0)
                    continue;
                const int demand = w.demandOn(e.job, t);
                if (demand > gpusLeft)
                    continue;
                gpusLeft -= demand;
                chosen[static_cast<std::size_t>(e.job)] = 1;
                picks.emplace_back(e.job, t);
            }
        };
        std::stable_sort(ranked.begin(), ranked.end(), byPriority);
        take(ranked);
        if (gpusLeft > 0 && !m_cfg.skipZeroPriority) {
            std::stable_sort(unranked.begin(), unranked.end(), byPriority);
            take(unranked);
        }
    }

    // 5. Placement: keep continuing jobs where they are, release the others, then place the rest,
    //    largest first to limit fragmentation.
    std::vector<int>& pickedType = m_pickedType;
    for (const auto& [j, t] : picks)
        pickedType[static_cast<std::size_t>(j)] = t;
    const std::vector<int> running = view.running();
    for (int j : running)
        if (pickedType[static_cast<std::size_t>(j)] != view.typeOf(j))
            decision.release(j);
    // (a mixed job released here may get the same GPUs back in step 6: no restart is charged then)
    // Often in order already (Gavel's traces: mostly one GPU per job).
    util::stableSortMostlySorted(picks.begin(), picks.end(), [&](const auto& a, const auto& b) {
        return w.demandOn(a.first, a.second) > w.demandOn(b.first, b.second);
    });
    for (const auto& [j, t] : picks) {
        if (!view.gpusOf(j).empty()) {
            m_lastRound.push_back({j, t, now, leaseS(view, j, t)});
            continue;
        }
        if (m_cfg.gavelQuirks && !m_inAlloc[static_cast<std::size_t>(j)])
            continue; // counted in the greedy pass, never dispatched (Gavel)
        if (decision.place(j, t))
            m_lastRound.push_back({j, t, now, leaseS(view, j, t)});
    }

    // 6. Jobs larger than any single type they can run on never fit the per-type pass; give them a mix of
    //    types from what is left, in priority (index) order. Their time is booked on their first GPU's type.
    for (int j : active) {
        if (chosen[static_cast<std::size_t>(j)] || !view.gpusOf(j).empty())
            continue;
        bool fitsOneType = false;
        for (int t = 0; t < view.typeCount() && !fitsOneType; ++t)
            fitsOneType = w.allowed(j, t) && view.totalGpus(t) >= w.demandOn(j, t);
        if (fitsOneType || (m_cfg.gavelQuirks && !m_inAlloc[static_cast<std::size_t>(j)]))
            continue;
        if (decision.place(j, -1))
            m_lastRound.push_back({j, w.typeOfGpu(view.gpusOf(j).front()), now, kNoLease});
    }

    explainWaiting(decision, active, chosen);
}

void GavelRounds::explainWaiting(sim::Decision& decision, const std::vector<int>& active,
                                 const std::vector<char>& chosen)
{
    const sim::View& view = decision.view();
    const auto& w = view.workload();
    enum Kind { NotInAllocation, Unplaced, NeedsMix, NoShare, Outranked, KindCount };
    for (int j : active) {
        if (!view.gpusOf(j).empty()) {
            m_reasons.running(j);
            continue;
        }
        // Formatting is the cost here, so a job is told again only when its kind or type changes: the
        // texts carry no numbers that move from round to round.
        int kind = Outranked;
        int type = -1;
        if (m_cfg.gavelQuirks && !m_inAlloc[static_cast<std::size_t>(j)])
            kind = NotInAllocation;
        else if (chosen[static_cast<std::size_t>(j)])
            kind = Unplaced;
        else {
            bool fitsOneType = false;
            double most = 0;
            for (int t = 0; t < view.typeCount(); ++t) {
                fitsOneType = fitsOneType || (w.allowed(j, t) && view.totalGpus(t) >= w.demandOn(j, t));
                const double x = m_inAlloc[static_cast<std::size_t>(j)] ? at(m_x, j, t) : 0.0;
                if (x > most && w.rate(j, t) > 0) {
                    most = x;
                    type = t;
                }
            }
            kind = !fitsOneType ? NeedsMix : type < 0 ? NoShare : Outranked;
        }
        if (!m_reasons.changed(j, kind + KindCount * (type + 1)))
            continue;
        switch (kind) {
        case NotInAllocation:
            decision.explain(j, fmt::format("arrived after the policy's allocation was last computed (at most every "
                                            "{:g} s in Gavel's rounds); waits for the next one",
                                            m_cfg.minResetS));
            break;
        case Unplaced:
            decision.explain(j, "chosen this round, but its GPUs could not be placed");
            break;
        case NeedsMix:
            decision.explain(j, fmt::format("larger than any one GPU type it may use (needs {}); waits for a mix "
                                            "of the GPUs a round leaves over",
                                            needsText(view, j)));
            break;
        case NoShare:
            decision.explain(j, "the policy's allocation gives it no GPU time for now (Gavel's rounds); it runs "
                                "once the allocation changes");
            break;
        default:
            decision.explain(j, fmt::format("outranked this round on {}, where the policy's allocation gives it "
                                            "most time: each type's GPUs go first to the jobs owed the largest "
                                            "share of time against what they received (Gavel's rounds)",
                                            w.type(type).name));
        }
    }
}

} // namespace orrery::sched

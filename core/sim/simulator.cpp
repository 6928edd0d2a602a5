#include "sim/engine.h"

#include <chrono>

namespace orrery::sim {

namespace detail {

namespace {

enum class Mode { Events, Rounds, GavelRounds };

// A run that makes no decision that changes anything this many times in a row, with nothing running and
// nothing left to arrive, can never finish.
constexpr int kMaxIdleDecisions = 10000;

} // namespace

RunResult Engine::run()
{
    const auto wallStart = std::chrono::steady_clock::now();
    const int n = w.jobCount();
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j)
        order[static_cast<std::size_t>(j)] = j;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return w.job(a).arrivalS < w.job(b).arrivalS; });
    std::size_t nextArrival = 0;
    auto arrivalTime = [&](std::size_t k) { return w.job(order[k]).arrivalS; };

    const double policyRound = policy.roundS(policyOptions);
    const Mode mode = opt.gavelCompat ? Mode::GavelRounds : policyRound > 0 ? Mode::Rounds : Mode::Events;
    const double roundS = mode == Mode::GavelRounds ? opt.roundS : policyRound;
    if (n > 0) {
        if (mode == Mode::Rounds)
            heap.push({std::ceil(arrivalTime(0) / roundS) * roundS, Tick, -1, 0});
        else if (mode == Mode::GavelRounds)
            heap.push({arrivalTime(0), Boundary, -1, 0});
    }
    result.utilization.push_back({0, 0, std::vector<int>(static_cast<std::size_t>(w.typeCount()), 0)});

    int idleDecisions = 0;
    std::uint64_t loops = 0;
    while (done < n) {
        if ((++loops & 1023) == 0) {
            if (progress.stopRequested()) {
                result.cancelled = true;
                break;
            }
            progress(static_cast<double>(done) / n);
            if (onPartial)
                onPartial(result);
        }
        double tNext = std::numeric_limits<double>::infinity();
        if (nextArrival < order.size())
            tNext = arrivalTime(nextArrival);
        if (!heap.empty())
            tNext = std::min(tNext, heap.top().t);
        if (!std::isfinite(tNext))
            fail(fmt::format("{} job(s) wait with nothing running and nothing left to happen", queued.size()));
        now = std::max(now, tNext);

        bool trigger = false, tick = false, wake = false, boundary = false;
        while (!heap.empty() && heap.top().t <= now) {
            const Event ev = heap.top();
            heap.pop();
            ++result.events;
            switch (ev.kind) {
            case Completion:
                if (status[static_cast<std::size_t>(ev.job)] == JobStatus::Running &&
                    version[static_cast<std::size_t>(ev.job)] == ev.version) {
                    finish(ev.job);
                    trigger = true;
                }
                break;
            case Tick:
                tick = true;
                break;
            case Wakeup:
                wake = true;
                break;
            case ProfileEnd:
                // Every mode decides when profiling ends: the job waits for the policy's verdict.
                if (status[static_cast<std::size_t>(ev.job)] == JobStatus::Profiling &&
                    version[static_cast<std::size_t>(ev.job)] == ev.version) {
                    profileDue.push_back(ev.job);
                    wake = true;
                }
                break;
            default:
                boundary = true;
                break;
            }
        }
        while (nextArrival < order.size() && arrivalTime(nextArrival) <= now) {
            const int j = order[nextArrival++];
            const auto i = static_cast<std::size_t>(j);
            status[i] = JobStatus::Queued;
            remaining[i] = w.job(j).work;
            progressAt[i] = now;
            listAdd(queued, queuePos, j);
            ++result.events;
            policy.onArrival(view, j);
            trigger = true;
        }

        const bool wanted = !profileDue.empty()         ? true
                            : mode == Mode::GavelRounds ? boundary
                            : mode == Mode::Rounds      ? (tick || wake)
                                                        : (trigger || wake);
        if (wanted && (!queued.empty() || !running.empty())) {
            const std::size_t runningBefore = running.size();
            decide();
            if (running.empty() && runningBefore == 0 && nextArrival == order.size() && !queued.empty()) {
                if (++idleDecisions > kMaxIdleDecisions)
                    fail(fmt::format("{} job(s) wait, but the policy starts none and nothing else can happen",
                                     queued.size()));
            } else {
                idleDecisions = 0;
            }
        }

        if (mode == Mode::Rounds && tick) {
            if (!queued.empty() || !running.empty())
                heap.push({now + roundS, Tick, -1, 0});
            else if (nextArrival < order.size())
                heap.push(
                    {now + std::max(1.0, std::ceil((arrivalTime(nextArrival) - now) / roundS)) * roundS, Tick, -1, 0});
        } else if (mode == Mode::GavelRounds && boundary) {
            // Gavel's round lasts until the last job of the round has run its lease (or finished early);
            // with nothing running, the next round starts at the next arrival.
            if (!running.empty()) {
                double end = now;
                for (int j : running) {
                    end = std::max(end, gavelLeaseEnd(j, roundS));
                    roundStartRemaining[static_cast<std::size_t>(j)] = remainingAt(j);
                }
                heap.push({end, Boundary, -1, 0});
            } else if (nextArrival < order.size()) {
                heap.push({arrivalTime(nextArrival), Boundary, -1, 0});
            } else if (!queued.empty()) {
                heap.push({now, Boundary, -1, 0});
            }
        }
        sampleUtilization();
    }

    // A cancelled run: close what is still open so the intervals stay consistent.
    for (int j = 0; j < n; ++j) {
        closeSegment(j);
        if (!gpus[static_cast<std::size_t>(j)].empty())
            addPause(j, gpus[static_cast<std::size_t>(j)].size());
        for (int g : gpus[static_cast<std::size_t>(j)])
            closeInterval(g, j);
    }
    for (int j = 0; j < n; ++j) {
        auto& rec = result.jobs[static_cast<std::size_t>(j)];
        rec.startS = startS[static_cast<std::size_t>(j)];
        rec.endS = endS[static_cast<std::size_t>(j)];
        result.makespanS = std::max({result.makespanS, rec.endS, rec.droppedS});
    }
    std::sort(result.intervals.begin(), result.intervals.end(),
              [](const auto& a, const auto& b) { return a.gpu != b.gpu ? a.gpu < b.gpu : a.startS < b.startS; });
    progress(1.0);
    result.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return std::move(result);
}

} // namespace detail

RunResult simulate(const PreparedWorkload& workload, Policy& policy, std::uint64_t seed, const util::Progress& progress,
                   const PartialResultFn& onPartial)
{
    detail::Engine engine(workload, policy, seed, progress, onPartial);
    return engine.run();
}

} // namespace orrery::sim

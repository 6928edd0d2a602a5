#include "metrics/wait_reasons.h"

#include <algorithm>

namespace orrery::metrics {

namespace {

/** Counting sort by job: `first` gets each job's offset (size jobs + 1), items keep their order within a job. */
template <typename Item, typename JobOf>
std::vector<Item> groupByJob(const std::vector<Item>& items, std::size_t jobs, JobOf jobOf,
                             std::vector<std::size_t>& first)
{
    first.assign(jobs + 1, 0);
    for (const Item& it : items)
        ++first[static_cast<std::size_t>(jobOf(it)) + 1];
    for (std::size_t j = 0; j < jobs; ++j)
        first[j + 1] += first[j];
    std::vector<Item> out(items.size());
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (const Item& it : items)
        out[next[static_cast<std::size_t>(jobOf(it))]++] = it;
    return out;
}

} // namespace

WaitReasons::WaitReasons(const sim::RunResult& run) : m_run(&run)
{
    const std::size_t jobs = run.jobs.size();
    const auto valid = [jobs](int j) { return j >= 0 && static_cast<std::size_t>(j) < jobs; };
    std::vector<int> reasons;
    for (std::size_t e = 0; e < run.jobEvents.size(); ++e)
        if (run.jobEvents[e].kind == sim::JobEventKind::Reason && valid(run.jobEvents[e].job))
            reasons.push_back(static_cast<int>(e));
    // Events are in time order, so each job's reasons stay in time order.
    m_events = groupByJob(
        reasons, jobs, [&](int e) { return run.jobEvents[static_cast<std::size_t>(e)].job; }, m_firstEvent);

    std::vector<std::pair<int, double>> starts;
    if (!reasons.empty())
        for (const auto& iv : run.intervals)
            if (valid(iv.job))
                starts.emplace_back(iv.job, iv.startS);
    auto grouped = groupByJob(
        starts, jobs, [](const std::pair<int, double>& s) { return s.first; }, m_firstStart);
    m_starts.reserve(grouped.size());
    for (const auto& s : grouped)
        m_starts.push_back(s.second);
    for (std::size_t j = 0; j < jobs; ++j)
        std::sort(m_starts.begin() + static_cast<std::ptrdiff_t>(m_firstStart[j]),
                  m_starts.begin() + static_cast<std::ptrdiff_t>(m_firstStart[j + 1]));
}

std::string_view WaitReasons::at(int job, double timeS) const
{
    if (job < 0 || static_cast<std::size_t>(job) + 1 >= m_firstEvent.size())
        return {};
    const auto j = static_cast<std::size_t>(job);
    const auto begin = m_events.begin() + static_cast<std::ptrdiff_t>(m_firstEvent[j]);
    const auto end = m_events.begin() + static_cast<std::ptrdiff_t>(m_firstEvent[j + 1]);
    // The last reason given at or before t.
    const auto it = std::upper_bound(
        begin, end, timeS, [this](double t, int e) { return t < m_run->jobEvents[static_cast<std::size_t>(e)].timeS; });
    if (it == begin)
        return {};
    const auto& event = m_run->jobEvents[static_cast<std::size_t>(*std::prev(it))];
    // A start since the reason (up to t) ended the wait it explained. Reasons are given to waiting jobs only, so
    // a start at the reason's own instant came after it (the same decision, or a later one at that instant).
    const auto sBegin = m_starts.begin() + static_cast<std::ptrdiff_t>(m_firstStart[j]);
    const auto sEnd = m_starts.begin() + static_cast<std::ptrdiff_t>(m_firstStart[j + 1]);
    const auto s = std::lower_bound(sBegin, sEnd, event.timeS);
    if (s != sEnd && *s <= timeS)
        return {};
    return event.detail;
}

std::vector<std::pair<double, std::string_view>> WaitReasons::of(int job) const
{
    std::vector<std::pair<double, std::string_view>> out;
    if (job < 0 || static_cast<std::size_t>(job) + 1 >= m_firstEvent.size())
        return out;
    const auto j = static_cast<std::size_t>(job);
    for (std::size_t k = m_firstEvent[j]; k < m_firstEvent[j + 1]; ++k) {
        const auto& e = m_run->jobEvents[static_cast<std::size_t>(m_events[k])];
        out.emplace_back(e.timeS, e.detail);
    }
    return out;
}

} // namespace orrery::metrics

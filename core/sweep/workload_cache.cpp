#include "sweep/workload_cache.h"

#include "sim/prepare_scenario.h"

#include <optional>

namespace orrery::sweep {

sim::PreparedWorkload prepareResolved(const ResolvedScenario& scenario)
{
    if (scenario.edits.empty())
        return sim::prepareScenario(scenario.scenario);
    return sim::prepareScenario(scenario.scenario,
                                [&](std::vector<workload::Job>& jobs) { scenario.edits.apply(jobs); });
}

void WorkloadCache::expect(const ResolvedScenario& scenario, std::size_t uses)
{
    std::lock_guard lock(m_mutex);
    m_entries[scenario.workloadKey].uses += uses;
}

std::shared_ptr<const sim::PreparedWorkload> WorkloadCache::get(const ResolvedScenario& scenario)
{
    // A promise (a shared state on the heap) only for the thread that prepares: the others, once per point, take the
    // prepared workload and go.
    std::optional<std::promise<std::shared_ptr<const sim::PreparedWorkload>>> promise;
    std::shared_future<std::shared_ptr<const sim::PreparedWorkload>> future;
    {
        std::lock_guard lock(m_mutex);
        Entry& e = m_entries[scenario.workloadKey];
        if (!e.started) {
            e.started = true;
            promise.emplace();
            e.future = promise->get_future().share();
        }
        future = e.future;
    }
    if (promise) {
        try {
            promise->set_value(std::make_shared<const sim::PreparedWorkload>(prepareResolved(scenario)));
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }
    return future.get();
}

void WorkloadCache::release(const ResolvedScenario& scenario)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_entries.find(scenario.workloadKey);
    if (it == m_entries.end())
        return;
    if (it->second.uses <= 1)
        m_entries.erase(it);
    else
        --it->second.uses;
}

std::size_t WorkloadCache::held() const
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const auto& [key, e] : m_entries)
        n += e.started ? 1 : 0;
    return n;
}

} // namespace orrery::sweep

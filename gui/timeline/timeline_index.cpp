#include "timeline/timeline_index.h"

#include <algorithm>
#include <cmath>

namespace orrery::gui {

TimelineIndex::TimelineIndex(std::shared_ptr<const sim::RunResult> run) : m_run(std::move(run))
{
    if (!m_run)
        return;
    const auto& iv = m_run->intervals;
    int gpus = m_run->totalGpus;
    for (const auto& i : iv)
        gpus = std::max(gpus, i.gpu + 1);
    m_byGpu.resize(static_cast<std::size_t>(gpus));
    m_byJob.resize(m_run->jobs.size());
    for (std::size_t k = 0; k < iv.size(); ++k) {
        const auto& i = iv[k];
        if (i.gpu < 0 || i.endS < i.startS)
            continue;
        m_byGpu[static_cast<std::size_t>(i.gpu)].push_back(static_cast<int>(k));
        if (i.job >= 0 && static_cast<std::size_t>(i.job) < m_byJob.size())
            m_byJob[static_cast<std::size_t>(i.job)].push_back(static_cast<int>(k));
    }
    m_maxEnd.resize(m_byGpu.size());
    for (std::size_t g = 0; g < m_byGpu.size(); ++g) {
        auto& list = m_byGpu[g];
        std::sort(list.begin(), list.end(), [&](int a, int b) {
            return iv[static_cast<std::size_t>(a)].startS < iv[static_cast<std::size_t>(b)].startS;
        });
        auto& ends = m_maxEnd[g];
        ends.reserve(list.size());
        double m = -INFINITY;
        for (int k : list) {
            m = std::max(m, iv[static_cast<std::size_t>(k)].endS);
            ends.push_back(m);
        }
    }
}

std::span<const int> TimelineIndex::intervalsOfGpu(int gpu) const
{
    if (gpu < 0 || gpu >= gpuCount())
        return {};
    return m_byGpu[static_cast<std::size_t>(gpu)];
}

std::span<const int> TimelineIndex::intervalsOfJob(int job) const
{
    if (job < 0 || static_cast<std::size_t>(job) >= m_byJob.size())
        return {};
    return m_byJob[static_cast<std::size_t>(job)];
}

std::span<const int> TimelineIndex::visible(int gpu, double t0, double t1) const
{
    if (gpu < 0 || gpu >= gpuCount())
        return {};
    const auto& list = m_byGpu[static_cast<std::size_t>(gpu)];
    const auto& ends = m_maxEnd[static_cast<std::size_t>(gpu)];
    const auto& iv = m_run->intervals;
    // First interval that can reach past t0; last one starting before t1.
    const auto first = std::upper_bound(ends.begin(), ends.end(), t0) - ends.begin();
    const auto last = std::lower_bound(list.begin() + first, list.end(), t1,
                                       [&](int k, double t) { return iv[static_cast<std::size_t>(k)].startS < t; }) -
                      list.begin();
    return std::span<const int>(list).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(last - first));
}

int TimelineIndex::intervalAt(int gpu, double t) const
{
    const auto& iv = m_run ? m_run->intervals : std::vector<sim::AllocationInterval>{};
    for (int k : visible(gpu, t, std::nextafter(t, INFINITY))) {
        const auto& i = iv[static_cast<std::size_t>(k)];
        if (i.startS <= t && t < i.endS)
            return k;
    }
    return -1;
}

std::vector<TimelineBar> TimelineIndex::bars(int gpu, const TimelineGeometry& geometry) const
{
    std::vector<TimelineBar> out;
    if (!m_run)
        return out;
    const auto& iv = m_run->intervals;
    int painted = -1; // last pixel column already covered
    for (int k : visible(gpu, geometry.viewStartS, geometry.viewEndS)) {
        const auto& i = iv[static_cast<std::size_t>(k)];
        int x0 = static_cast<int>(std::floor(geometry.timeToX(i.startS)));
        int x1 = static_cast<int>(std::ceil(geometry.timeToX(i.endS)));
        x0 = std::max(x0, 0);
        x1 = std::min(x1, geometry.widthPx);
        if (x1 <= x0)
            x1 = x0 + 1;
        if (!out.empty() && out.back().job == i.job && x0 <= out.back().x1) {
            out.back().x1 = std::max(out.back().x1, x1);
            painted = out.back().x1 - 1;
            continue;
        }
        if (x1 - 1 <= painted)
            continue; // entirely inside columns already painted: merged away
        x0 = std::max(x0, painted + 1);
        out.push_back({x0, x1, i.job});
        painted = x1 - 1;
    }
    return out;
}

} // namespace orrery::gui

#pragma once

#include "sim/run_result.h"
#include "timeline/timeline_geometry.h"

#include <memory>
#include <span>
#include <vector>

namespace orrery::gui {

/** One drawn bar after culling and merging: pixel columns [x0, x1), the job it shows. */
struct TimelineBar
{
    int x0 = 0;
    int x1 = 0;
    int job = 0;
    bool operator==(const TimelineBar&) const = default;
};

/**
 * Interval lookups over a run, built once per run: per GPU, interval indices
 * sorted by start with a running maximum of the ends, so "what overlaps
 * [t0, t1)" is a binary search even if a GPU's intervals were to overlap.
 */
class TimelineIndex
{
public:
    TimelineIndex() = default;
    explicit TimelineIndex(std::shared_ptr<const sim::RunResult> run);

    const sim::RunResult* run() const { return m_run.get(); }
    int gpuCount() const { return static_cast<int>(m_byGpu.size()); }
    std::span<const int> intervalsOfGpu(int gpu) const;
    std::span<const int> intervalsOfJob(int job) const;
    /** Intervals of `gpu` overlapping [t0, t1). */
    std::span<const int> visible(int gpu, double t0, double t1) const;
    /** The interval of `gpu` covering time t, or -1. */
    int intervalAt(int gpu, double t) const;

    /**
     * Bars for one row: culled to the window and merged so that at most one
     * bar starts in any pixel column (a sub-pixel bar whose column is already
     * painted is dropped; touching bars of one job become one).
     */
    std::vector<TimelineBar> bars(int gpu, const TimelineGeometry& geometry) const;

private:
    std::shared_ptr<const sim::RunResult> m_run;
    std::vector<std::vector<int>> m_byGpu;
    std::vector<std::vector<double>> m_maxEnd; // running max of end over m_byGpu order
    std::vector<std::vector<int>> m_byJob;
};

} // namespace orrery::gui

#pragma once

// AlpaServe's headline measures (§6.1: at 99% SLO attainment, the fewest devices, the highest rate, the most
// burstiness, the tightest SLO) found by search (docs/serving.md, "Thresholds at 99% attainment"). Each probe is a
// whole run of the method on the spec with one input changed: the placement is searched again for every probe, as
// the paper's placement knows the traffic it serves. The search narrows a bracket [meets, misses] geometrically,
// with several probes per round on a thread pool.

#include "serve/serving_spec.h"
#include "util/progress.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::serve {

enum class ThresholdMetric { Devices, Rate, Cv, SloScale };

/** devices, rate, cv, slo-scale (the CLI's words). */
std::string thresholdMetricName(ThresholdMetric metric);
std::optional<ThresholdMetric> thresholdMetricFromName(const std::string& name);
/** Whether attainment grows with the metric (devices, SLO scale) or falls (rate, CV). */
bool attainmentRises(ThresholdMetric metric);
/** `spec` with the metric's input set to `value` (devices: the GPU count, rounded; a trace: its rate / CV scale). */
ServingSpec withThresholdValue(ServingSpec spec, ThresholdMetric metric, double value);

struct ThresholdOptions
{
    double target = 0.99;
    double lo = 0; ///< the range searched, 0 < lo < hi
    double hi = 0;
    /** Stop when hi / lo of the bracket is at most 1 + this (devices: also when they are adjacent integers). */
    double relativeTolerance = 0.05;
    int maxRounds = 12;
    /** Values probed per round, spread geometrically inside the bracket and run in parallel (1: bisection). */
    int probesPerRound = 1;
    /** Worker threads shared by every probe of every method's search. */
    int threads = 1;
    /** End a probe's placement search at the first placement meeting the target (SearchOptions::stopAt). */
    bool stopAtTarget = true;
};

struct ThresholdProbe
{
    double value = 0;
    double attainment = 0;
    /** 95% half-width of the attainment by batch means: the requests in 10 consecutive batches (docs/serving.md). */
    double halfWidth = 0;
    long long requests = 0;
    double searchS = 0;
    bool meets = false;
};

struct ThresholdResult
{
    std::string method;
    ThresholdMetric metric = ThresholdMetric::Rate;
    double target = 0.99;
    /** The best value that met the target (the threshold, to the tolerance); empty when even the easiest end missed. */
    std::optional<double> value;
    /** The value next to it that missed; empty when the hardest end of the range met (the threshold is past it). */
    std::optional<double> missed;
    std::vector<ThresholdProbe> probes; ///< in the order they were run, rounds in order
    double wallS = 0;                   ///< of the whole call: every method's search ran in it, together
};

/**
 * One search per method, all at once on options.threads workers. Errors of the spec (a bad model, a range with
 * lo >= hi) are orrery::Error; `progress` gets the share of rounds done and its stop token ends the searches
 * (orrery::Cancelled) within one request simulation.
 */
std::vector<ThresholdResult> searchThresholds(const ServingSpec& base, ThresholdMetric metric,
                                              const std::vector<std::string>& methods, const ThresholdOptions& options,
                                              const util::Progress* progress = nullptr);

/** Batch means: the 95% half-width of the mean of `values` split into `batches` consecutive equal batches. */
double batchMeansHalfWidth(const std::vector<double>& values, int batches = 10);

} // namespace orrery::serve

#pragma once

// SLO attainment along one input (rate, CV or SLO scale) for several placement methods: the curves of AlpaServe's
// Figures 11-12 (docs/serving.md, "Attainment curves"), what the GUI's Serving panel draws. Each point is a whole
// placement search and simulation (runServing) of the spec with that one input changed.

#include "serve/serving_spec.h"
#include "util/progress.h"

#include <string>
#include <vector>

namespace orrery::serve {

enum class CurveAxis { Rate, Cv, SloScale };

/** `rate_per_s`, `cv`, `slo_scale`: the spec field the axis changes (of a trace: `rate_scale`, `cv_scale`). */
std::string curveAxisField(CurveAxis axis, bool trace = false);
/** "total rate (req/s)", "CV", "SLO scale" (of a trace: its rate or CV scale): an axis title with its unit. */
std::string curveAxisTitle(CurveAxis axis, bool trace = false);

/** `spec` with the axis's input set to `value`. With a trace, Rate and Cv set the trace's rate and CV scales. */
ServingSpec withAxisValue(ServingSpec spec, CurveAxis axis, double value);

struct AttainmentCurves
{
    CurveAxis axis = CurveAxis::Rate;
    /** The spec's traffic was a trace: the rate and CV values are multiples of the trace's fitted ones. */
    bool trace = false;
    std::vector<double> values;
    std::vector<std::string> methods;
    std::vector<std::vector<double>> attainment; ///< [method][value], in [0, 1]
};

/**
 * values x methods runs, method by method and value by value. `progress` gets the fraction of points done (and
 * within a point, its search's share); a stop request ends the point being searched within one simulation and
 * throws orrery::Cancelled.
 */
AttainmentCurves attainmentCurves(const ServingSpec& base, CurveAxis axis, const std::vector<double>& values,
                                  const std::vector<std::string>& methods, const util::Progress* progress = nullptr);

} // namespace orrery::serve

#include "serve/attainment_curves.h"

#include "io/error.h"
#include "serve/serving_run.h"

#include <algorithm>

namespace orrery::serve {

std::string curveAxisField(CurveAxis axis, bool trace)
{
    switch (axis) {
    case CurveAxis::Rate:
        return trace ? "rate_scale" : "rate_per_s";
    case CurveAxis::Cv:
        return trace ? "cv_scale" : "cv";
    case CurveAxis::SloScale:
        return "slo_scale";
    }
    return {};
}

std::string curveAxisTitle(CurveAxis axis, bool trace)
{
    switch (axis) {
    case CurveAxis::Rate:
        return trace ? "rate scale (x the trace's fitted rates)" : "total rate (req/s)";
    case CurveAxis::Cv:
        return trace ? "CV scale (x the trace's fitted CVs)" : "CV of inter-arrival times";
    case CurveAxis::SloScale:
        return "SLO scale";
    }
    return {};
}

ServingSpec withAxisValue(ServingSpec spec, CurveAxis axis, double value)
{
    switch (axis) {
    case CurveAxis::Rate:
        (spec.usesTrace() ? spec.rateScale : spec.ratePerS) = value;
        break;
    case CurveAxis::Cv:
        (spec.usesTrace() ? spec.cvScale : spec.cv) = value;
        break;
    case CurveAxis::SloScale:
        spec.sloScale = value;
        break;
    }
    return spec;
}

AttainmentCurves attainmentCurves(const ServingSpec& base, CurveAxis axis, const std::vector<double>& values,
                                  const std::vector<std::string>& methods, const util::Progress* progress)
{
    AttainmentCurves curves;
    curves.axis = axis;
    curves.trace = base.usesTrace();
    curves.values = values;
    curves.methods = methods;
    const double total = static_cast<double>(values.size() * methods.size());
    std::size_t done = 0;
    for (const auto& method : methods) {
        std::vector<double> line;
        for (double v : values) {
            if (progress && progress->stopRequested())
                throw Cancelled();
            ServingSpec spec = withAxisValue(base, axis, v);
            spec.method = method;
            util::Progress point;
            if (progress) {
                point.stop = progress->stop;
                point.report = [progress, done, total](double f) {
                    (*progress)((static_cast<double>(done) + std::clamp(f, 0.0, 1.0)) / total);
                };
            }
            line.push_back(runServing(spec, progress ? &point : nullptr).attainment());
            ++done;
            if (progress)
                (*progress)(static_cast<double>(done) / total);
        }
        curves.attainment.push_back(std::move(line));
    }
    return curves;
}

} // namespace orrery::serve

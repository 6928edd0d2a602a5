#pragma once

#include <vector>

namespace orrery::serve {

/** One inference query. */
struct Request
{
    double arrivalS = 0;
    int model = 0; ///< index into the model list the workload was made for
};

/** Queries of several models, in arrival order (ties keep the order they were generated in). */
struct Workload
{
    std::vector<Request> requests;
    int models = 0;
    double durationS = 0; ///< the span the arrivals were drawn over
    /** Requests per model. */
    std::vector<long long> countsPerModel() const;
    /** The requests in [beginS, endS), times unchanged. */
    Workload slice(double beginS, double endS) const;
    /** Only the requests of models for which keep[model] is true. */
    Workload only(const std::vector<bool>& keep) const;
};

} // namespace orrery::serve

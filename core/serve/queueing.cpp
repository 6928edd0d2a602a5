#include "serve/queueing.h"

#include <limits>

namespace orrery::serve::queueing {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
/** The M/D/1 waiting time in queue (excluding service) with service `d`. */
double queueWait(double lambda, double d)
{
    const double rho = lambda * d;
    return rho >= 1 ? kInf : lambda * d * d / (2 * (1 - rho));
}
} // namespace

double mdOneWait(double lambda, double serviceS)
{
    return serviceS + queueWait(lambda, serviceS);
}

double twoModelSimpleWait(double lambda, double p, double serviceS)
{
    // A request is of model 1 with probability p and waits in that model's M/D/1 queue.
    return serviceS + p * queueWait(p * lambda, serviceS) + (1 - p) * queueWait((1 - p) * lambda, serviceS);
}

double twoModelPipelineWait(double lambda, double singleS, double maxStageS)
{
    return singleS + queueWait(lambda, maxStageS);
}

} // namespace orrery::serve::queueing

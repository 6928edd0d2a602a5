#include "provision/cost_model.h"

#include <cmath>

namespace orrery::provision {

double activeRatio(int microBatches, int stages)
{
    return static_cast<double>(microBatches) / (microBatches + stages - 1);
}

double lowerIterationS(double workFlops, double ratio, double sumRates)
{
    if (sumRates <= 0 || ratio <= 0)
        return INFINITY;
    return workFlops / (ratio * sumRates);
}

double trainingCost(int iterations, double iterationS, double pricePerHour)
{
    return iterations * iterationS * pricePerHour / 3600.0;
}

} // namespace orrery::provision

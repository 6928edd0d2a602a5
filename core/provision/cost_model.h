#pragma once

namespace orrery::provision {

/** Eq. (6): the share of an iteration a GPU is busy under GPipe-style bubbles, m / (m + k - 1). */
double activeRatio(int microBatches, int stages);

/** Eq. (5): communication-free iteration time of `workFlops` on GPUs whose achieved rates (FLOP/s) sum to `sumRates`.
 */
double lowerIterationS(double workFlops, double activeRatio, double sumRates);

/** Eq. (7) / Eq. (1): z iterations of `iterationS` on GPUs costing `pricePerHour` in total. */
double trainingCost(int iterations, double iterationS, double pricePerHour);

} // namespace orrery::provision

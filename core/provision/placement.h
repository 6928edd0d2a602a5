#pragma once

#include "provision/pipeline_model.h"

#include <cmath>
#include <functional>
#include <vector>

namespace orrery::provision {

/** A stage placement 𝒢 of a plan's GPUs, with its estimated iteration time. */
struct Placement
{
    bool valid = false;
    std::vector<Stage> stages;
    double iterationS = INFINITY;
};

/**
 * A stage placer: orders the plan's k GPU types (one entry per stage, any
 * order on input) and splits the layers among them. It may return an invalid
 * placement instead of one whose iteration time would not be below `cutoffS`
 * (the search passes what a plan needs to beat the incumbent and the SLO).
 */
using Placer = std::function<Placement(const PipelineModel&, const std::vector<int>& types, double cutoffS)>;

/** Spreads `rem` more layers over stages 1..k-1 round-robin within l_m, or trims a surplus from the back. */
bool adjustToCoverAllLayers(const PipelineModel& model, std::vector<Stage>& stages);

/**
 * Fills in iterationS (and valid) for stages that respect the memory limits and
 * cover all layers; invalid too when it cannot beat `cutoffS` (checked by a lower bound first).
 */
Placement scorePlacement(const PipelineModel& model, std::vector<Stage> stages, double cutoffS = INFINITY);

} // namespace orrery::provision

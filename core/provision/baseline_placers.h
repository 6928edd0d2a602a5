#pragma once

#include "provision/placement.h"

#include <vector>

namespace orrery::provision {

/** Whale⁺: stages by decreasing memory; layers proportional to F(t), capped by l_m and spilled forward. */
Placement whalePlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS = INFINITY);

/** The order HPH⁺ uses: ascending compute F(t) (ties: smaller memory, then type index). */
std::vector<int> hphOrder(const PipelineModel& model, std::vector<int> types);
/** The order Whale⁺ uses: decreasing memory (ties: larger F(t), then type index). */
std::vector<int> whaleOrder(const PipelineModel& model, std::vector<int> types);

/**
 * HPH⁺: stages by ascending compute; layers by an integer program solved with
 * COIN-OR CBC that minimises the slowest stage's forward+backward time under
 * the memory limits, then scored by the 1F1B estimator.
 */
Placement hphPlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS = INFINITY);

/** Sia⁺: homogeneous stages, an even split with the remainder on the last stages. */
Placement evenPlace(const PipelineModel& model, const std::vector<int>& types);

} // namespace orrery::provision

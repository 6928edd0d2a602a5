#pragma once

#include "workload/duration_distribution.h"
#include "workload/model_library.h"
#include "workload/workload.h"

#include <cstdint>
#include <vector>

namespace orrery::workload {

/** The sustained throughput the generator assumes: 40% of an A100's 312 TFLOP/s dense BF16. */
inline constexpr double kReferenceFlopsPerS = 0.4 * 312e12;

/**
 * Iterations per second of a serverless job on the generator's reference: one
 * iteration costs 6 x P x B x s FLOPs (forward and backward over B samples of s
 * tokens, P parameters), run at kReferenceFlopsPerS. Only turns a drawn
 * duration into an amount of work; the simulator times the work with the
 * estimators. `seq` 0 = the model's default.
 */
double referenceIterationsPerS(const ModelSpec& model, int globalBatch, int seq = 0);

/**
 * Expands a generator: `spec.jobs` jobs with Poisson arrivals at
 * `spec.ratePerHour` (the first at t = 0, then exponential gaps; rate 0 puts
 * every job at t = 0), each of a mix entry drawn by weight. Durations come from
 * `durations`, clamped to [minDurationS, maxDurationS]. A serverless entry
 * (model + batches) draws a batch uniformly and gets iterations =
 * ceil(duration x referenceIterationsPerS); a fixed entry draws a GPU count
 * uniformly and gets durationS on the scenario's reference GPU. Ids are `g0`,
 * `g1`... Deterministic for a seed, on every platform.
 */
std::vector<Job> generateJobs(const GeneratorSpec& spec, std::uint64_t seed, const ModelLibrary& models,
                              const DurationDistribution& durations);

} // namespace orrery::workload

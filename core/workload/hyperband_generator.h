#pragma once

#include "workload/job.h"
#include "workload/workload.h"

#include <cstdint>
#include <vector>

namespace orrery::workload {

/**
 * Expands a `hyperband` workload (Themis' Workload 2 pattern; docs/scenario-format.md): `spec.apps` apps with
 * Poisson arrivals at `spec.appsPerHour` (the first at t = 0). App a draws its model from Table 4's mix (CV 10%,
 * NLP 60%, speech 30%, a model uniform within its category), n = 2^U{1..log2 maxConfigs} configurations and a
 * budget B uniform in [0.5, 2] x budgetGpuHours serial GPU-hours. Successive halving runs P = log2 n + 1 phases;
 * phase p gives each of its n / 2^(p-1) surviving configurations B / (P x n / 2^(p-1)) of serial work (whole
 * iterations of the model's serial iteration time, at least one). Configuration r (its hidden rank) survives while
 * r < n / 2^(p-1): it is one job with the work of its phases, elastic 1..2^(last phase - 1) GPUs, `gpus` its cap
 * and its duration on the reference GPU at that cap. Deterministic for a seed, on every platform. With
 * `spec.networkShare` the model is instead uniform among the network-intensive models for the round(share x apps)
 * apps of the lowest category draws and among the compute-intensive ones for the others (Figure 15's sweep: the
 * same arrivals, configurations and budgets at every share).
 */
std::vector<Job> generateHyperbandApps(const HyperbandSpec& spec, std::uint64_t seed);

} // namespace orrery::workload

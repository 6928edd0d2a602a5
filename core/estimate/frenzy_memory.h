#pragma once

#include "estimate/plan.h"

namespace orrery::estimate {

/** Frenzy's parameter count (sec. IV-A): W = V h + l (12 h^2 + 13 h); GPT-2 blocks, tied head, no positions. */
double frenzyParamCount(const workload::ModelSpec& model);

/**
 * MARP's per-GPU requirement in bytes: 20 W / t of static memory (mixed-precision
 * Adam) plus Korthikanti's s b h l (10 + 24/t + 5 a s / (h t)) with b = B / d
 * (config.microBatch when set). FrenzyLiteral divides the activations by d once
 * more, as the paper's printed condition does. Frenzy has no pipeline: pp > 1
 * divides the static term by pp and leaves the activations (the first stage holds
 * p micro-batches of l/p layers). Precision, optimizer, recomputation and the
 * other options of `config` are not part of the paper's formula and are ignored.
 */
double frenzyRequiredBytes(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                           const Parallelism& par, MemoryMode mode = MemoryMode::Frenzy);

} // namespace orrery::estimate

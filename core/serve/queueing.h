#pragma once

// The closed forms of AlpaServe §3.4 (M/D/1 queues), used to check the request simulator and to reason
// about when pipelining pays (docs/serving.md, "Queueing").

namespace orrery::serve::queueing {

/** M/D/1 mean time in system, W = D + λD² / (2(1 − λD)); +infinity when λD >= 1. */
double mdOneWait(double lambda, double serviceS);

/** Two models on two dedicated devices, rates pλ and (1 − p)λ, service D each (mean over requests). */
double twoModelSimpleWait(double lambda, double p, double serviceS);

/**
 * Both models pipelined over both devices: W = D_s + λD_m² / (2(1 − λD_m)), D_s the single-query latency
 * and D_m the largest stage.
 */
double twoModelPipelineWait(double lambda, double singleS, double maxStageS);

} // namespace orrery::serve::queueing

#pragma once

#include <string>
#include <vector>

namespace orrery::sim {

/**
 * One pipeline stage of a plan: the GPUs it runs on, the layers it holds and how it splits them (Crius' Cell
 * stages, each with its own DP x TP).
 */
struct StageLayout
{
    int type = -1;  ///< sim GPU type (PreparedWorkload numbering), -1 = unspecified
    int gpus = 0;   ///< GPUs of the stage
    int layers = 0; ///< layers it holds, 0 = unspecified
    int dp = 0;     ///< data-parallel degree inside the stage, 0 = unspecified
    int tp = 0;     ///< tensor-parallel degree inside the stage, 0 = unspecified
    bool operator==(const StageLayout&) const = default;
};

/**
 * How a job runs on the GPUs it is given (docs/simulator.md, "Plans and progress-dependent rates"): its
 * batch, its parallelism and optionally a layout per pipeline stage. Every field's zero value means "the
 * job's own" (unspecified), so the default plan is today's behaviour: the source's rate for the job as
 * declared. The engine keeps a running job's plan; only throughput sources that read plans give it
 * meaning (Sia and Pollux: a batch size per allocation; Crius: per-stage layouts).
 */
struct Plan
{
    int globalBatch = 0; ///< samples per iteration over all replicas
    int microBatch = 0;  ///< samples per micro-batch of one replica
    int dp = 0;          ///< data-parallel degree
    int tp = 0;          ///< tensor-parallel degree
    int pp = 0;          ///< pipeline stages
    std::vector<StageLayout> stages;

    /** Whether this is the default plan (every field unspecified). */
    bool empty() const
    {
        return globalBatch == 0 && microBatch == 0 && dp == 0 && tp == 0 && pp == 0 && stages.empty();
    }
    bool operator==(const Plan&) const = default;
};

/** A short text form for messages and records, e.g. "batch=256 dp=4 tp=2 pp=1 stages=[0x4:12,1x4:12]"; "" when empty.
 */
std::string toString(const Plan& plan);

} // namespace orrery::sim

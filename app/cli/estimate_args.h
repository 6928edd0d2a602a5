#pragma once

// Options shared by `memory`, `throughput` and `plan`: the model and how it trains.

#include "cli.h"

#include "estimate/plan.h"
#include "workload/model_spec.h"
#include "workload/training_config.h"

#include <string>

namespace orrery::cli {

struct EstimateArgs
{
    std::string model;
    int seq = 0;
    int batch = 0;
    int microBatch = 0;
    int dp = 1;
    int tp = 1;
    int pp = 1;
    int ep = 1;
    int cp = 1;
    int zero = 0;
    std::string recompute = "none";
    std::string precision = "bf16";
    std::string optimizer = "adam";
    bool flashAttention = false;
    bool sequenceParallel = false;
    bool autocast = false;
    bool fp32Grads = false;
    bool fp8 = false;
    std::string framework = "megatron";
    bool pureHalf = false;
    bool offloadOptimizer = false;
    int virtualStages = 1;
    std::string mode = "full";
    std::string gpu;
    bool json = false;
};

/** --model, --seq, --batch, --micro-batch and the numerics/memory options; `layout` adds --dp/--tp/--pp/--ep/--cp. */
void addTrainingOptions(CLI::App* cmd, EstimateArgs& args, bool layout);
/** Validated TrainingConfig; bad values throw orrery::Error naming the option. */
workload::TrainingConfig trainingConfig(const EstimateArgs& args);
estimate::Parallelism parallelism(const EstimateArgs& args);
/** Checks `par` against the model and config (interleaving, experts, context), naming the option at fault
 *  (--ep, --cp) in the error. */
void checkLayoutOptions(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                        const estimate::Parallelism& par);
estimate::MemoryMode memoryMode(const std::string& mode);
/** A model by library name or JSON file (the file's errors name the key). */
workload::ModelSpec loadModel(const std::string& nameOrFile);

} // namespace orrery::cli

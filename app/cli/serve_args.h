#pragma once

// The inputs `orrery-cli serve place|simulate|threshold` share: the models, cluster, traffic, SLO and runtime
// options, read into one ServingSpec (docs/serving.md).

#include "cli.h"

#include "serve/serving_spec.h"

#include <cstdint>
#include <string>

namespace orrery::cli {

/** The spec's own defaults, which the options' defaults are (one place for them: serve/serving_spec.h). */
inline const serve::ServingSpec kSpecDefaults{};

struct ServeArgs
{
    std::string models;
    std::string set;
    std::string library;
    std::string gpu = kSpecDefaults.gpu;
    int gpus = kSpecDefaults.gpus;
    double memoryBudgetGB = kSpecDefaults.memoryBudgetGB;
    bool noCalibrate = !kSpecDefaults.calibrate;
    double rate = kSpecDefaults.ratePerS;
    double cv = kSpecDefaults.cv;
    double powerLaw = kSpecDefaults.powerLaw;
    double durationS = kSpecDefaults.durationS;
    std::uint64_t seed = kSpecDefaults.seed;
    std::string db;
    std::string trace;
    int windowMin = kSpecDefaults.windowMin;
    double rateScale = kSpecDefaults.rateScale;
    double cvScale = kSpecDefaults.cvScale;
    double sloScale = kSpecDefaults.sloScale;
    int maxBatch = kSpecDefaults.maxBatch;
    bool equalLayerSplit = !kSpecDefaults.autoPartition;
    bool json = false;
    // place
    std::string algorithm = kSpecDefaults.method;
    int beam = kSpecDefaults.beam;
    double fastAbove = kSpecDefaults.fastAbove;
    double windowS = kSpecDefaults.windowS;
    std::string output;
    int maxBuckets = kSpecDefaults.maxBuckets;
    // simulate
    std::string placement;
    int cdfPoints = 20;
};

/** The run's inputs from the options, each checked under its option's name. */
serve::ServingSpec specOf(const ServeArgs& a);
/** Throws orrery::Error naming `option` unless `method` is AlpaServe, a baseline or an ablation variant. */
void checkMethod(const std::string& option, const std::string& method);
/** The options every serve subcommand takes (models, cluster, traffic, SLO, runtime, --json; --db if `storable`). */
void addCommonOptions(CLI::App* cmd, ServeArgs& a, bool storable = true);
/** `serve threshold` (cmd_serve_threshold.cpp), under `serve`. */
void registerServeThreshold(CLI::App* serve);

} // namespace orrery::cli

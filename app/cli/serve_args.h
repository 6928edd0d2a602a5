#pragma once

// The inputs `orrery-cli serve place|simulate|threshold` share: the models, cluster, traffic, SLO and runtime
// options, read into one ServingSpec (docs/serving.md).

#include "cli.h"

#include "serve/serving_spec.h"

#include <cstdint>
#include <string>

namespace orrery::cli {

struct ServeArgs
{
    std::string models;
    std::string set;
    std::string library;
    std::string gpu = "v100-16gb";
    int gpus = 64;
    double memoryBudgetGB = 0;
    bool noCalibrate = false;
    double rate = 20;
    double cv = 3;
    double powerLaw = 0;
    double durationS = 600;
    std::uint64_t seed = 1;
    std::string db;
    std::string trace;
    int windowMin = 60;
    double rateScale = 1;
    double cvScale = 1;
    double sloScale = 5;
    int maxBatch = 1;
    bool equalLayerSplit = false;
    bool json = false;
    // place
    std::string algorithm = "alpaserve";
    int beam = 1;
    double fastAbove = 2e7;
    double windowS = 60;
    std::string output;
    int maxBuckets = 2;
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

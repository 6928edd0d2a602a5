#pragma once

#include "workload/training_config.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::workload {

/**
 * How a job states what it needs.
 * - Serverless: a model and a training config; Orrery picks the GPUs (Frenzy).
 *   Work is `iterations` of `config.globalBatch` samples.
 * - Fixed: a GPU count (and optionally a type). Work is either `durationS`
 *   seconds measured on `referenceGpu` (Philly/Helios/PAI traces), or
 *   `iterations` steps of a throughput-table job type (`jobType`, Gavel).
 */
enum class JobKind { Serverless, Fixed };

struct Job
{
    std::string id;
    double arrivalS = 0;
    std::string user;
    double priority = 1.0;
    std::optional<double> deadlineS; ///< absolute time by which it should finish

    JobKind kind = JobKind::Fixed;

    // Serverless
    std::string model; ///< model library name (or a scenario's custom model)
    TrainingConfig config;

    // Fixed
    int gpus = 1;
    std::string gpuType;      ///< required type; empty = any
    double durationS = 0;     ///< measured run time on referenceGpu with `gpus` GPUs
    std::string referenceGpu; ///< empty = the scenario's reference GPU
    std::string jobType;      ///< throughput-table key (Gavel job type)
    int scaleFactor = 1;      ///< Gavel: GPUs the job type was profiled with

    double iterations = 0; ///< serverless and table jobs

    // Elastic range (docs/simulator.md, "Elastic jobs"); 0 / empty = not declared: a fixed job runs on exactly
    // `gpus`, a serverless job on any count its plans allow.
    int minGpus = 0;
    int maxGpus = 0;
    std::vector<int> allowedGpus; ///< the only counts it accepts (sorted), within [minGpus, maxGpus]
    std::string arch;             ///< model architecture of a fixed job (vgg16), for locality tables

    bool operator==(const Job&) const = default;
};

} // namespace orrery::workload

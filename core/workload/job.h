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
 *   seconds measured on `referenceGpu` (Philly/Helios/PAI traces),
 *   `iterations` steps of a throughput-table job type (`jobType`, Gavel), or
 *   the samples of progress of a goodput `application` (Pollux/Sia workloads).
 */
enum class JobKind { Serverless, Fixed };

/** A deadline (absolute time) and the reward earned when the job finishes by it (docs/simulator.md, SLOs). */
struct Deadline
{
    double atS = 0;
    double reward = 1;
    bool operator==(const Deadline&) const = default;
};

struct Job
{
    std::string id;
    double arrivalS = 0;
    std::string user;
    double priority = 1.0;
    std::optional<double> deadlineS; ///< absolute time by which it should finish

    // SLOs and user-given limits (docs/simulator.md, "Deadlines and SLOs", "Estimates versus truth").
    double reward = 1;                 ///< earned when it finishes by deadlineS
    std::vector<Deadline> deadlines;   ///< several deadlines, each with its reward (instead of deadlineS)
    std::string sloClass;              ///< empty: none
    std::optional<double> maxRuntimeS; ///< the user's stated maximum run time (requested time), not its true work
    /** Every deadline of the job, earliest first: deadlineS with `reward`, or `deadlines`. */
    std::vector<Deadline> allDeadlines() const;

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

    // Goodput jobs (Pollux/Sia workloads, docs/models/goodput.md): a fixed job whose work and rates come from the
    // application's goodput profiles (options.goodput_profiles) instead of durationS or a throughput table.
    std::string application; ///< profile directory name (cifar10, bert, ...); empty = not a goodput job
    int batchSize = 0;       ///< the global batch it was tuned for (the plan's batch when a policy gives none)

    // Elastic range (docs/simulator.md, "Elastic jobs"); 0 / empty = not declared: a fixed job runs on exactly
    // `gpus`, a serverless job on any count its plans allow.
    int minGpus = 0;
    int maxGpus = 0;
    std::vector<int> allowedGpus; ///< the only counts it accepts (sorted), within [minGpus, maxGpus]
    std::string arch;             ///< model architecture of a fixed job (vgg16), for locality tables
    /** The app it belongs to (Themis: a hyper-parameter search is one app of many jobs); empty: its own app.
     *  An app finishes when its last job does (docs/simulator.md, "Apps"). */
    std::string app;

    bool operator==(const Job&) const = default;
};

} // namespace orrery::workload

#pragma once

#include "hardware/cluster.h"
#include "sim/run_result.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace orrery::gui {

/** One stretch of a job on a fixed set of GPUs. */
struct JobAllocation
{
    double startS = 0;
    double endS = 0;
    std::vector<int> gpus;  ///< global GPU indices, ascending
    QStringList nodes;      ///< node names, in GPU order (empty without a cluster)
    QString gpuTypes;       ///< "8 x A100 40GB SXM" or "4 x A100 + 4 x RTX 2080 Ti"
    double samplesPerS = 0; ///< mean training samples per second over it (goodput runs); 0 when not recorded
};

/** Everything a job details panel shows of one job, read from the run. */
struct JobDetails
{
    int index = -1;
    sim::JobRecord record;
    std::optional<double> waitS;            ///< first start - arrival; empty when it never started
    std::optional<double> jctS;             ///< end - arrival; empty when it did not finish
    std::vector<JobAllocation> allocations; ///< in time order
    std::vector<sim::JobEvent> events;      ///< suspensions, resumptions, plans, drops, in time order
};

/** The details of job `job` of `run` (nodes and types named from `cluster` when given). */
JobDetails jobDetails(const sim::RunResult& run, int job, const hardware::Cluster* cluster);

/** The job whose id is `id` (exact match), or -1. */
int findJobById(const sim::RunResult& run, const QString& id);

/** Job j's training samples per second averaged over [fromS, toS] (its rate segments; goodput sources record
 *  them); 0 when the run does not say. */
double meanSamplesPerS(const sim::RunResult& run, int job, double fromS, double toS);

/** The batch size the policy last chose for job j (its `batch` note, Sia's batch tuning); empty when none. */
QString chosenBatch(const sim::RunResult& run, int job);

/** The details as HTML for a QTextBrowser: summary, allocations table, events. */
QString jobDetailsHtml(const JobDetails& details);

} // namespace orrery::gui

#pragma once

#include "workload/job.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::workload {

class GavelThroughputTable;

/** The two tab-separated layouts of Gavel's `.trace` files. */
enum class GavelTraceLayout {
    /// 10 columns, Gavel HEAD: job_type, command, working_directory, num_steps_arg,
    /// needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time.
    Current,
    /// 7 columns, the 2019 Philly-derived `traces/msr/` files: job_type, command,
    /// num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor.
    Msr,
};

struct GavelTraceOptions
{
    /// First N jobs only (the rest of the file is not read).
    std::optional<int> limit;
    /// Isolated steps/s of (job type, scale factor) on Gavel's reference worker
    /// (v100), as in Gavel's throughput table. Needed only to turn a row's SLO
    /// into a deadline; a row with an SLO and no throughput is an error.
    std::function<std::optional<double>(const std::string& jobType, int scaleFactor)> referenceStepsPerS;
};

/**
 * Reads a Gavel trace. Each row becomes a Fixed job, numbered like Gavel numbers
 * them (id = 0-based row index), with jobType (the throughput-table key, e.g.
 * `ResNet-18 (batch size 64)`), scaleFactor and gpus = scale factor, iterations =
 * total steps, arrivalS, priority = priority weight, and, when SLO > 0, deadlineS
 * = arrival + SLO x (total steps / reference steps/s): Gavel's SLO is a multiple
 * of the job's isolated run time on a V100. SLO < 0 (Gavel writes -1) means none.
 * The command, working directory, steps flag and data-dir flag only drive Gavel's
 * physical runs; they are checked and dropped.
 *
 * The layout is detected from the first row's column count; every row must
 * match it. Errors read `FILE:LINE: field: problem`.
 */
std::vector<Job> parseGavelTrace(std::string_view text, const std::string& fileLabel,
                                 const GavelTraceOptions& options = {});
std::vector<Job> readGavelTrace(const std::string& path, const GavelTraceOptions& options = {});

/** The layout of a trace's first non-blank row; nullopt for an empty file. Throws on another column count. */
std::optional<GavelTraceLayout> detectGavelTraceLayout(std::string_view text, const std::string& fileLabel);

/**
 * The `referenceStepsPerS` lookup from a Gavel throughput table
 * (`simulation_throughputs.json`): the isolated (`"null"`) steps/s of
 * `('<job type>', <scale factor>)` on `v100`, Gavel's reference worker.
 * Throws when the table has no V100 row.
 */
std::function<std::optional<double>(const std::string&, int)>
gavelReferenceRates(std::shared_ptr<const GavelThroughputTable> table);

} // namespace orrery::workload

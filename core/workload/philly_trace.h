#pragma once

#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <string_view>

namespace orrery::workload {

/**
 * Reads Pollux's Philly job list (`philly.csv`: timestamp, duration, num_gpus,
 * gpu_time, cluster; columns by name). Each row becomes a Fixed job: id =
 * `philly-<row>` (0-based, file order), user = the Philly VC (`cluster`; the
 * file has no user column, and the VC is the tenant Philly's quotas were set
 * for), gpus = num_gpus, arrivalS = timestamp minus the earliest timestamp,
 * durationS = duration. Rows with 0 GPUs or 0 s are skipped and counted.
 */
TraceRead parsePhillyCsv(std::string_view text, const std::string& fileLabel, std::optional<int> limit = {});

/**
 * Reads Philly's `cluster_job_log` (JSON: one array of jobs with attempts).
 * Like Pollux, Helios and Chronus derive it: durationS = last attempt's end -
 * first attempt's start, gpus = GPUs of the first attempt (summed over its
 * machines), arrivalS = submitted_time minus the earliest submitted_time, id =
 * jobid, user = user. A missing time may be null, "None" or "". Jobs with no
 * attempts, a first attempt that never started, or a last attempt still running
 * at the snapshot (no end_time) are skipped and counted; so are jobs that took
 * 0 GPUs or 0 s. Every status (Pass, Killed, Failed) is kept.
 */
TraceRead parsePhillyJobLog(std::string_view text, const std::string& fileLabel, std::optional<int> limit = {});

/** Either Philly form, told apart by the first character (`[` = JSON job log). */
TraceRead readPhillyTrace(const std::string& path, std::optional<int> limit = {});

} // namespace orrery::workload

#pragma once

#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <string_view>

namespace orrery::workload {

/**
 * Reads a Helios `cluster_log.csv` (SenseTime, SC'21), columns by name; extra
 * columns (`jobname`, `vc`...) are ignored. Each GPU job becomes a Fixed job:
 * id = job_id, user = user, gpus = gpu_num, arrivalS = submit_time minus the
 * earliest submit_time of the file, durationS = `duration` (end - start; when
 * the column is absent, end_time - start_time). Jobs of every final state are
 * kept: a cancelled or failed job held its GPUs all the same. CPU-only jobs
 * (gpu_num 0) and jobs that ran for 0 s are skipped and counted.
 */
TraceRead parseHeliosLog(std::string_view text, const std::string& fileLabel, std::optional<int> limit = {});
TraceRead readHeliosLog(const std::string& path, std::optional<int> limit = {});

} // namespace orrery::workload

#pragma once

#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <string_view>

namespace orrery::workload {

/**
 * Reads a Pollux (OSDI'21) or Sia (SOSP'23) workload CSV, header `name,time,application,num_replicas,batch_size`
 * (columns found by name, any order). Each row becomes a fixed job: id = name, arrivalS = time (seconds from
 * the window start, integer in Pollux's files, fractional in Sia's), gpus = num_replicas (the "TunedJobs"
 * request a rigid baseline gives it), application (a goodput profile directory name: cifar10, bert, ...) and
 * batchSize = batch_size (the global batch the job was tuned for). Its work and rates come from the goodput
 * throughput source (docs/models/goodput.md), not from the file. Errors read `FILE:LINE: field: problem`.
 * Jobs are returned sorted by arrival; `limit` keeps the earliest.
 */
TraceRead parsePolluxWorkload(std::string_view text, const std::string& fileLabel, std::optional<int> limit = {});
TraceRead readPolluxWorkload(const std::string& path, std::optional<int> limit = {});

} // namespace orrery::workload

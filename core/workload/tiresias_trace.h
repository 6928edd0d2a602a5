#pragma once

#include "hardware/cluster.h"
#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::workload {

/**
 * Reads a job trace of Tiresias' simulator (Gu et al., NSDI'19; SymbioticLab/Tiresias `simulator/`): a CSV with at
 * least `job_id,num_gpu,submit_time,duration` (columns found by name; `60_job.csv` adds iterations, model_name and
 * interval, `tf_job.csv` start_time, model_size and more, which Tiresias' GPU-counting schedulers do not use and
 * neither does Orrery). Each row is a fixed job (a repeated job_id is a second job, as Tiresias reads it): id = job_id,
 * arrivalS = submit_time, gpus = num_gpu, durationS = duration (seconds the job runs once started, on the cluster's one
 * GPU type: the trace's reference GPU). Errors read `FILE:LINE: field: problem`. Jobs are returned sorted by arrival;
 * `limit` keeps the earliest.
 */
TraceRead parseTiresiasTrace(std::string_view text, const std::string& fileLabel, std::optional<int> limit = {});
TraceRead readTiresiasTrace(const std::string& path, std::optional<int> limit = {});

/**
 * A Tiresias cluster spec (`cluster_spec.csv`, `n32g4.csv`, ...: one row of `num_switch,num_node_p_switch,
 * num_gpu_p_node,num_cpu_p_node,mem_p_node`) as one node group of num_switch x num_node_p_switch nodes of
 * num_gpu_p_node GPUs of `gpuType`, racks named after the switches (`switch-0`, ...). CPU and memory are read
 * past (Tiresias' dlas schedulers count GPUs only).
 */
std::vector<hardware::NodeGroup> parseTiresiasClusterSpec(std::string_view text, const std::string& fileLabel,
                                                          const std::string& gpuType);
std::vector<hardware::NodeGroup> readTiresiasClusterSpec(const std::string& path, const std::string& gpuType);

} // namespace orrery::workload

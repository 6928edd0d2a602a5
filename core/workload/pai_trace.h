#pragma once

#include "hardware/cluster.h"
#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <string_view>

namespace orrery::workload {

/**
 * Reads Alibaba PAI 2020 (`cluster-trace-gpu-v2020`, NSDI'22). Its tables have no
 * header line: the column names come from the `.header` file beside each table
 * (`pai_task_table.csv` -> `pai_task_table.header`; a first line holding the
 * names is accepted too). GPU demand lives in the task table, so that is the
 * trace; the job table, when given, adds the submission time and the user.
 *
 * Per job (tasks grouped by job_name): gpus = ceil(sum of inst_num x plan_gpu /
 * 100) (plan_gpu is percent of one GPU, so a half-GPU task takes a whole GPU);
 * durationS = last task end - first task start; arrivalS = the job table's
 * start_time (the submission) or, without it, the first task start, minus the
 * earliest over the file; referenceGpu = the gpu_type of its GPU tasks (P100 ->
 * p100, T4 -> t4, V100 -> v100-16gb, V100M32 -> v100-32gb, MISC, the older
 * K40m/K80/M60 machines -> k80); id = job_name; user from the job table. Jobs
 * without GPU tasks, never started, still running, or of zero length are skipped
 * and counted. Every status is kept (a failed job held its GPUs).
 */
struct PaiTables
{
    std::string taskTable; ///< text of pai_task_table
    std::string taskLabel;
    std::optional<std::string> taskHeader; ///< text of its .header, if any
    std::optional<std::string> jobTable;   ///< text of pai_job_table, if given
    std::string jobLabel;
    std::optional<std::string> jobHeader;
};
TraceRead parsePaiTrace(const PaiTables& tables, std::optional<int> limit = {});
/** Reads the tables (and their `.header` files beside them); `jobTablePath` may be empty. */
TraceRead readPaiTrace(const std::string& taskTablePath, const std::string& jobTablePath = {},
                       std::optional<int> limit = {});

/**
 * PAI's machine table (`pai_machine_spec.csv`: machine, gpu_type, cap_cpu,
 * cap_mem, cap_gpu; headerless, names from its `.header`) as node groups, one per
 * (GPU type, GPUs per machine), types mapped as for jobs; CPU-only machines
 * are left out.
 */
struct PaiMachines
{
    std::vector<hardware::NodeGroup> groups;
    int machines = 0; ///< GPU machines
    int cpuOnly = 0;
    int gpus = 0;
};
PaiMachines parsePaiMachines(const std::string& text, const std::string& label,
                             const std::optional<std::string>& header);
PaiMachines readPaiMachines(const std::string& path);

/** `dir/stem.header` for `dir/stem.anything.csv`: where PAI keeps a table's column names. */
std::string paiHeaderPath(const std::string& tablePath);

} // namespace orrery::workload

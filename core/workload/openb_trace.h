#pragma once

#include "hardware/cluster.h"
#include "hardware/gpu_type.h"
#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::workload {

/**
 * The GPU types of Alibaba's openb trace that the built-in catalog lacks: the
 * undisclosed internal models G1, G2 and G3, as custom types `openb-g1`...
 * (aliases `G1`...). Their figures are not published; Orrery gives them the
 * V100-16GB's datasheet figures and says so in `source`. P100, T4, A10,
 * V100M16 and V100M32 resolve in the catalog itself (V100M16/V100M32 are
 * aliases of v100-16gb/v100-32gb).
 */
std::vector<hardware::GpuType> openbCustomGpus();
/** The catalog plus openbCustomGpus(). */
hardware::GpuCatalog openbCatalog();

/** An openb node list as node groups: one group per (GPU model, GPUs per node), CPU-only nodes left out. */
struct OpenbNodes
{
    std::vector<hardware::NodeGroup> groups;
    int nodes = 0;        ///< GPU nodes
    int cpuOnlyNodes = 0; ///< skipped
    int gpus = 0;
};

OpenbNodes parseOpenbNodes(std::string_view text, const std::string& fileLabel);
OpenbNodes readOpenbNodes(const std::string& path);

/**
 * Reads an openb pod list (`openb_pod_list_*.csv`, columns by name). Each GPU
 * pod becomes a Fixed job: id = pod name, gpus = num_gpu (a GPU-sharing pod,
 * gpu_milli < 1000, takes one whole GPU: Orrery allocates whole GPUs),
 * arrivalS = creation_time, durationS = deletion_time - scheduled_time (for
 * Pending pods, which never started, deletion_time - creation_time: the time the
 * request stood), gpuType and referenceGpu = the one allowed type when gpu_spec
 * names exactly one (several allowed types leave the job unconstrained).
 * CPU-only pods and pods of zero length are skipped and counted. The
 * `multigpu*` variants carry no times and are rejected.
 */
TraceRead parseOpenbPods(std::string_view text, const std::string& fileLabel, std::optional<int> limit = {});
TraceRead readOpenbPods(const std::string& path, std::optional<int> limit = {});

} // namespace orrery::workload

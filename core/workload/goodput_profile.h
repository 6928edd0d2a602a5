#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::workload {

/** One measured configuration of a placements or scalability file: seconds per iteration on it. */
struct ProfileRow
{
    int nodes = 1;       ///< nodes the replicas spread over
    int replicas = 1;    ///< GPUs (one data-parallel replica each)
    double localBsz = 0; ///< per-GPU batch
    double stepS = 0;    ///< whole iteration (compute + gradient sync)
    double syncS = 0;    ///< the sync part
    int line = 0;        ///< where it came from, for messages
};

/** One epoch of a validation run at a global batch: progress so far and the gradient statistics then. */
struct ValidationRow
{
    double progress = 0;  ///< statistical-efficiency-weighted progress (iterations at the initial batch)
    double iteration = 0; ///< iterations done at this batch
    double metric = 0;
    double gradSqr = 0; ///< |g|^2 estimate
    double gradVar = 0; ///< gradient variance estimate
};

/**
 * An application's profiles as Pollux's and Sia's artifacts ship them (sia/profiles/<app>/): per GPU-type
 * suffix ("" for Pollux's originals, "aws", "rtx", "dgx-ext", ...) the rows of placements[-S].csv and
 * scalability[-S].csv, and the validation-<global batch>.csv runs. Columns are found by name (their order
 * varies between files). Errors read `FILE:LINE: field: problem`.
 */
struct GoodputProfile
{
    std::string application;                              ///< the directory's name
    std::map<std::string, std::vector<ProfileRow>> rows;  ///< per suffix: placements rows, then scalability rows
    std::map<int, std::vector<ValidationRow>> validation; ///< per global batch, in epoch order
};

/** Reads every placements, scalability and validation file in `dir`; a directory without validation files or
 *  without any placements file is an error naming it. */
GoodputProfile readGoodputProfile(const std::string& dir);

/** Parses one placements or scalability file (`placement` digits or `num_nodes`/`num_replicas` columns). */
std::vector<ProfileRow> parseProfileRows(std::string_view text, const std::string& fileLabel);
/** Parses one validation file. */
std::vector<ValidationRow> parseValidationRows(std::string_view text, const std::string& fileLabel);

/**
 * The profile suffix measured on a catalog GPU (the artifacts' simulator_config.py): t4 -> "aws" (g4dn.12xlarge),
 * v100-32gb -> "azure" (ND40rs_v2), a100-40gb-sxm -> "dgx-ext" (DGX-A100, extended batches), quadro-rtx6000 ->
 * "quad", rtx2080ti -> "rtx"; "" (none) for any other GPU, which goodput jobs cannot run on.
 */
std::string profileSuffixForGpu(std::string_view catalogName);

} // namespace orrery::workload

#pragma once

#include <CLI/CLI.hpp>

namespace orrery::cli {

/** `sweep submit`, `sweep status` and `sweep collect`: the Slurm backend of sweeps (docs/sweeps.md, "Slurm"). */
void registerSweepSlurmCommands(CLI::App* sweep);

} // namespace orrery::cli

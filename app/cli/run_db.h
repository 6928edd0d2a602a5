#pragma once

#include "store/run_store.h"

#include <CLI/CLI.hpp>

#include <string>

namespace orrery::cli {

/** Adds `--db FILE` (default: the XDG data directory's orrery.sqlite) to a subcommand. */
CLI::Option* addDbOption(CLI::App* cmd, std::string& path);

/**
 * Opens the run store. `mustExist`: commands that only read refuse a missing
 * file (exit 2) instead of creating an empty store. The default location's
 * directory is created when needed.
 */
store::RunStore openRunStore(const std::string& path, bool mustExist);

} // namespace orrery::cli

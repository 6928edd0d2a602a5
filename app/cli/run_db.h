#pragma once

#include "store/run_store.h"

#include <CLI/CLI.hpp>

#include <string>

namespace orrery::cli {

/** Adds `--db FILE` (default: the XDG data directory's orrery.sqlite) to a subcommand. */
CLI::Option* addDbOption(CLI::App* cmd, std::string& path);

/** Seconds a command waits for another process's lock on the store before it fails (--lock-timeout). */
inline constexpr double kDefaultLockTimeoutS = 60;

/**
 * Opens the run store for writing, creating it when missing (the default
 * location's directory too). While it waits more than a second for another
 * process's lock it says so on stderr; it gives up after `lockTimeoutS`.
 */
store::RunStore openRunStoreForWriting(const std::string& path, double lockTimeoutS = kDefaultLockTimeoutS);

/**
 * Opens an existing run store read-only, for commands that only read: they
 * work on a read-only file, directory or mount, never migrate or recover
 * anything, and refuse a missing file (exit 2) instead of creating one.
 */
store::RunStore openRunStoreForReading(const std::string& path);

/** For commands that change existing runs (delete): read-write, but a missing file is refused. */
store::RunStore openExistingRunStoreForWriting(const std::string& path);

} // namespace orrery::cli

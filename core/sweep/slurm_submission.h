#pragma once

#include "sweep/sweep_plan.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace orrery::sweep {

/** How a sweep is split and run as a Slurm array (`sweep submit --slurm`'s options; the GUI's export dialog). */
struct SlurmSubmissionOptions
{
    std::string dir;               ///< the submission directory (made absolute); created when missing
    std::string cli;               ///< the orrery-cli the tasks run (absolute on the cluster's shared file system)
    std::string specFile;          ///< recorded as the submission's source ("spec"); empty: the frozen copy in dir
    std::string partition;         ///< empty: the cluster's default
    std::string time;              ///< per task; empty: the partition's
    std::size_t arrayMax = 0;      ///< most tasks running at once; 0: no limit
    std::size_t pointsPerTask = 0; ///< 0: the fewest that keep the array within 1,000 tasks
    int cpusPerTask = 1;
};

/** What writeSlurmSubmission wrote. */
struct SlurmSubmission
{
    std::string dir; ///< absolute
    std::size_t points = 0;
    std::size_t tasks = 0;
    std::size_t pointsPerTask = 0;
    nlohmann::json submission; ///< submission.json as written (no jobs yet)
};

/** `p` made absolute and normalised (as given when that fails). */
std::string absoluteSubmissionPath(const std::string& p);

/** Refuses a submission directory whose path holds a newline or '%' (a pattern character in Slurm's log paths):
 *  orrery::Error naming `--dir`. */
void checkSubmissionPath(const std::string& dir);
/** checkSubmissionPath, and refuses a directory that already holds a submission. */
void checkSubmissionDir(const std::string& dir);

/**
 * Writes what `orrery-cli sweep submit --slurm --no-submit` writes (docs/sweeps.md, "Slurm") into options.dir:
 * spec.json (the plan's spec, its base scenario's path made absolute), points.json (every point with its array
 * task), the `sbatch --array` script (sbatchScript) and submission.json (no job yet; `created_at` now), with
 * shards/, logs/ and status/. The options are checked before anything is written. Directories and files get the
 * process's umask with the world-write bit added, never world-writable, without changing the process's umask
 * (the GUI writes from a worker while other threads create files).
 */
SlurmSubmission writeSlurmSubmission(const SweepPlan& plan, const SlurmSubmissionOptions& options);

/** Writes `text` to `path` through a temporary file and a rename; never world-writable (umask plus 002). */
void writeFileAtomically(const std::string& path, const std::string& text, bool executable = false);

/** The process's umask, read without changing it where the system says it (/proc/self/status). */
unsigned processUmask();

} // namespace orrery::sweep

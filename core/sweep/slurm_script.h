#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::sweep {

/**
 * POSIX shell single quoting: `'...'`, each `'` written as `'\''`. Whatever the text holds (quotes, `$(...)`,
 * backticks, newlines), the shell reads it back as one word, byte for byte, and runs nothing.
 */
std::string shellQuote(std::string_view text);

/** What the `sbatch --array` script of a sweep runs (docs/sweeps.md, "Slurm"). */
struct SlurmBatch
{
    std::string dir;       ///< the submission directory (absolute): spec copy, shards/, logs/, status/
    std::string cli;       ///< orrery-cli (absolute)
    std::string sweepName; ///< shown in the job name (sanitised) and the log (quoted)
    std::size_t points = 0;
    std::size_t tasks = 1;    ///< array tasks = shards: task i runs `--shard i/tasks`
    std::string partition;    ///< empty: the cluster's default
    std::string time;         ///< Slurm time limit per task (e.g. 1:00:00); empty: the partition's
    std::size_t arrayMax = 0; ///< most tasks running at once (`%N`); 0: no limit
    int cpusPerTask = 1;      ///< `--cpus-per-task`, and the `--jobs` of each task
    unsigned umask = 022;     ///< the submitter's; the script adds 002 so that nothing it writes is world-writable
};

/**
 * Checks the values that go into `#SBATCH` lines, which Slurm reads itself (no shell quoting applies there):
 * a partition is letters, digits and `_.-` (comma-separated), a time limit digits and `:-`. Throws orrery::Error
 * naming the option otherwise.
 */
void checkSlurmOptions(const SlurmBatch& batch);

/** The job name: `orrery-sweep-` and the sweep's name reduced to letters, digits and `_.-` (at most 64). */
std::string slurmJobName(const std::string& sweepName);

/**
 * The batch script. Every value from the spec or the command line that reaches the shell is single-quoted
 * (shellQuote); `#SBATCH` lines carry only checked values and numbers. Each task runs `orrery-cli sweep run
 * DIR/spec.json --shard I/N --db DIR/shards/shard-I.sqlite`, then writes its exit status and job id to
 * DIR/status/task-I.rc, which `sweep status` reads.
 */
std::string sbatchScript(const SlurmBatch& batch);

/** The `--array` value for a set of task ids, e.g. "0-3,7,9-10%4" (sorted, ranges merged). */
std::string arraySpec(std::vector<std::size_t> tasks, std::size_t arrayMax);

/** The state of one array task as Slurm reports it. */
struct SlurmTaskState
{
    std::string jobId; ///< array job id (`1234` of `1234_5`)
    std::size_t task = 0;
    std::string state; ///< squeue's compact code (PD, R, CG...) or sacct's state (COMPLETED, FAILED...)
    std::string exitCode;
};

/** Parses `squeue -h -r -o "%i %t"` (one `JOBID_TASK STATE` per line); other lines are ignored. */
std::vector<SlurmTaskState> parseSqueue(const std::string& text);
/** Parses `sacct -n -P -X -o JobID,State,ExitCode` (`JOBID_TASK|STATE|EXIT`); other lines are ignored. */
std::vector<SlurmTaskState> parseSacct(const std::string& text);

} // namespace orrery::sweep

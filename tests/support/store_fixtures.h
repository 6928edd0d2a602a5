#pragma once

// Fixtures shared by the run-store tests (core and the SQLite extension's).

#include "hardware/gpu_layout.h"
#include "sim/run_result.h"
#include "store/run_record.h"

#include <cstdint>
#include <string>

namespace orrery::test {

/** The 6-GPU cluster the store tests run on: 4 A100 40GB on node a100-0, 2 RTX 2080 Ti on rtx-0. */
hardware::GpuLayout twoNodeLayout();

/** A run on that cluster (3.67 and 0.40 USD per GPU-hour). */
store::RunInfo twoNodeRunInfo(const std::string& scenarioName, const std::string& scenarioJson,
                              const std::string& policy, std::uint64_t seed);

/** An empty result of `policy` on that cluster: its GPU types, counts, prices and per-GPU types, no records. */
sim::RunResult twoNodeRun(const std::string& policy, std::uint64_t seed);

/** A scenario of `jobs` generated jobs (1, 2 or 4 GPUs, 120 per hour) on 8x8 V100 + 4x4 K80, policy fifo: long
 *  enough at 100,000 jobs for a process to be killed while it writes its run. */
void writeGeneratorScenario(const std::string& path, const std::string& name, int jobs);

/**
 * Every row of every table of the store at `db`, as text: one line per row, each value with its SQL type, reals to
 * the last bit and BLOBs in hex, rowid tables with their rowids, in key order. The clock (`*_at` columns) and the
 * runs' random `uid` are left out, so two stores that got the same runs the same way give the same text.
 */
std::string storeRows(const std::string& db);

/** The integer an SQL query over `db` gives, opened read-only; -1 while the store cannot be read (not created yet). */
std::int64_t queryIntOrMinusOne(const std::string& db, const std::string& sql);

} // namespace orrery::test

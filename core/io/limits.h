#pragma once

#include <cstddef>
#include <cstdint>

// Caps on what an input may ask for, checked before anything is allocated or narrowed. They exist so
// that a typo (an extra digit, a 2^32 that wraps to 0 in an `int`) is refused with a message instead of
// running as a different workload or dying of std::bad_alloc minutes later. Each value is documented in
// docs/reliability.md ("Bad input"), docs/scenario-format.md and docs/traces.md; keep them in step.
namespace orrery::io::limits {

/// Nodes in one cluster (all node groups together).
inline constexpr long long kMaxClusterNodes = 100'000;
/// GPUs in one node (the largest real servers hold 16; openb and PAI cap at 64 too).
inline constexpr long long kMaxGpusPerNode = 64;
/// GPUs in one cluster.
inline constexpr long long kMaxClusterGpus = 1'048'576;
/// GPUs one job may ask for.
inline constexpr long long kMaxJobGpus = 65'536;
/// Jobs in one workload: inline jobs, a trace's jobs and a generator's jobs, each. A job costs a few
/// hundred bytes before the simulator adds its own state, so this keeps a workload under about 1 GB.
inline constexpr long long kMaxJobs = 2'000'000;
/// Rows (or JSON entries) one trace file may hold, GPU jobs or not.
inline constexpr long long kMaxTraceRows = 20'000'000;
/// Size of any one input file (scenario, trace, table). The largest public trace read whole (PAI's task
/// table) is about 1.2 GB.
inline constexpr std::uintmax_t kMaxFileBytes = 2ull << 30;
/// Training hyper-parameters that the models hold in an `int` (batch, micro batch, sequence length).
inline constexpr long long kMaxInt = 2'147'483'647;
/// Scenario option `seed`: any non-negative 64-bit signed value.
inline constexpr long long kMaxSeed = 9'223'372'036'854'775'807;

} // namespace orrery::io::limits

#pragma once

#include <cstdint>
#include <string>

namespace orrery::store {

/**
 * Identifies a writer process beyond its pid: pids are reused, so the start
 * time (Linux: clock ticks since boot, /proc/PID/stat field 22) is kept too.
 */
struct ProcessIdentity
{
    std::int64_t pid = 0;
    std::int64_t startTicks = 0; ///< 0 when unknown (no /proc)
    std::string host;

    static ProcessIdentity current();
};

/**
 * True when the process that wrote `id` is certainly gone: same host, and no
 * process with that pid, or one that started at another time. A writer on
 * another host is never declared dead (the file may be shared).
 */
bool writerIsDead(const ProcessIdentity& id);

} // namespace orrery::store

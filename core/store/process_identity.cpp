#include "store/process_identity.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>

#include <sys/types.h>
#include <unistd.h>

namespace orrery::store {

namespace {

std::int64_t startTicksOf(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!in || !std::getline(in, stat))
        return 0;
    // Field 2 (comm) is parenthesised and may contain spaces: count fields after the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream rest(stat.substr(close + 1));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i) {
        if (i == 22)
            return std::stoll(field);
    }
    return 0;
}

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

} // namespace

ProcessIdentity ProcessIdentity::current()
{
    const auto compute = [] {
        ProcessIdentity id;
        id.pid = static_cast<std::int64_t>(getpid());
        id.startTicks = startTicksOf(id.pid);
        id.host = hostName();
        return id;
    };
    // Taken once per process: every run a sweep prepares names its writer, and reading /proc and the host name each
    // time was five system calls a point (a tenth of a default-scenario point's encoding on this VM). A forked child
    // is another process, so the pid is checked.
    static const ProcessIdentity once = compute();
    return once.pid == static_cast<std::int64_t>(getpid()) ? once : compute();
}

bool writerIsDead(const ProcessIdentity& id)
{
    if (id.pid <= 0)
        return true;
    if (id.host != hostName())
        return false;
    if (kill(static_cast<pid_t>(id.pid), 0) != 0 && errno == ESRCH)
        return true;
    // Alive: the same process only if it started when the writer did.
    const std::int64_t ticks = startTicksOf(id.pid);
    return id.startTicks != 0 && ticks != 0 && ticks != id.startTicks;
}

} // namespace orrery::store

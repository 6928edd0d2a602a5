#include "sweep/slurm_script.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace orrery::sweep {

std::string shellQuote(std::string_view text)
{
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

namespace {

bool onlyOf(const std::string& s, std::string_view allowed)
{
    return std::all_of(s.begin(), s.end(), [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               allowed.find(c) != std::string_view::npos;
    });
}

} // namespace

void checkSlurmOptions(const SlurmBatch& b)
{
    if (!b.partition.empty() && !onlyOf(b.partition, "_.-,"))
        throw Error(
            "", "--partition",
            fmt::format("expected a Slurm partition name (letters, digits, _.- and commas), got \"{}\"", b.partition));
    const bool timeOk = b.time == "UNLIMITED" || b.time == "INFINITE" ||
                        std::all_of(b.time.begin(), b.time.end(),
                                    [](char c) { return (c >= '0' && c <= '9') || c == ':' || c == '-'; });
    if (!timeOk)
        throw Error("", "--time",
                    fmt::format("expected a Slurm time limit such as 2:00:00 or 1-12:00:00, got \"{}\"", b.time));
    if (b.tasks == 0)
        throw Error("", "tasks", "a submission needs at least one task");
}

std::string slurmJobName(const std::string& sweepName)
{
    std::string out = "orrery-sweep-";
    for (const char c : sweepName) {
        if (out.size() >= 64)
            break;
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                           c == '.' || c == '-';
        out += plain ? c : '_';
    }
    return out;
}

std::string arraySpec(std::vector<std::size_t> tasks, std::size_t arrayMax)
{
    std::sort(tasks.begin(), tasks.end());
    tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
    std::string out;
    for (std::size_t i = 0; i < tasks.size();) {
        std::size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1)
            ++j;
        out +=
            (out.empty() ? "" : ",") + (j == i ? std::to_string(tasks[i]) : fmt::format("{}-{}", tasks[i], tasks[j]));
        i = j + 1;
    }
    if (arrayMax > 0)
        out += fmt::format("%{}", arrayMax);
    return out;
}

std::string sbatchScript(const SlurmBatch& b)
{
    checkSlurmOptions(b);
    std::vector<std::size_t> all(b.tasks);
    for (std::size_t i = 0; i < b.tasks; ++i)
        all[i] = i;
    std::string s;
    s += "#!/bin/bash\n";
    s += "# Written by orrery-cli sweep submit (docs/sweeps.md, \"Slurm\"): one array task per shard of the sweep.\n";
    s += "# Resubmit tasks alone with: orrery-cli sweep submit --resubmit --dir DIR --tasks I,J\n";
    s += fmt::format("#SBATCH --array={}\n", arraySpec(all, b.arrayMax));
    s += fmt::format("#SBATCH --job-name={}\n", slurmJobName(b.sweepName));
    s += fmt::format("#SBATCH --cpus-per-task={}\n", b.cpusPerTask);
    if (!b.partition.empty())
        s += fmt::format("#SBATCH --partition={}\n", b.partition);
    if (!b.time.empty())
        s += fmt::format("#SBATCH --time={}\n", b.time);
    s += "set -u\n";
    // Never world-writable, whatever the submitter's umask: shard stores hold results others could falsify.
    s += fmt::format("umask {:04o}\n", (b.umask | 002u) & 0777u);
    s += fmt::format("dir={}\n", shellQuote(b.dir));
    s += fmt::format("cli={}\n", shellQuote(b.cli));
    s += fmt::format("sweep={}\n", shellQuote(b.sweepName));
    s += "task=\"${SLURM_ARRAY_TASK_ID:?run this script with sbatch (an array task)}\"\n";
    s += "job=\"${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-0}}\"\n";
    s += "printf 'orrery sweep %s: task %s of " + std::to_string(b.tasks) +
         ", job %s\\n' \"$sweep\" \"$task\" \"$job\"\n";
    s += fmt::format(
        "\"$cli\" sweep run \"$dir/spec.json\" --shard \"$task/{}\" --db \"$dir/shards/shard-$task.sqlite\" "
        "--jobs \"${{SLURM_CPUS_PER_TASK:-{}}}\" --no-estimate\n",
        b.tasks, b.cpusPerTask);
    s += "rc=$?\n";
    s += "printf '%s %s\\n' \"$rc\" \"$job\" > \"$dir/status/task-$task.rc\"\n";
    s += "exit \"$rc\"\n";
    return s;
}

namespace {

bool splitTask(const std::string& id, SlurmTaskState& out)
{
    const auto u = id.find('_');
    if (u == std::string::npos || u == 0)
        return false;
    out.jobId = id.substr(0, u);
    const std::string t = id.substr(u + 1);
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out.task);
    return ec == std::errc() && end == t.data() + t.size();
}

} // namespace

std::vector<SlurmTaskState> parseSqueue(const std::string& text)
{
    std::vector<SlurmTaskState> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        std::string id, state;
        SlurmTaskState s;
        if (l >> id >> state && splitTask(id, s)) {
            s.state = state;
            out.push_back(std::move(s));
        }
    }
    return out;
}

std::vector<SlurmTaskState> parseSacct(const std::string& text)
{
    std::vector<SlurmTaskState> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto a = line.find('|');
        const auto b = a == std::string::npos ? a : line.find('|', a + 1);
        if (b == std::string::npos)
            continue;
        SlurmTaskState s;
        if (!splitTask(line.substr(0, a), s))
            continue;
        s.state = line.substr(a + 1, b - a - 1);
        // "CANCELLED by 1000" -> CANCELLED
        if (const auto sp = s.state.find(' '); sp != std::string::npos)
            s.state.resize(sp);
        s.exitCode = line.substr(b + 1);
        while (!s.exitCode.empty() && (s.exitCode.back() == '\r' || s.exitCode.back() == '|'))
            s.exitCode.pop_back();
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace orrery::sweep

#include "io/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace orrery::io {

namespace {

std::string quoted(const std::string& s)
{
    return nlohmann::json(s).dump();
}

long long micros(double seconds)
{
    return std::llround(seconds * 1e6);
}

} // namespace

void writeChromeTrace(std::ostream& out, const sim::RunResult& run, const hardware::GpuLayout& layout)
{
    out << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"policy\":" << quoted(run.policy) << ",\"seed\":" << run.seed
        << "},\"traceEvents\":[\n";
    bool first = true;
    auto event = [&](const std::string& text) {
        if (!first)
            out << ",\n";
        first = false;
        out << text;
    };

    for (std::size_t n = 0; n < layout.nodeNames.size(); ++n) {
        event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})", n + 1,
                          quoted(layout.nodeNames[n])));
        event(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})",
                          n + 1, n));
    }
    for (int g = 0; g < layout.gpuCount(); ++g) {
        const int pid = layout.gpuNode[static_cast<std::size_t>(g)] + 1;
        event(fmt::format(
            R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", pid, g + 1,
            quoted(fmt::format("GPU {} ({})", layout.localIndex(g), layout.gpuTypes[static_cast<std::size_t>(g)]))));
        event(fmt::format(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                          pid, g + 1, g));
    }

    // Per GPU in time order, so each track is a clean sequence.
    std::vector<std::size_t> order(run.intervals.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto& x = run.intervals[a];
        const auto& y = run.intervals[b];
        return x.gpu != y.gpu ? x.gpu < y.gpu : x.startS < y.startS;
    });
    const std::string policy = quoted(run.policy);
    int lastGpu = -1;
    long long lastEnd = 0;
    for (const std::size_t i : order) {
        const auto& iv = run.intervals[i];
        if (iv.gpu < 0 || iv.gpu >= layout.gpuCount())
            continue; // no track to put it on
        long long ts = micros(iv.startS);
        const long long end = micros(iv.endS);
        // A well-formed run never overlaps on a GPU; if one did, Perfetto would move the slice to a
        // stray track, so the overlap is clipped instead.
        if (iv.gpu == lastGpu)
            ts = std::max(ts, lastEnd);
        if (end <= ts)
            continue;
        lastGpu = iv.gpu;
        lastEnd = end;
        // An empty id is a job an interrupted run never stored (StoredRun::jobStored): named by index too.
        const bool known = iv.job >= 0 && static_cast<std::size_t>(iv.job) < run.jobs.size() &&
                           !run.jobs[static_cast<std::size_t>(iv.job)].id.empty();
        const std::string id = known ? run.jobs[static_cast<std::size_t>(iv.job)].id : fmt::format("#{}", iv.job);
        const std::string model = known ? run.jobs[static_cast<std::size_t>(iv.job)].model : std::string();
        event(fmt::format(
            R"({{"ph":"X","name":{},"cat":"job","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"job":{},"job_index":{},"model":{},"policy":{}}}}})",
            quoted(id), layout.gpuNode[static_cast<std::size_t>(iv.gpu)] + 1, iv.gpu + 1, ts, end - ts, quoted(id),
            iv.job, quoted(model), policy));
    }

    if (!run.utilization.empty()) {
        const std::size_t pid = layout.nodeNames.size() + 1;
        event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":"cluster"}}}})", pid));
        for (const auto& u : run.utilization)
            event(fmt::format(R"({{"ph":"C","name":"busy GPUs","pid":{},"tid":0,"ts":{},"args":{{"busy":{}}}}})", pid,
                              micros(u.timeS), u.busyGpus));
    }
    out << "\n]}\n";
}

} // namespace orrery::io

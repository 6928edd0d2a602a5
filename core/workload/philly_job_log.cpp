// Philly's cluster_job_log (JSON); declared in philly_trace.h beside the CSV form.
#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "workload/philly_trace.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <limits>

namespace orrery::workload {

using nlohmann::json;

namespace {

struct JsonReader
{
    const std::string& file;

    [[noreturn]] void fail(const std::string& path, const std::string& message) const
    {
        throw Error(file, path, message);
    }

    const json& member(const json& o, const std::string& path, const char* key) const
    {
        const auto it = o.find(key);
        if (it == o.end())
            fail(path + "." + key, "missing required field");
        return *it;
    }

    std::string string(const json& o, const std::string& path, const char* key) const
    {
        const json& v = member(o, path, key);
        if (!v.is_string())
            fail(path + "." + key, "expected a string, got " + io::describeJson(v));
        return v.get<std::string>();
    }

    // A time that serializers may leave out as null, "None" or "".
    std::optional<double> optionalTime(const json& o, const std::string& path, const char* key) const
    {
        const auto it = o.find(key);
        if (it == o.end() || it->is_null())
            return std::nullopt;
        if (!it->is_string())
            fail(path + "." + key, "expected a date and time string, got " + io::describeJson(*it));
        const std::string s = it->get<std::string>();
        if (s.empty() || s == "None")
            return std::nullopt;
        const auto t = io::parseDateTime(s);
        if (!t)
            fail(path + "." + key, "expected a date and time YYYY-MM-DD HH:MM:SS, got \"" + s + "\"");
        return t;
    }
};

} // namespace

TraceRead parsePhillyJobLog(std::string_view text, const std::string& fileLabel, std::optional<int> limit)
{
    const json doc = io::parseJson(text, fileLabel);
    const JsonReader rd{fileLabel};
    if (!doc.is_array())
        rd.fail("", "expected an array of jobs, got " + io::describeJson(doc));
    TraceRead out;
    int noAttempts = 0, neverStarted = 0, running = 0, noGpu = 0, zeroLength = 0;
    double first = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < doc.size(); ++i) {
        ++out.rows;
        const json& j = doc[i];
        const std::string path = io::indexPath("", i);
        if (!j.is_object())
            rd.fail(path, "expected a job object, got " + io::describeJson(j));
        const auto submitted = rd.optionalTime(j, path, "submitted_time");
        if (!submitted)
            rd.fail(path + ".submitted_time", "missing submission time");
        first = std::min(first, *submitted);
        const json& attempts = rd.member(j, path, "attempts");
        if (!attempts.is_array())
            rd.fail(path + ".attempts", "expected an array, got " + io::describeJson(attempts));
        if (attempts.empty()) {
            ++noAttempts;
            continue;
        }
        for (std::size_t k = 0; k < attempts.size(); ++k)
            if (!attempts[k].is_object())
                rd.fail(io::indexPath(path + ".attempts", k),
                        "expected an attempt object, got " + io::describeJson(attempts[k]));
        const std::string firstPath = io::indexPath(path + ".attempts", 0);
        const std::string lastPath = io::indexPath(path + ".attempts", attempts.size() - 1);
        const auto start = rd.optionalTime(attempts.front(), firstPath, "start_time");
        const auto end = rd.optionalTime(attempts.back(), lastPath, "end_time");
        if (!start) {
            ++neverStarted;
            continue;
        }
        if (!end) {
            ++running;
            continue;
        }
        if (*end < *start)
            rd.fail(lastPath + ".end_time", "ends before the first attempt starts");
        long long gpus = 0;
        const json& detail = rd.member(attempts.front(), firstPath, "detail");
        if (!detail.is_array())
            rd.fail(firstPath + ".detail", "expected an array, got " + io::describeJson(detail));
        for (std::size_t m = 0; m < detail.size(); ++m) {
            const std::string dPath = io::indexPath(firstPath + ".detail", m);
            if (!detail[m].is_object())
                rd.fail(dPath, "expected an object, got " + io::describeJson(detail[m]));
            const json& g = rd.member(detail[m], dPath, "gpus");
            if (!g.is_array())
                rd.fail(dPath + ".gpus", "expected an array, got " + io::describeJson(g));
            gpus += static_cast<long long>(g.size());
            // Summed over machines, so checked here: job.gpus is an int and the cluster cap is far below.
            if (gpus > io::limits::kMaxJobGpus)
                rd.fail(dPath + ".gpus",
                        fmt::format("the job has {} GPUs up to here, more than the {} a job may ask for", gpus,
                                    io::limits::kMaxJobGpus));
        }
        if (gpus == 0 || *end == *start) {
            ++(gpus == 0 ? noGpu : zeroLength);
            continue;
        }
        Job job;
        job.id = rd.string(j, path, "jobid");
        job.user = j.contains("user") && j["user"].is_string() ? j["user"].get<std::string>() : std::string();
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(gpus);
        job.arrivalS = *submitted;
        job.durationS = *end - *start;
        out.jobs.push_back(std::move(job));
        checkTraceJobCount(out.jobs.size(), fileLabel, path);
    }
    for (auto& j : out.jobs)
        j.arrivalS -= first;
    out.skipped = noAttempts + neverStarted + running + noGpu + zeroLength;
    out.skippedWhy = fmt::format("{} without attempts, {} never started, {} still running, {} without GPUs, {} of "
                                 "zero length",
                                 noAttempts, neverStarted, running, noGpu, zeroLength);
    sortAndLimit(out.jobs, limit);
    return out;
}

} // namespace orrery::workload

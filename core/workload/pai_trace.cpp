#include "workload/pai_trace.h"

#include "io/error.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <unordered_map>

namespace orrery::workload {

namespace {

io::TextTable table(const std::string& text, const std::string& label, const std::optional<std::string>& header,
                    const char* firstColumn)
{
    if (!header) {
        // No .header file: the table must name its columns itself.
        io::TextTable t = io::TextTable::parse(text, label);
        if (t.column(firstColumn) < 0)
            throw Error(label, "1: header",
                        fmt::format("no column names: PAI tables are headerless, put the matching .header file "
                                    "beside it (its first line names \"{}\" first)",
                                    firstColumn));
        return t;
    }
    io::TextTable names = io::TextTable::parse(*header, label + " (.header)");
    io::TextTable t = io::TextTable::parse(text, label, {.separator = ',', .hasHeader = false, .trimFields = true});
    t.setHeader(names.header());
    // Tolerate a table that carries the header line as well.
    if (!t.records().empty() && !t.header().empty() && t.records().front().fields.front() == t.header().front()) {
        io::TextTable withHeader = io::TextTable::parse(text, label);
        return withHeader;
    }
    return t;
}

std::string referenceGpu(const std::string& paiType, const io::FieldParser& p)
{
    if (paiType.empty())
        return {};
    if (paiType == "P100")
        return "p100";
    if (paiType == "T4")
        return "t4";
    if (paiType == "V100")
        return "v100-16gb";
    if (paiType == "V100M32")
        return "v100-32gb";
    if (paiType == "MISC")
        return "k80";
    p.fail("gpu_type", "expected P100, T4, V100, V100M32 or MISC, got " + io::describeField(paiType));
}

struct JobAcc
{
    std::string name;
    double gpuShare = 0; // in GPUs
    double start = std::numeric_limits<double>::infinity();
    double end = -std::numeric_limits<double>::infinity();
    bool running = false;
    std::string gpuType;
    double gpuTypeShare = 0;
};

} // namespace

std::string paiHeaderPath(const std::string& tablePath)
{
    const auto slash = tablePath.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "" : tablePath.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? tablePath : tablePath.substr(slash + 1);
    return dir + base.substr(0, base.find('.')) + ".header";
}

TraceRead parsePaiTrace(const PaiTables& in, std::optional<int> limit)
{
    const io::TextTable tasks = table(in.taskTable, in.taskLabel, in.taskHeader, "job_name");
    if (tasks.column("plan_gpu") < 0 && tasks.column("inst_id") >= 0)
        throw Error(in.taskLabel, std::to_string(tasks.headerLine()) + ": header",
                    "this is the PAI job table, which has no GPU demand: give the task table (pai_task_table) as "
                    "the trace and this one as the job table");
    const int cJob = tasks.requireColumn("job_name"), cInst = tasks.requireColumn("inst_num"),
              cStart = tasks.requireColumn("start_time"), cEnd = tasks.requireColumn("end_time"),
              cGpu = tasks.requireColumn("plan_gpu"), cType = tasks.column("gpu_type");

    std::vector<JobAcc> jobs;
    std::unordered_map<std::string, std::size_t> index;
    TraceRead out;
    for (const auto& r : tasks.records()) {
        ++out.rows;
        const io::FieldParser p(in.taskLabel, r.line);
        const std::string& name = tasks.field(r, cJob);
        if (name.empty())
            p.fail("job_name", "expected a job name, got an empty field");
        auto [it, fresh] = index.try_emplace(name, jobs.size());
        if (fresh) {
            jobs.emplace_back();
            jobs.back().name = name;
        }
        JobAcc& j = jobs[it->second];
        const double inst = p.nonNegativeNumber("inst_num", tasks.field(r, cInst));
        const std::string& gpuText = tasks.field(r, cGpu);
        const double share = gpuText.empty() ? 0 : inst * p.nonNegativeNumber("plan_gpu", gpuText) / 100.0;
        if (share <= 0)
            continue;
        j.gpuShare += share;
        // Checked before the sum is rounded to an int GPU count: a cast of 1e10 or infinity is undefined
        // (it came out as 1 GPU).
        if (!(j.gpuShare <= static_cast<double>(io::limits::kMaxJobGpus)))
            p.fail("plan_gpu", fmt::format("{} (with inst_num {}) makes job \"{}\" ask for {:g} GPUs (inst_num x "
                                           "plan_gpu / 100, over its tasks), more than the {} a job may ask for",
                                           io::describeField(gpuText), io::describeField(tasks.field(r, cInst)), name,
                                           j.gpuShare, io::limits::kMaxJobGpus));
        const auto start = p.optionalNumber("start_time", tasks.field(r, cStart));
        const auto end = p.optionalNumber("end_time", tasks.field(r, cEnd));
        if (start) {
            if (*start < 0)
                p.fail("start_time",
                       "expected a non-negative number, got " + io::describeField(tasks.field(r, cStart)));
            j.start = std::min(j.start, *start);
        }
        if (end) {
            if (start && *end < *start)
                p.fail("end_time", fmt::format("ends at {} before it starts at {}", *end, *start));
            j.end = std::max(j.end, *end);
        } else if (start) {
            j.running = true;
        }
        if (cType >= 0) {
            const std::string type = referenceGpu(tasks.field(r, cType), p);
            if (!type.empty() && share > j.gpuTypeShare) {
                j.gpuType = type;
                j.gpuTypeShare = share;
            }
        }
    }

    struct Submission
    {
        double time;
        std::string user;
    };
    std::unordered_map<std::string, Submission> submitted;
    if (in.jobTable) {
        const io::TextTable jt = table(*in.jobTable, in.jobLabel, in.jobHeader, "job_name");
        const int jName = jt.requireColumn("job_name"), jStart = jt.requireColumn("start_time"),
                  jUser = jt.column("user");
        for (const auto& r : jt.records()) {
            const io::FieldParser p(in.jobLabel, r.line);
            submitted[jt.field(r, jName)] = {p.nonNegativeNumber("start_time", jt.field(r, jStart)),
                                             jUser >= 0 ? jt.field(r, jUser) : std::string()};
        }
    }

    int noGpu = 0, neverStarted = 0, running = 0, zeroLength = 0;
    double first = std::numeric_limits<double>::infinity();
    for (const auto& a : jobs) {
        if (a.gpuShare <= 0) {
            ++noGpu;
            continue;
        }
        if (!std::isfinite(a.start)) {
            ++neverStarted;
            continue;
        }
        if (a.running || !std::isfinite(a.end)) {
            ++running;
            continue;
        }
        if (a.end == a.start) {
            ++zeroLength;
            continue;
        }
        Job job;
        job.id = a.name;
        job.kind = JobKind::Fixed;
        // Rounded to whole GPUs; the epsilon keeps 3 x 33.333% at 1 GPU.
        job.gpus = std::max(1, static_cast<int>(std::ceil(a.gpuShare - 1e-6)));
        job.durationS = a.end - a.start;
        job.arrivalS = a.start;
        if (const auto s = submitted.find(a.name); s != submitted.end()) {
            job.arrivalS = std::min(s->second.time, a.start);
            job.user = s->second.user;
        }
        job.referenceGpu = a.gpuType;
        first = std::min(first, job.arrivalS);
        out.jobs.push_back(std::move(job));
        // Jobs are gathered from all their tasks first, so no single row passes the cap.
        checkTraceJobCount(out.jobs.size(), in.taskLabel, "");
    }
    for (auto& j : out.jobs)
        j.arrivalS -= first;
    out.skipped = noGpu + neverStarted + running + zeroLength;
    out.skippedWhy = fmt::format("{} jobs without GPU tasks, {} never started, {} still running, {} of zero length",
                                 noGpu, neverStarted, running, zeroLength);
    sortAndLimit(out.jobs, limit);
    return out;
}

namespace {

std::optional<std::string> readIfExists(const std::string& path)
{
    std::ifstream probe(path);
    if (!probe)
        return std::nullopt;
    return util::readFile(path);
}

} // namespace

PaiMachines parsePaiMachines(const std::string& text, const std::string& label,
                             const std::optional<std::string>& header)
{
    const io::TextTable t = table(text, label, header, "machine");
    const int cType = t.requireColumn("gpu_type"), cGpus = t.requireColumn("cap_gpu");
    PaiMachines out;
    std::map<std::pair<std::string, long long>, std::size_t> groupOf;
    for (const auto& r : t.records()) {
        const io::FieldParser p(label, r.line);
        const std::string& paiType = t.field(r, cType);
        const auto gpus = p.nonNegativeInteger("cap_gpu", t.field(r, cGpus));
        if (paiType == "CPU" || gpus == 0) {
            ++out.cpuOnly;
            continue;
        }
        if (gpus > 64)
            p.fail("cap_gpu", fmt::format("expected GPUs per machine (at most 64), got {}", gpus));
        const std::string type = referenceGpu(paiType, p);
        if (type.empty())
            p.fail("gpu_type", "a machine with GPUs needs a GPU type, got an empty field");
        auto [it, fresh] = groupOf.try_emplace({paiType, gpus}, out.groups.size());
        if (fresh)
            out.groups.push_back(hardware::NodeGroup{fmt::format("{}x{}", util::toLower(paiType), gpus), type, 0,
                                                     static_cast<int>(gpus), std::nullopt});
        ++out.groups[it->second].count;
        ++out.machines;
        out.gpus += static_cast<int>(gpus);
        checkClusterSize(out.machines, out.gpus, p);
    }
    if (out.groups.empty())
        throw Error(label, "", "no GPU machines in the machine table");
    return out;
}

PaiMachines readPaiMachines(const std::string& path)
{
    return parsePaiMachines(util::readFile(path), util::baseName(path), readIfExists(paiHeaderPath(path)));
}

TraceRead readPaiTrace(const std::string& taskTablePath, const std::string& jobTablePath, std::optional<int> limit)
{
    PaiTables t;
    t.taskTable = util::readFile(taskTablePath);
    t.taskLabel = util::baseName(taskTablePath);
    t.taskHeader = readIfExists(paiHeaderPath(taskTablePath));
    if (!jobTablePath.empty()) {
        t.jobTable = util::readFile(jobTablePath);
        t.jobLabel = util::baseName(jobTablePath);
        t.jobHeader = readIfExists(paiHeaderPath(jobTablePath));
    }
    return parsePaiTrace(t, limit);
}

} // namespace orrery::workload

#include "workload/gavel_trace.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"
#include "workload/gavel_throughput_table.h"
#include "workload/trace_read.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <memory>

namespace orrery::workload {

namespace {

struct Columns
{
    int jobType, command, workingDirectory, numStepsArg, needsDataDir, totalSteps, scaleFactor, priority, slo, arrival;
    std::size_t count;
};

// -1: the layout has no such column.
constexpr Columns kCurrent{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
constexpr Columns kMsr{0, 1, -1, 2, 3, 4, 6, -1, -1, 5, 7};

bool blank(std::string_view s)
{
    return s.find_first_not_of(" \t") == std::string_view::npos;
}

std::vector<std::string_view> splitTabs(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t pos = line.find('\t', start);
        out.push_back(line.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos)
            return out;
        start = pos + 1;
    }
}

GavelTraceLayout layoutOf(std::size_t fields, const std::string& file, int line)
{
    if (fields == kCurrent.count)
        return GavelTraceLayout::Current;
    if (fields == kMsr.count)
        return GavelTraceLayout::Msr;
    io::FieldParser(file, line)
        .fail("columns",
              fmt::format("expected 10 tab-separated fields (Gavel trace) or 7 (older msr trace), got {}", fields));
}

} // namespace

std::optional<GavelTraceLayout> detectGavelTraceLayout(std::string_view text, const std::string& fileLabel)
{
    std::optional<GavelTraceLayout> layout;
    io::forEachLine(text, [&](int number, std::string_view line) {
        if (!layout && !blank(line))
            layout = layoutOf(splitTabs(line).size(), fileLabel, number);
    });
    return layout;
}

std::vector<Job> parseGavelTrace(std::string_view text, const std::string& fileLabel, const GavelTraceOptions& options)
{
    std::vector<Job> jobs;
    std::optional<GavelTraceLayout> layout;
    bool done = false;
    io::forEachLine(text, [&](int number, std::string_view line) {
        if (done || blank(line))
            return;
        const auto f = splitTabs(line);
        const io::FieldParser p(fileLabel, number);
        const GavelTraceLayout rowLayout = layoutOf(f.size(), fileLabel, number);
        if (!layout)
            layout = rowLayout;
        else if (rowLayout != *layout)
            p.fail("columns", fmt::format("expected {} tab-separated fields like the first row, got {}",
                                          *layout == GavelTraceLayout::Current ? 10 : 7, f.size()));
        const Columns& c = *layout == GavelTraceLayout::Current ? kCurrent : kMsr;
        auto at = [&](int column) { return f[static_cast<std::size_t>(column)]; };

        Job job;
        job.id = std::to_string(jobs.size());
        job.kind = JobKind::Fixed;
        for (int column : {c.jobType, c.command})
            if (const auto bad = util::invalidUtf8At(at(column)); bad != std::string_view::npos)
                p.fail(column == c.jobType ? "job_type" : "command",
                       fmt::format("invalid UTF-8 (byte 0x{:02X} at byte {} of the field): traces must be UTF-8",
                                   static_cast<unsigned char>(at(column)[bad]), bad + 1));
        job.jobType = util::trim(at(c.jobType));
        if (job.jobType.empty())
            p.fail("job_type", "expected a job type such as \"ResNet-18 (batch size 64)\", got an empty field");
        if (blank(at(c.command)))
            p.fail("command", "expected the job's command line, got an empty field");
        const long long needsDataDir = p.nonNegativeInteger("needs_data_dir", at(c.needsDataDir));
        if (needsDataDir > 1)
            p.fail("needs_data_dir", fmt::format("expected 0 or 1, got \"{}\"", util::trim(at(c.needsDataDir))));
        job.iterations = static_cast<double>(p.positiveInteger("total_steps", at(c.totalSteps)));
        const long long scale = p.positiveInteger("scale_factor", at(c.scaleFactor));
        if (scale > io::limits::kMaxJobGpus)
            p.fail("scale_factor",
                   fmt::format("expected a GPU count of at most {}, got {}", io::limits::kMaxJobGpus, scale));
        job.scaleFactor = static_cast<int>(scale);
        job.gpus = job.scaleFactor;
        job.arrivalS = p.nonNegativeNumber("arrival_time", at(c.arrival));
        if (c.priority >= 0)
            job.priority = p.positiveNumber("priority_weight", at(c.priority));
        if (c.slo >= 0) {
            const double slo = p.number("SLO", at(c.slo));
            if (slo == 0)
                p.fail("SLO", "expected a positive multiple of the isolated run time, or -1 for none, got 0");
            if (slo > 0) {
                const auto rate = options.referenceStepsPerS ? options.referenceStepsPerS(job.jobType, job.scaleFactor)
                                                             : std::nullopt;
                if (!rate || !(*rate > 0))
                    p.fail("SLO", fmt::format("an SLO needs the isolated throughput of \"{}\" (scale factor {}) on "
                                              "the reference GPU (v100) from a throughput table",
                                              job.jobType, job.scaleFactor));
                job.deadlineS = job.arrivalS + slo * job.iterations / *rate;
                // A huge SLO or step count overflows to infinity, which a scenario file cannot hold (JSON has
                // no infinity: it was written as null).
                if (!std::isfinite(*job.deadlineS))
                    p.fail("SLO", fmt::format("the deadline {} x {} steps / {} steps/s is beyond any time Orrery "
                                              "can store",
                                              util::trim(at(c.slo)), job.iterations, *rate));
            }
        }
        jobs.push_back(std::move(job));
        if (options.limit && static_cast<int>(jobs.size()) >= *options.limit)
            done = true;
        else
            checkTraceJobCount(jobs.size(), fileLabel, std::to_string(number));
    });
    return jobs;
}

std::vector<Job> readGavelTrace(const std::string& path, const GavelTraceOptions& options)
{
    return parseGavelTrace(util::readFile(path), util::baseName(path), options);
}

std::function<std::optional<double>(const std::string&, int)>
gavelReferenceRates(std::shared_ptr<const GavelThroughputTable> table)
{
    const std::string v100 = hardware::GpuCatalog::builtin().at("v100").name;
    if (!table->row(v100))
        throw Error(table->label(), "v100", "missing required field (Gavel's reference worker type)");
    return [table, v100](const std::string& type, int scaleFactor) -> std::optional<double> {
        const double rate = table->lookup(v100, type, scaleFactor);
        return rate < 0 ? std::nullopt : std::optional<double>(rate);
    };
}

} // namespace orrery::workload

#include "workload/openb_trace.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace orrery::workload {

using hardware::GpuCatalog;
using hardware::GpuType;

std::vector<GpuType> openbCustomGpus()
{
    const GpuType& v100 = GpuCatalog::builtin().at("v100-16gb");
    std::vector<GpuType> out;
    for (const char* g : {"G1", "G2", "G3"}) {
        GpuType t = v100;
        t.name = "openb-" + util::toLower(g);
        t.display = fmt::format("Alibaba {} (undisclosed)", g);
        t.vendor = "nvidia";
        t.aliases = {util::toLower(g)};
        t.source =
            fmt::format("Alibaba openb trace (FGD, ATC'23): {} is an undisclosed internal GPU model. Its figures "
                        "are not published; Orrery assumes those of the V100-16GB.",
                        g);
        out.push_back(std::move(t));
    }
    return out;
}

GpuCatalog openbCatalog()
{
    GpuCatalog c = GpuCatalog::builtin();
    for (auto& t : openbCustomGpus())
        c.add(std::move(t));
    return c;
}

namespace {

// The catalog name of an openb GPU model; fails naming the field when unknown.
std::string gpuName(const GpuCatalog& catalog, const io::FieldParser& p, std::string_view field,
                    const std::string& model)
{
    if (const GpuType* t = catalog.find(model))
        return t->name;
    try {
        catalog.at(model);
    } catch (const Error& e) {
        p.fail(field, e.message());
    }
    p.fail(field, "unknown GPU model \"" + model + "\"");
}

} // namespace

OpenbNodes parseOpenbNodes(std::string_view text, const std::string& fileLabel)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cSn = t.requireColumn("sn"), cGpu = t.requireColumn("gpu"), cModel = t.requireColumn("model");
    const GpuCatalog catalog = openbCatalog();
    OpenbNodes out;
    // Keyed by (model, GPUs per node), in order of first appearance.
    std::map<std::pair<std::string, int>, std::size_t> groupOf;
    for (const auto& r : t.records()) {
        const io::FieldParser p(fileLabel, r.line);
        if (t.field(r, cSn).empty())
            p.fail("sn", "expected a node name, got an empty field");
        const auto gpus = p.nonNegativeInteger("gpu", t.field(r, cGpu));
        const std::string& model = t.field(r, cModel);
        if (gpus == 0 || model.empty()) {
            if (gpus > 0)
                p.fail("model", fmt::format("a node with {} GPUs needs a GPU model, got an empty field", gpus));
            ++out.cpuOnlyNodes;
            continue;
        }
        if (gpus > 64)
            p.fail("gpu", fmt::format("expected GPUs per node (at most 64), got {}", gpus));
        const std::string type = gpuName(catalog, p, "model", model);
        const auto key = std::make_pair(type, static_cast<int>(gpus));
        auto it = groupOf.find(key);
        if (it == groupOf.end()) {
            hardware::NodeGroup g;
            g.name = fmt::format("{}x{}", util::toLower(model), gpus);
            g.gpuType = type;
            g.count = 0;
            g.gpusPerNode = static_cast<int>(gpus);
            it = groupOf.emplace(key, out.groups.size()).first;
            out.groups.push_back(std::move(g));
        }
        ++out.groups[it->second].count;
        ++out.nodes;
        out.gpus += static_cast<int>(gpus);
        checkClusterSize(out.nodes, out.gpus, p);
    }
    if (out.groups.empty())
        throw Error(fileLabel, "", "no GPU nodes in the node list");
    return out;
}

OpenbNodes readOpenbNodes(const std::string& path)
{
    return parseOpenbNodes(util::readFile(path), util::baseName(path));
}

TraceRead parseOpenbPods(std::string_view text, const std::string& fileLabel, std::optional<int> limit)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    if (t.column("creation_time") < 0 && t.column("num_gpu") >= 0)
        throw Error(fileLabel, std::to_string(t.headerLine()) + ": header",
                    "no creation_time/deletion_time columns: this pod list (like the multigpu* variants) has no "
                    "times and is for static packing, not for simulation");
    const int cName = t.requireColumn("name"), cGpus = t.requireColumn("num_gpu"),
              cMilli = t.requireColumn("gpu_milli"), cSpec = t.column("gpu_spec"),
              cPhase = t.requireColumn("pod_phase"), cCreate = t.requireColumn("creation_time"),
              cDelete = t.requireColumn("deletion_time"), cSched = t.requireColumn("scheduled_time");
    const GpuCatalog catalog = openbCatalog();
    TraceRead out;
    int cpuPods = 0, zeroLength = 0;
    for (const auto& r : t.records()) {
        ++out.rows;
        const io::FieldParser p(fileLabel, r.line);
        const auto gpus = p.nonNegativeInteger("num_gpu", t.field(r, cGpus));
        const auto milli = p.nonNegativeInteger("gpu_milli", t.field(r, cMilli));
        if (milli > 1000)
            p.fail("gpu_milli", fmt::format("expected thousandths of one GPU (0 to 1000), got {}", milli));
        const std::string& phase = t.field(r, cPhase);
        if (phase != "Running" && phase != "Succeeded" && phase != "Failed" && phase != "Pending")
            p.fail("pod_phase", "expected Running, Succeeded, Failed or Pending, got " + io::describeField(phase));
        const double created = p.nonNegativeNumber("creation_time", t.field(r, cCreate));
        const double deleted = p.nonNegativeNumber("deletion_time", t.field(r, cDelete));
        const std::string& schedText = t.field(r, cSched);
        // Pending pods never started: scheduled_time is empty for them and only for them.
        const bool pending = phase == "Pending";
        double started = created;
        if (!pending) {
            started = p.nonNegativeNumber("scheduled_time", schedText);
            if (started < created)
                p.fail("scheduled_time", fmt::format("scheduled at {} before its creation at {}", started, created));
        }
        if (deleted < started)
            p.fail("deletion_time", fmt::format("deleted at {} before it {} at {}", deleted,
                                                pending ? "was created" : "was scheduled", started));
        if (gpus == 0) {
            if (milli > 0)
                p.fail("gpu_milli", fmt::format("a pod with num_gpu 0 takes no GPU share, got {}", milli));
            ++cpuPods;
            continue;
        }
        if (gpus > 64)
            p.fail("num_gpu", fmt::format("expected a GPU count (at most 64), got {}", gpus));
        if (deleted == started) {
            ++zeroLength;
            continue;
        }
        Job job;
        job.id = t.field(r, cName);
        if (job.id.empty())
            p.fail("name", "expected a pod name, got an empty field");
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(gpus);
        job.arrivalS = created;
        job.durationS = deleted - started;
        if (cSpec >= 0 && !t.field(r, cSpec).empty()) {
            std::vector<std::string> allowed;
            for (const auto& s : util::split(t.field(r, cSpec), '|')) {
                const std::string model = util::trim(s);
                if (model.empty())
                    p.fail("gpu_spec",
                           "expected GPU models separated by '|', got " + io::describeField(t.field(r, cSpec)));
                const std::string name = gpuName(catalog, p, "gpu_spec", model);
                if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
                    allowed.push_back(name);
            }
            if (allowed.size() == 1) {
                job.gpuType = allowed.front();
                job.referenceGpu = allowed.front();
            }
        }
        out.jobs.push_back(std::move(job));
        checkTraceJobCount(out.jobs.size(), fileLabel, std::to_string(r.line));
    }
    out.skipped = cpuPods + zeroLength;
    out.skippedWhy = fmt::format("{} CPU-only pods, {} pods of zero length", cpuPods, zeroLength);
    sortAndLimit(out.jobs, limit);
    return out;
}

TraceRead readOpenbPods(const std::string& path, std::optional<int> limit)
{
    return parseOpenbPods(util::readFile(path), util::baseName(path), limit);
}

} // namespace orrery::workload

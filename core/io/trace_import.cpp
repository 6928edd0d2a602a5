#include "io/trace_import.h"

#include "hardware/cluster_spec.h"
#include "io/error.h"
#include "io/workload_loader.h"
#include "sim/goodput_throughput.h"
#include "util/text.h"
#include "workload/gavel_throughput_table.h"
#include "workload/gavel_trace.h"
#include "workload/openb_trace.h"
#include "workload/pai_trace.h"
#include "workload/tiresias_trace.h"
#include "workload/trace_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <set>

namespace orrery::io {

namespace {

namespace fs = std::filesystem;

bool exists(const std::string& path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

std::string sibling(const std::string& file, const std::string& name)
{
    return (fs::path(file).parent_path() / name).string();
}

// A path as the scenario should store it: relative to the scenario's directory (absolute without one).
std::string relativeTo(const std::string& path, const std::string& scenarioPath)
{
    std::error_code ec;
    if (scenarioPath.empty())
        return fs::absolute(path, ec).string();
    const fs::path base = fs::absolute(fs::path(scenarioPath), ec).parent_path();
    const fs::path rel = fs::relative(fs::absolute(path, ec), base, ec);
    return ec || rel.empty() ? fs::absolute(path).string() : rel.generic_string();
}

// Clusters when none is given, per format (documented in docs/traces.md).
std::string defaultClusterSpec(const std::string& format, const std::string& referenceGpu)
{
    if (format == "gavel")
        return "v100:36,p100:36,k80:36"; // Gavel's reference experiment
    if (format == "philly")
        return referenceGpu + ":2816/8"; // 352 Philly VC nodes x 8 GPUs (Helios' QSSF setting)
    if (format == "helios")
        return referenceGpu + ":1024/8"; // a Venus/Earth-sized cluster (1,022 / 997 GPUs)
    // Sia's heterogeneous simulator configuration (sia-simulator/simulator_config.py:8-10: 6 aws nodes of 4 T4,
    // 3 rtx nodes of 8 RTX 2080 Ti, 2 dgx-ext nodes of 8 A100); Pollux's 16 nodes x 4 GPUs (simulator.py
    // --min-nodes 16 --num-gpus 4, on g4dn.12xlarge: T4).
    if (format == "sia")
        return "t4:24/4,rtx2080ti:24/8,a100-40gb-sxm:16/8";
    if (format == "pollux")
        return "t4:64/4";
    return {};
}

// The goodput profiles of a Pollux/Sia workload: the request's, else sia/profiles found from the file's place in
// the shared data layout (sia/workloads/<set>/x.csv, sia/workloads/scale/<set>/x.csv, pollux/workloads/x.csv).
std::string goodputProfilesDir(const TraceImportRequest& a)
{
    if (!a.profiles.empty())
        return a.profiles;
    fs::path dir = fs::absolute(fs::path(a.file)).parent_path();
    for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
        for (const fs::path& c : {dir / "profiles", dir / "sia" / "profiles"}) {
            std::error_code ec;
            if (fs::is_directory(c, ec))
                return fs::weakly_canonical(c, ec).string();
        }
        if (dir == dir.root_path())
            break;
    }
    throw Error(
        fmt::format("{} needs goodput profiles: no sia/profiles found near {}; give --profiles DIR", a.format, a.file));
}

// Goodput jobs are elastic: from 1 GPU to what the batch allows (Pollux's simulator.py get_pollux_job_info:
// at most 64 replicas and max_batch_size // min_local_bsz), never below the tuned request.
void setGoodputRanges(std::vector<workload::Job>& jobs, const sim::GoodputThroughput& source)
{
    for (auto& j : jobs) {
        const workload::GoodputModel& m = source.goodputModel(j);
        int minLocal = 0;
        for (const auto& suffix : m.suffixes())
            minLocal = minLocal == 0 ? m.minLocalBsz(suffix) : std::min(minLocal, m.minLocalBsz(suffix));
        const int byBatch = m.maxBatch() / std::max(1, minLocal);
        j.minGpus = 1;
        j.maxGpus = std::max(j.gpus, std::max(1, std::min(64, byBatch)));
    }
}

} // namespace

int defaultGpusPerNode(const std::string& format, bool gavelCompat)
{
    // Gavel's simulator gives every GPU its own server (--num_gpus_per_server 1:1:1).
    if (format == "gavel")
        return gavelCompat ? 1 : 4;
    if (format == "pollux" || format == "tiresias")
        return 4; // Pollux's g4dn.12xlarge; Tiresias' cluster_spec.csv
    return 8;
}

std::optional<std::string> lowLoadWarning(const workload::OfferedLoad& load, int clusterGpus)
{
    if (!load.factor || *load.factor >= workload::kLowOfferedLoad)
        return std::nullopt;
    return fmt::format("the offered load is {:.3f} of the cluster's capacity ({} GPUs): jobs will rarely wait and "
                       "most policies will give the same schedule; a smaller cluster (or fewer jobs over a busier "
                       "period) makes the comparison meaningful",
                       *load.factor, clusterGpus);
}

TraceImport importTrace(const TraceImportRequest& a)
{
    TraceImport out;
    Scenario& s = out.scenario;
    hardware::GpuCatalog catalog = hardware::GpuCatalog::builtin();
    if (a.format == "openb") {
        for (auto& t : workload::openbCustomGpus()) {
            catalog.add(t);
            s.customGpus.push_back(std::move(t));
        }
    }
    if (!a.referenceGpu.empty())
        s.options.referenceGpu = catalog.at(a.referenceGpu).name;

    // The cluster first: a bad spec should not wait for a large trace to be read.
    std::vector<hardware::NodeGroup> groups;
    if (!a.cluster.empty()) {
        groups = hardware::parseClusterSpec(a.cluster, defaultGpusPerNode(a.format, a.gavelCompat), catalog);
        out.clusterSource = "given " + a.cluster;
    } else if (a.format == "openb") {
        const std::string nodes = a.nodes.empty() ? sibling(a.file, "openb_node_list_gpu_node.csv") : a.nodes;
        // A node file that cannot be read gets the reader's own error (it names the file).
        if (a.nodes.empty() && !exists(nodes))
            throw Error(fmt::format("openb needs its node list: no {} beside the trace; give --nodes FILE (or "
                                    "--cluster)",
                                    nodes));
        groups = workload::readOpenbNodes(nodes).groups;
        out.clusterSource = "node list " + util::baseName(nodes);
    } else if (a.format == "pai") {
        const std::string machines = a.nodes.empty() ? sibling(a.file, "pai_machine_spec.csv") : a.nodes;
        if (a.nodes.empty() && !exists(machines))
            throw Error(fmt::format("pai needs a cluster: no {} beside the trace; give --nodes FILE (the machine "
                                    "table) or --cluster",
                                    machines));
        groups = workload::readPaiMachines(machines).groups;
        out.clusterSource = "machine table " + util::baseName(machines);
    } else if (a.format == "tiresias") {
        // Tiresias' own default spec (simulator/cluster_spec.csv: 16 nodes of 4 GPUs) sits beside its traces.
        const std::string spec = a.nodes.empty() ? sibling(a.file, "cluster_spec.csv") : a.nodes;
        if (a.nodes.empty() && !exists(spec))
            throw Error(fmt::format("tiresias needs a cluster: no {} beside the trace; give --nodes FILE (a Tiresias "
                                    "cluster spec such as n32g4.csv) or --cluster",
                                    spec));
        groups = workload::readTiresiasClusterSpec(spec, s.options.referenceGpu);
        out.clusterSource = "cluster spec " + util::baseName(spec);
    } else {
        const std::string spec = defaultClusterSpec(a.format, s.options.referenceGpu);
        groups = hardware::parseClusterSpec(spec, defaultGpusPerNode(a.format, a.gavelCompat), catalog);
        out.clusterSource = "default " + spec;
    }

    workload::TraceOptions o;
    o.limit = a.limit > 0 ? std::optional<int>(a.limit) : std::nullopt;
    if (a.format == "gavel" && !a.throughputs.empty())
        o.gavel.referenceStepsPerS =
            workload::gavelReferenceRates(std::make_shared<const workload::GavelThroughputTable>(
                workload::GavelThroughputTable::fromFile(a.throughputs)));
    if (a.format == "pai")
        o.pairedPath = a.paiJobs;
    const bool goodput = a.format == "sia" || a.format == "pollux";
    const std::string profiles = goodput ? goodputProfilesDir(a) : std::string();
    workload::TraceRead read = workload::readTrace(a.format, a.file, o);
    // A scenario needs a workload: one with no jobs would only move the error to `scenario check`.
    if (read.jobs.empty())
        throw Error(util::baseName(a.file), "",
                    fmt::format("no jobs to import: {} data rows{}", read.rows,
                                read.skippedWhy.empty()
                                    ? ""
                                    : " (skipped " + std::to_string(read.skipped) + ": " + read.skippedWhy + ")"));
    assignUniqueIds(read.jobs);
    if (goodput) {
        std::set<std::string> apps;
        for (const auto& j : read.jobs)
            apps.insert(j.application);
        // Read and fitted now, so a missing or broken profile is refused here, not at the first simulate.
        const auto source = sim::GoodputThroughput::load(profiles, apps);
        setGoodputRanges(read.jobs, *source);
        out.goodputProfiles = profiles;
        out.goodputNote = fmt::format("goodput profiles: {} ({})", profiles, fmt::join(apps, ", "));
    }

    s.cluster = hardware::Cluster(groups, hardware::Link{hardware::LinkKind::Ethernet, 25.0 / 8.0, 5.0}, catalog);
    s.name = a.name.empty() ? fmt::format("{} trace {}", a.format, util::baseName(a.file)) : a.name;
    s.description =
        fmt::format("Imported as a {} trace from {}: {} of {} rows as jobs{}. "
                    "Cluster from {}.",
                    a.format, util::baseName(a.file), read.jobs.size(), read.rows,
                    read.skippedWhy.empty() ? "" : " (skipped: " + read.skippedWhy + ")", out.clusterSource);
    s.workload.jobs = std::move(read.jobs);
    s.options.gavelCompat = a.gavelCompat;
    if (goodput) {
        s.options.goodputProfiles = relativeTo(profiles, a.scenarioPath);
        // Both artifacts decide every 60 s; their goodput model prices spanning nodes itself (no extra slowdown).
        s.options.roundS = 60;
        s.options.crossNodeSlowdown = 1.0;
        if (a.format == "sia") {
            s.options.restartModel = "sia";
        } else {
            // Pollux's simulator.py Job.reallocate: 30 s on every placement, the first included.
            s.options.restartPenaltyS = 30;
            s.options.loadTimeS = 30;
        }
    }
    if (a.format == "tiresias") {
        // Tiresias' simulator runs a started job for exactly its duration: no restart or load cost, no slowdown
        // across nodes (docs/traces.md).
        s.options.restartPenaltyS = 0;
        s.options.loadTimeS = 0;
        s.options.crossNodeSlowdown = 1.0;
    }
    if (!a.throughputs.empty())
        s.options.throughputs = relativeTo(a.throughputs, a.scenarioPath);
    out.rows = read.rows;
    out.skipped = read.skipped;
    out.skippedWhy = std::move(read.skippedWhy);
    out.load = workload::offeredLoad(s.workload.jobs, s.cluster.totalGpus());
    return out;
}

} // namespace orrery::io

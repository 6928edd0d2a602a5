// orrery-cli import: a job trace (Gavel, Alibaba openb/PAI, Helios, Philly, Pollux/Sia) into a scenario file.
#include "cli.h"

#include "hardware/cluster_spec.h"
#include "io/error.h"
#include "io/scenario.h"
#include "io/workload_loader.h"
#include "sched/registry.h"
#include "sim/goodput_throughput.h"
#include "util/text.h"
#include "workload/gavel_throughput_table.h"
#include "workload/gavel_trace.h"
#include "workload/offered_load.h"
#include "workload/openb_trace.h"
#include "workload/pai_trace.h"
#include "workload/trace_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

namespace orrery::cli {

namespace {

namespace fs = std::filesystem;

struct ImportArgs
{
    std::string format;
    std::string file;
    std::string output;
    std::string cluster;
    std::string nodes;   // openb node list / PAI machine table
    std::string paiJobs; // PAI job table
    std::string throughputs;
    std::string referenceGpu;
    std::string profiles; // sia/pollux: goodput profile directory
    std::string name;
    std::vector<std::string> policies;
    int limit = 0;
    bool gavelCompat = false;
    bool json = false;
};

bool exists(const std::string& path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

std::string sibling(const std::string& file, const std::string& name)
{
    return (fs::path(file).parent_path() / name).string();
}

// A path as the scenario should store it: relative to the scenario's directory.
std::string relativeTo(const std::string& path, const std::string& scenarioPath)
{
    std::error_code ec;
    const fs::path base = fs::absolute(fs::path(scenarioPath), ec).parent_path();
    const fs::path rel = fs::relative(fs::absolute(path, ec), base, ec);
    return ec || rel.empty() ? fs::absolute(path).string() : rel.generic_string();
}

// Default GPUs per node of a --cluster item without `/N`. Gavel's simulator gives every
// GPU its own server (--num_gpus_per_server 1:1:1), so --gavel-compat follows it.
int defaultGpusPerNode(const ImportArgs& a)
{
    if (a.format == "gavel")
        return a.gavelCompat ? 1 : 4;
    if (a.format == "pollux")
        return 4;
    return 8;
}

// Clusters when --cluster is not given, per format (documented in docs/traces.md).
std::string defaultClusterSpec(const ImportArgs& a, const std::string& referenceGpu)
{
    if (a.format == "gavel")
        return "v100:36,p100:36,k80:36"; // Gavel's reference experiment
    if (a.format == "philly")
        return referenceGpu + ":2816/8"; // 352 Philly VC nodes x 8 GPUs (Helios' QSSF setting)
    if (a.format == "helios")
        return referenceGpu + ":1024/8"; // a Venus/Earth-sized cluster (1,022 / 997 GPUs)
    // Sia's heterogeneous simulator configuration (sia-simulator/simulator_config.py:8-10: 6 aws nodes of 4 T4,
    // 3 rtx nodes of 8 RTX 2080 Ti, 2 dgx-ext nodes of 8 A100); Pollux's 16 nodes x 4 GPUs (simulator.py
    // --min-nodes 16 --num-gpus 4, on g4dn.12xlarge: T4).
    if (a.format == "sia")
        return "t4:24/4,rtx2080ti:24/8,a100-40gb-sxm:16/8";
    if (a.format == "pollux")
        return "t4:64/4";
    return {};
}

// The goodput profiles of a Pollux/Sia workload: --profiles, else sia/profiles found from the file's place in the
// shared data layout (sia/workloads/<set>/x.csv, pollux/workloads/x.csv).
std::string goodputProfilesDir(const ImportArgs& a)
{
    if (!a.profiles.empty())
        return a.profiles;
    // Up the file's folders: sia/workloads/<set>/x.csv, sia/workloads/scale/<set>/x.csv, pollux/workloads/x.csv.
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

// A planner who imports Philly onto its default 2,816 GPUs sees FIFO and Tiresias agree to the second: say why
// before they simulate.
void warnIfLowLoad(const workload::OfferedLoad& load, const io::Scenario& s)
{
    if (!load.factor || *load.factor >= workload::kLowOfferedLoad)
        return;
    std::cerr << fmt::format("warning: the offered load is {:.3f} of the cluster's capacity ({} GPUs): jobs will "
                             "rarely wait and most policies will give the same schedule; a smaller --cluster (or "
                             "--limit over a busier period) makes the comparison meaningful\n",
                             *load.factor, s.cluster.totalGpus());
}

void runImport(const ImportArgs& a)
{
    const std::optional<int> limit = a.limit > 0 ? std::optional<int>(a.limit) : std::nullopt;
    io::Scenario s;
    hardware::GpuCatalog catalog = hardware::GpuCatalog::builtin();
    if (a.format == "openb") {
        for (auto& t : workload::openbCustomGpus()) {
            catalog.add(t);
            s.customGpus.push_back(std::move(t));
        }
    }
    if (!a.referenceGpu.empty())
        s.options.referenceGpu = catalog.at(a.referenceGpu).name;

    // The cluster first: a bad --cluster should not wait for a large trace to be read.
    std::vector<hardware::NodeGroup> groups;
    std::string clusterSource;
    if (!a.cluster.empty()) {
        groups = hardware::parseClusterSpec(a.cluster, defaultGpusPerNode(a), catalog);
        clusterSource = "--cluster " + a.cluster;
    } else if (a.format == "openb") {
        const std::string nodes = a.nodes.empty() ? sibling(a.file, "openb_node_list_gpu_node.csv") : a.nodes;
        // A --nodes file that cannot be read gets the reader's own error (it names the file).
        if (a.nodes.empty() && !exists(nodes))
            throw Error(fmt::format("openb needs its node list: no {} beside the trace; give --nodes FILE (or "
                                    "--cluster)",
                                    nodes));
        groups = workload::readOpenbNodes(nodes).groups;
        clusterSource = "node list " + util::baseName(nodes);
    } else if (a.format == "pai") {
        const std::string machines = a.nodes.empty() ? sibling(a.file, "pai_machine_spec.csv") : a.nodes;
        if (a.nodes.empty() && !exists(machines))
            throw Error(fmt::format("pai needs a cluster: no {} beside the trace; give --nodes FILE (the machine "
                                    "table) or --cluster",
                                    machines));
        groups = workload::readPaiMachines(machines).groups;
        clusterSource = "machine table " + util::baseName(machines);
    } else {
        const std::string spec = defaultClusterSpec(a, s.options.referenceGpu);
        groups = hardware::parseClusterSpec(spec, defaultGpusPerNode(a), catalog);
        clusterSource = "default " + spec;
    }

    workload::TraceOptions o;
    o.limit = limit;
    if (a.format == "gavel" && !a.throughputs.empty())
        o.gavel.referenceStepsPerS =
            workload::gavelReferenceRates(std::make_shared<const workload::GavelThroughputTable>(
                workload::GavelThroughputTable::fromFile(a.throughputs)));
    if (a.format == "pai")
        o.pairedPath = a.paiJobs;
    const bool goodput = a.format == "sia" || a.format == "pollux";
    const std::string profiles = goodput ? goodputProfilesDir(a) : std::string();
    workload::TraceRead read = workload::readTrace(a.format, a.file, o);
    // A scenario needs a workload: writing one with no jobs would only move the error to `scenario check`.
    if (read.jobs.empty())
        throw Error(util::baseName(a.file), "",
                    fmt::format("no jobs to import: {} data rows{}", read.rows,
                                read.skippedWhy.empty()
                                    ? ""
                                    : " (skipped " + std::to_string(read.skipped) + ": " + read.skippedWhy + ")"));
    io::assignUniqueIds(read.jobs);
    std::string goodputNote;
    if (goodput) {
        std::set<std::string> apps;
        for (const auto& j : read.jobs)
            apps.insert(j.application);
        // Read and fitted now, so a missing or broken profile is refused here, not at the first simulate.
        const auto source = sim::GoodputThroughput::load(profiles, apps);
        setGoodputRanges(read.jobs, *source);
        goodputNote = fmt::format("goodput profiles: {} ({})", profiles, fmt::join(apps, ", "));
    }

    s.cluster = hardware::Cluster(groups, hardware::Link{hardware::LinkKind::Ethernet, 25.0 / 8.0, 5.0}, catalog);

    s.name = a.name.empty() ? fmt::format("{} trace {}", a.format, util::baseName(a.file)) : a.name;
    s.description = fmt::format("Imported by orrery-cli import --format {} from {}: {} of {} rows as jobs{}. "
                                "Cluster from {}.",
                                a.format, util::baseName(a.file), read.jobs.size(), read.rows,
                                read.skippedWhy.empty() ? "" : " (skipped: " + read.skippedWhy + ")", clusterSource);
    s.workload.jobs = std::move(read.jobs);
    for (const auto& p : a.policies)
        s.policies.push_back(sched::resolvePolicy(p, "--policy").label);
    s.options.gavelCompat = a.gavelCompat;
    if (goodput) {
        s.options.goodputProfiles = relativeTo(profiles, a.output);
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
    if (!a.throughputs.empty())
        s.options.throughputs = relativeTo(a.throughputs, a.output);
    io::saveScenario(s, a.output);
    const workload::OfferedLoad load = workload::offeredLoad(s.workload.jobs, s.cluster.totalGpus());

    if (a.json) {
        printJson({{"output", a.output},
                   {"format", a.format},
                   {"rows", read.rows},
                   {"jobs", s.workload.jobs.size()},
                   {"skipped", read.skipped},
                   {"skipped_why", read.skippedWhy},
                   {"nodes", s.cluster.nodes().size()},
                   {"gpus", s.cluster.totalGpus()},
                   {"cluster", s.cluster.summary()},
                   {"offered_load", load.factor ? nlohmann::json(*load.factor) : nlohmann::json(nullptr)},
                   {"demand_gpu_hours", load.demandGpuS / 3600.0},
                   {"arrival_span_h", load.arrivalSpanS / 3600.0},
                   {"jobs_without_duration", load.jobsWithoutDuration},
                   {"goodput_profiles", profiles}});
        warnIfLowLoad(load, s);
        return;
    }
    std::cout << fmt::format("{}: {} jobs from {} rows of {}", a.output, s.workload.jobs.size(), read.rows,
                             util::baseName(a.file));
    if (read.skipped)
        std::cout << fmt::format(" (skipped {}: {})", read.skipped, read.skippedWhy);
    std::cout << fmt::format("\ncluster: {} ({} GPUs on {} nodes)\n", s.cluster.summary(), s.cluster.totalGpus(),
                             s.cluster.nodes().size());
    if (!goodputNote.empty())
        std::cout << goodputNote << "\n";
    if (load.factor)
        std::cout << fmt::format(
            "offered load: {:.3f} of the cluster ({:.0f} GPU-hours asked over {:.1f} h of "
            "arrivals{})\n",
            *load.factor, load.demandGpuS / 3600.0, load.arrivalSpanS / 3600.0,
            load.jobsWithoutDuration
                ? fmt::format("; {} jobs without a known duration not counted", load.jobsWithoutDuration)
                : "");
    warnIfLowLoad(load, s);
}

void registerImportCommand(CLI::App& app)
{
    auto a = std::make_shared<ImportArgs>();
    auto* cmd = app.add_subcommand("import", "Turn a job trace into a scenario file (jobs inline, with a cluster)");
    cmd->add_option("--format", a->format, "Trace format")->required()->check(CLI::IsMember(workload::traceFormats()));
    cmd->add_option("file", a->file,
                    "Trace file: Gavel .trace, openb pod list, PAI task table, Helios cluster_log.csv, Philly "
                    "philly.csv or cluster_job_log JSON, Pollux/Sia workload CSV")
        ->required();
    cmd->add_option("-o,--output", a->output, "Scenario file to write")->required();
    cmd->add_option("--cluster", a->cluster,
                    "Cluster as TYPE:GPUS[/GPUS_PER_NODE],... e.g. v100:36,p100:36,k80:36 (default per format: "
                    "see docs/traces.md)");
    cmd->add_option("--nodes", a->nodes,
                    "openb node list (default: openb_node_list_gpu_node.csv beside FILE) or PAI machine table "
                    "(default: pai_machine_spec.csv beside FILE)");
    cmd->add_option("--pai-jobs", a->paiJobs, "PAI job table, for submission times and users (optional)");
    cmd->add_option("--throughputs", a->throughputs, "Gavel throughput file (simulation_throughputs.json)");
    cmd->add_flag("--gavel-compat", a->gavelCompat, "Set the scenario's gavel_compat option (Gavel's semantics)");
    cmd->add_option("--reference-gpu", a->referenceGpu,
                    "GPU type the trace's durations were measured on (default v100-16gb)");
    cmd->add_option("--profiles", a->profiles,
                    "sia/pollux: goodput profile directory, one folder per application (default: sia/profiles "
                    "found from FILE's place in the shared data)");
    cmd->add_option("--limit", a->limit, "Import only the first N jobs (earliest arrivals; Gavel: first rows)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--policy", a->policies, "Policy to list in the scenario (repeatable)");
    cmd->add_option("--name", a->name, "Scenario name");
    cmd->add_flag("--json", a->json, "Machine-readable summary");
    cmd->callback([a] {
        if (!a->throughputs.empty() && a->format != "gavel")
            throw Error("--throughputs applies to --format gavel only");
        if (!a->paiJobs.empty() && a->format != "pai")
            throw Error("--pai-jobs applies to --format pai only");
        if (!a->profiles.empty() && a->format != "sia" && a->format != "pollux")
            throw Error("--profiles applies to --format sia and pollux only");
        if (!a->nodes.empty() && a->format != "openb" && a->format != "pai")
            throw Error("--nodes applies to --format openb and pai only");
        runImport(*a);
    });
}

} // namespace

ORRERY_CLI_COMMAND(20, registerImportCommand);

} // namespace orrery::cli

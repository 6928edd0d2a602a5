// orrery-cli import: a job trace (Gavel, Alibaba openb/PAI, Helios, Philly, Pollux/Sia) into a scenario file.
#include "cli.h"

#include "io/error.h"
#include "io/scenario.h"
#include "io/trace_import.h"
#include "sched/registry.h"
#include "util/text.h"
#include "workload/offered_load.h"
#include "workload/trace_reader.h"

#include <fmt/format.h>

#include <iostream>

namespace orrery::cli {

namespace {

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

void runImport(const ImportArgs& a)
{
    io::TraceImportRequest r;
    r.format = a.format;
    r.file = a.file;
    r.cluster = a.cluster;
    r.nodes = a.nodes;
    r.paiJobs = a.paiJobs;
    r.throughputs = a.throughputs;
    r.referenceGpu = a.referenceGpu;
    r.name = a.name;
    r.scenarioPath = a.output;
    r.limit = a.limit;
    r.gavelCompat = a.gavelCompat;
    r.profiles = a.profiles;
    io::TraceImport imported = io::importTrace(r);
    io::Scenario& s = imported.scenario;
    for (const auto& p : a.policies)
        s.policies.push_back(sched::resolvePolicy(p, "--policy").label);
    io::saveScenario(s, a.output);
    const workload::OfferedLoad& load = imported.load;
    const auto warning = io::lowLoadWarning(load, s.cluster.totalGpus());

    if (a.json) {
        printJson({{"output", a.output},
                   {"format", a.format},
                   {"rows", imported.rows},
                   {"jobs", s.workload.jobs.size()},
                   {"skipped", imported.skipped},
                   {"skipped_why", imported.skippedWhy},
                   {"nodes", s.cluster.nodes().size()},
                   {"gpus", s.cluster.totalGpus()},
                   {"cluster", s.cluster.summary()},
                   {"cluster_source", imported.clusterSource},
                   {"offered_load", load.factor ? nlohmann::json(*load.factor) : nlohmann::json(nullptr)},
                   {"demand_gpu_hours", load.demandGpuS / 3600.0},
                   {"arrival_span_h", load.arrivalSpanS / 3600.0},
                   {"jobs_without_duration", load.jobsWithoutDuration},
                   {"goodput_profiles", imported.goodputProfiles}});
        if (warning)
            std::cerr << "warning: " << *warning << " (--cluster, --limit)\n";
        return;
    }
    std::cout << fmt::format("{}: {} jobs from {} rows of {}", a.output, s.workload.jobs.size(), imported.rows,
                             util::baseName(a.file));
    if (imported.skipped)
        std::cout << fmt::format(" (skipped {}: {})", imported.skipped, imported.skippedWhy);
    std::cout << fmt::format("\ncluster: {} ({} GPUs on {} nodes; {})\n", s.cluster.summary(), s.cluster.totalGpus(),
                             s.cluster.nodes().size(), imported.clusterSource);
    if (!imported.goodputNote.empty())
        std::cout << imported.goodputNote << "\n";
    if (load.factor)
        std::cout << fmt::format(
            "offered load: {:.3f} of the cluster ({:.0f} GPU-hours asked over {:.1f} h of "
            "arrivals{})\n",
            *load.factor, load.demandGpuS / 3600.0, load.arrivalSpanS / 3600.0,
            load.jobsWithoutDuration
                ? fmt::format("; {} jobs without a known duration not counted", load.jobsWithoutDuration)
                : "");
    if (warning)
        std::cerr << "warning: " << *warning << " (--cluster, --limit)\n";
}

void registerImportCommand(CLI::App& app)
{
    auto a = std::make_shared<ImportArgs>();
    auto* cmd = app.add_subcommand("import", "Turn a job trace into a scenario file (jobs inline, with a cluster)");
    cmd->add_option("--format", a->format, "Trace format")->required()->check(CLI::IsMember(workload::traceFormats()));
    cmd->add_option("file", a->file,
                    "Trace file: Gavel .trace, openb pod list, PAI task table, Helios cluster_log.csv, Philly "
                    "philly.csv or cluster_job_log JSON, Pollux/Sia workload CSV, Tiresias job CSV")
        ->required();
    cmd->add_option("-o,--output", a->output, "Scenario file to write")->required();
    cmd->add_option("--cluster", a->cluster,
                    "Cluster as TYPE:GPUS[/GPUS_PER_NODE],... e.g. v100:36,p100:36,k80:36 (default per format: "
                    "see docs/traces.md)");
    cmd->add_option("--nodes", a->nodes,
                    "openb node list (default: openb_node_list_gpu_node.csv beside FILE), PAI machine table "
                    "(default: pai_machine_spec.csv beside FILE) or Tiresias cluster spec (default: "
                    "cluster_spec.csv beside FILE)");
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
        if (!a->nodes.empty() && a->format != "openb" && a->format != "pai" && a->format != "tiresias")
            throw Error("--nodes applies to --format openb, pai and tiresias only");
        runImport(*a);
    });
}

} // namespace

ORRERY_CLI_COMMAND(20, registerImportCommand, "import");

} // namespace orrery::cli

#pragma once

#include "io/scenario.h"
#include "workload/offered_load.h"

#include <optional>
#include <string>

namespace orrery::io {

/** What to import: a trace file, its format and the cluster to run it on (docs/traces.md). */
struct TraceImportRequest
{
    std::string format;       ///< one of workload::traceFormats()
    std::string file;         ///< the trace
    std::string cluster;      ///< TYPE:GPUS[/PER_NODE],...; empty: the format's default (or its node table)
    std::string nodes;        ///< openb node list / PAI machine table; empty: beside the trace
    std::string paiJobs;      ///< PAI job table (submission times, users); optional
    std::string throughputs;  ///< Gavel throughput file; gavel only
    std::string referenceGpu; ///< the GPU the trace's durations were measured on; empty: the scenario default
    std::string name;         ///< scenario name; empty: "<format> trace <file>"
    /** sia/pollux: the goodput profile directory (one folder per application); empty: sia/profiles found near the
     *  trace in the shared data layout. */
    std::string profiles;
    /** Where the scenario will be saved (paths inside it are made relative to it); empty: kept absolute. */
    std::string scenarioPath;
    int limit = 0; ///< the first N jobs only (earliest arrivals; Gavel: first rows); 0: all
    bool gavelCompat = false;
};

/** A trace turned into a scenario (jobs inline, with a cluster), and what a user should know about it. */
struct TraceImport
{
    Scenario scenario;
    int rows = 0;    ///< data rows read
    int skipped = 0; ///< rows that are no GPU job Orrery can run
    std::string skippedWhy;
    std::string clusterSource;   ///< "given v100:64", "default v100-16gb:2816/8", "node list x.csv"
    std::string goodputProfiles; ///< sia/pollux: the profile directory used; else empty
    std::string goodputNote;     ///< sia/pollux: "goodput profiles: DIR (apps)"; else empty
    workload::OfferedLoad load;
};

/**
 * Reads the trace and builds its scenario, as `orrery-cli import` writes it and the GUI's File > Import Trace
 * previews it. The cluster is resolved first, so a bad cluster spec fails before a large trace is read. Errors
 * name the file, line and field (the readers'), the option, or "no jobs to import" with the rows skipped.
 */
TraceImport importTrace(const TraceImportRequest& request);

/** The GPUs per node of a cluster item without `/N` for this format (Gavel's simulator: 1 under gavel_compat). */
int defaultGpusPerNode(const std::string& format, bool gavelCompat);

/** A warning when the offered load is far below the cluster's capacity (docs/traces.md); empty otherwise. */
std::optional<std::string> lowLoadWarning(const workload::OfferedLoad& load, int clusterGpus);

} // namespace orrery::io

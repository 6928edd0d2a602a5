#pragma once

// Azure Functions traces in the MAF1 schema (Shahrad et al., ATC'20: invocations_per_function_md.anon.dNN.csv):
// one row per function, `HashOwner,HashApp,HashFunction,Trigger,1,2,...,1440`, the invocations in each
// minute of a day; or in the MAF2 schema (the 2021 invocation trace): one row per invocation, `app,func,
// end_timestamp,duration` in seconds, counted here per function and minute of its start. AlpaServe (§6.2) assigns
// functions to models round-robin and re-fits each time window with a Gamma process (docs/serving.md, "Traces").

#include "serve/arrivals.h"

#include <string>
#include <string_view>
#include <vector>

namespace orrery::serve {

struct MafTrace
{
    std::vector<std::string> functions;      ///< HashFunction, file order
    std::vector<std::vector<double>> counts; ///< counts[f][minute]
    int minutes = 0;
};

/**
 * Parses the schema: a header with `HashFunction` and minute columns `1`..`N` (N >= 1, consecutive; other
 * columns ignored), then one row per function with non-negative integer counts. Errors name the file, the
 * line and the column (`trace.csv:7: 12: expected a non-negative integer, got "x"`).
 */
MafTrace parseMafTrace(std::string_view text, const std::string& fileLabel);
/** MAF1 or MAF2, told apart by the header (MAF2 has `end_timestamp`). */
MafTrace readMafTrace(const std::string& path);

/** The longest MAF2 trace read, in minutes (31 days; the published trace spans 14). */
inline constexpr int kMaxMaf2Minutes = 31 * 24 * 60;

/**
 * MAF2: a header with `func`, `end_timestamp` and `duration` (other columns ignored), one row per invocation. An
 * invocation starts at end_timestamp - duration; it counts in minute floor(start / 60) of its function (functions in
 * order of first appearance). Errors name the file, line and column (`maf2.csv:4: duration: 9 s is longer than ...`).
 */
MafTrace parseMaf2Trace(std::string_view text, const std::string& fileLabel);

struct MafFit
{
    int windowMinutes = 60;
    double rateScale = 1; ///< multiplies every fitted rate (the paper scales traces to a target rate)
    double cvScale = 1;   ///< multiplies every fitted CV
};

/**
 * Function f feeds model f mod `models`; for each window of `windowMinutes` and each model, the per-minute
 * counts give rate = mean / 60 and CV² = variance / mean (a renewal process's index of dispersion over long
 * intervals equals its CV², the only burstiness per-minute counts can show). Windows: ceil(minutes / window);
 * the last may be shorter and is fitted on its own minutes. Result: [window][model].
 */
std::vector<std::vector<GammaProcess>> fitMafWindows(const MafTrace& trace, int models, const MafFit& fit);

} // namespace orrery::serve

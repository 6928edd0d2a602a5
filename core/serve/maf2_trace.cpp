// The MAF2 schema (Azure Functions invocation trace 2021): one row per invocation, counted per function and minute
// into the MafTrace that MAF1 files give directly (maf_trace.h).
#include "serve/maf_trace.h"

#include "io/error.h"
#include "io/text_table.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace orrery::serve {

MafTrace parseMaf2Trace(std::string_view text, const std::string& fileLabel)
{
    const io::TextTable table = io::TextTable::parse(text, fileLabel);
    const int function = table.requireColumn("func");
    const int end = table.requireColumn("end_timestamp");
    const int duration = table.requireColumn("duration");
    MafTrace trace;
    std::map<std::string, std::size_t> index;
    for (const io::TextRecord& record : table.records()) {
        const io::FieldParser row(fileLabel, record.line);
        const std::string& name = table.field(record, function);
        if (name.empty())
            row.fail("func", "missing function name");
        const double endS = row.nonNegativeNumber("end_timestamp", table.field(record, end));
        const double durationS = row.nonNegativeNumber("duration", table.field(record, duration));
        if (durationS > endS)
            row.fail("duration", fmt::format("{:g} s is longer than the end time {:g} s: the invocation would start "
                                             "before the trace",
                                             durationS, endS));
        const double minute = std::floor((endS - durationS) / 60);
        if (minute >= kMaxMaf2Minutes)
            row.fail("end_timestamp",
                     fmt::format("starts in minute {:g}, past the {}-minute limit (31 days)", minute, kMaxMaf2Minutes));
        const auto [it, added] = index.emplace(name, trace.functions.size());
        if (added) {
            trace.functions.push_back(name);
            trace.counts.emplace_back();
        }
        auto& counts = trace.counts[it->second];
        const auto m = static_cast<std::size_t>(minute);
        if (counts.size() <= m)
            counts.resize(m + 1, 0.0);
        ++counts[m];
        trace.minutes = std::max(trace.minutes, static_cast<int>(m) + 1);
    }
    if (trace.functions.empty())
        throw Error(fileLabel, "", "no invocations (the file has a header and no rows)");
    for (auto& counts : trace.counts)
        counts.resize(static_cast<std::size_t>(trace.minutes), 0.0);
    return trace;
}

} // namespace orrery::serve

#include "serve/maf_trace.h"

#include "io/error.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>

namespace orrery::serve {

namespace {

/** The minute a header name stands for, or 0 when it is not a positive integer. */
int minuteOf(const std::string& name)
{
    int v = 0;
    const auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
    return ec == std::errc() && p == name.data() + name.size() && v > 0 ? v : 0;
}

} // namespace

MafTrace parseMafTrace(std::string_view text, const std::string& fileLabel)
{
    const io::TextTable table = io::TextTable::parse(text, fileLabel);
    const int function = table.requireColumn("HashFunction");
    std::vector<int> minuteColumn;
    for (std::size_t c = 0; c < table.header().size(); ++c) {
        const int minute = minuteOf(table.header()[c]);
        if (minute == 0)
            continue;
        if (minute != static_cast<int>(minuteColumn.size()) + 1)
            io::FieldParser(fileLabel, table.headerLine())
                .fail("header", fmt::format("minute column \"{}\" out of order (expected \"{}\")", table.header()[c],
                                            minuteColumn.size() + 1));
        minuteColumn.push_back(static_cast<int>(c));
    }
    if (minuteColumn.empty())
        io::FieldParser(fileLabel, table.headerLine())
            .fail("header", "no minute columns (expected \"1\", \"2\", ... after HashFunction)");
    MafTrace trace;
    trace.minutes = static_cast<int>(minuteColumn.size());
    for (const io::TextRecord& record : table.records()) {
        const io::FieldParser row(fileLabel, record.line);
        const std::string& name = table.field(record, function);
        if (name.empty())
            row.fail("HashFunction", "missing function name");
        std::vector<double> counts;
        counts.reserve(minuteColumn.size());
        for (std::size_t m = 0; m < minuteColumn.size(); ++m)
            counts.push_back(double(row.nonNegativeInteger(table.header()[static_cast<std::size_t>(minuteColumn[m])],
                                                           table.field(record, minuteColumn[m]))));
        trace.functions.push_back(name);
        trace.counts.push_back(std::move(counts));
    }
    if (trace.functions.empty())
        throw Error(fileLabel, "", "no functions (the file has a header and no rows)");
    return trace;
}

MafTrace readMafTrace(const std::string& path)
{
    const std::string text = util::readFile(path);
    const std::string label = std::filesystem::path(path).filename().string();
    const std::string_view header = std::string_view(text).substr(0, text.find('\n'));
    return header.find("end_timestamp") != std::string_view::npos ? parseMaf2Trace(text, label)
                                                                  : parseMafTrace(text, label);
}

std::vector<std::vector<GammaProcess>> fitMafWindows(const MafTrace& trace, int models, const MafFit& fit)
{
    if (models < 1)
        throw Error("", "models", "a trace needs at least one model to feed");
    if (fit.windowMinutes < 1)
        throw Error("", "window", fmt::format("expected a window of at least one minute, got {}", fit.windowMinutes));
    if (!(fit.rateScale >= 0) || !(fit.cvScale >= 0))
        throw Error("", "scale", "rate and CV scales must be non-negative");
    // Per model, the summed counts of its functions per minute.
    std::vector<std::vector<double>> perModel(static_cast<std::size_t>(models),
                                              std::vector<double>(static_cast<std::size_t>(trace.minutes), 0.0));
    for (std::size_t f = 0; f < trace.counts.size(); ++f)
        for (int m = 0; m < trace.minutes; ++m)
            perModel[f % static_cast<std::size_t>(models)][static_cast<std::size_t>(m)] +=
                trace.counts[f][static_cast<std::size_t>(m)];
    std::vector<std::vector<GammaProcess>> windows;
    for (int begin = 0; begin < trace.minutes; begin += fit.windowMinutes) {
        const int end = std::min(trace.minutes, begin + fit.windowMinutes);
        std::vector<GammaProcess> window;
        for (const auto& counts : perModel) {
            double sum = 0, sq = 0;
            for (int m = begin; m < end; ++m) {
                sum += counts[static_cast<std::size_t>(m)];
                sq += counts[static_cast<std::size_t>(m)] * counts[static_cast<std::size_t>(m)];
            }
            const double n = end - begin, mean = sum / n, var = std::max(0.0, sq / n - mean * mean);
            GammaProcess p;
            p.rate = mean / 60.0 * fit.rateScale;
            p.cv = mean > 0 ? std::sqrt(var / mean) * fit.cvScale : 1.0;
            window.push_back(p);
        }
        windows.push_back(std::move(window));
    }
    return windows;
}

} // namespace orrery::serve

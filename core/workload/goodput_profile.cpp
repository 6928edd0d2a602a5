#include "workload/goodput_profile.h"

#include "io/error.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace orrery::workload {

namespace fs = std::filesystem;

std::vector<ProfileRow> parseProfileRows(std::string_view text, const std::string& fileLabel)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cPlacement = t.column("placement");
    const int cNodes = cPlacement < 0 ? t.requireColumn("num_nodes") : -1;
    const int cReplicas = cPlacement < 0 ? t.requireColumn("num_replicas") : -1;
    const int cLocal = t.requireColumn("local_bsz"), cStep = t.requireColumn("step_time"),
              cSync = t.requireColumn("sync_time");
    std::vector<ProfileRow> out;
    for (const auto& r : t.records()) {
        const io::FieldParser p(fileLabel, r.line);
        ProfileRow row;
        row.line = r.line;
        if (cPlacement >= 0) {
            // One digit per node, each the GPUs used there: "44" is 2 nodes x 4 GPUs.
            const std::string& placement = t.field(r, cPlacement);
            if (placement.empty() || placement.size() > 64 ||
                !std::all_of(placement.begin(), placement.end(), [](char c) { return c >= '1' && c <= '9'; }))
                p.fail("placement", fmt::format("expected one digit 1-9 per node (\"44\": 2 nodes x 4 GPUs), got {}",
                                                io::describeField(placement)));
            row.nodes = static_cast<int>(placement.size());
            row.replicas = 0;
            for (char c : placement)
                row.replicas += c - '0';
        } else {
            row.nodes = static_cast<int>(p.positiveInteger("num_nodes", t.field(r, cNodes)));
            row.replicas = static_cast<int>(p.positiveInteger("num_replicas", t.field(r, cReplicas)));
            if (row.nodes > row.replicas)
                p.fail("num_nodes",
                       fmt::format("{} nodes for {} replicas: each node holds at least one", row.nodes, row.replicas));
        }
        row.localBsz = p.positiveNumber("local_bsz", t.field(r, cLocal));
        row.stepS = p.positiveNumber("step_time", t.field(r, cStep));
        row.syncS = p.nonNegativeNumber("sync_time", t.field(r, cSync));
        out.push_back(row);
    }
    return out;
}

std::vector<ValidationRow> parseValidationRows(std::string_view text, const std::string& fileLabel)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cProgress = t.requireColumn("progress"), cIteration = t.requireColumn("iteration"),
              cMetric = t.requireColumn("metric"), cSqr = t.requireColumn("grad_sqr"),
              cVar = t.requireColumn("grad_var");
    std::vector<ValidationRow> out;
    for (const auto& r : t.records()) {
        const io::FieldParser p(fileLabel, r.line);
        ValidationRow v;
        v.progress = p.positiveNumber("progress", t.field(r, cProgress));
        v.iteration = p.positiveNumber("iteration", t.field(r, cIteration));
        v.metric = p.number("metric", t.field(r, cMetric));
        v.gradSqr = p.nonNegativeNumber("grad_sqr", t.field(r, cSqr));
        v.gradVar = p.nonNegativeNumber("grad_var", t.field(r, cVar));
        // Progress is what the goodput source integrates: it must grow from epoch to epoch.
        if (!out.empty() && v.progress < out.back().progress)
            p.fail("progress", fmt::format("{} is below the previous epoch's {}", v.progress, out.back().progress));
        out.push_back(v);
    }
    if (out.empty())
        throw Error(fileLabel, "", "no validation rows (one per epoch expected)");
    return out;
}

GoodputProfile readGoodputProfile(const std::string& dir)
{
    GoodputProfile g;
    g.application = fs::path(dir).filename().string();
    if (g.application.empty())
        g.application = fs::path(dir).parent_path().filename().string();
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error(dir, "", "no such profile directory (expected placements-*.csv, validation-*.csv)");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file())
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::map<std::string, std::vector<ProfileRow>> scalability;
    for (const auto& f : files) {
        const std::string name = f.filename().string();
        if (f.extension() != ".csv")
            continue;
        const std::string stem = f.stem().string();
        const std::string label = g.application + "/" + name;
        const auto suffixOf = [&](std::string_view prefix) {
            return stem.size() > prefix.size() ? stem.substr(prefix.size() + 1) : std::string();
        };
        if (stem.rfind("placements", 0) == 0) {
            g.rows[suffixOf("placements")] = parseProfileRows(util::readFile(f.string()), label);
        } else if (stem.rfind("scalability", 0) == 0) {
            scalability[suffixOf("scalability")] = parseProfileRows(util::readFile(f.string()), label);
        } else if (stem.rfind("validation-", 0) == 0) {
            const std::string batch = stem.substr(std::string("validation-").size());
            int b = 0;
            const auto [end, err] = std::from_chars(batch.data(), batch.data() + batch.size(), b);
            if (err != std::errc() || end != batch.data() + batch.size() || b <= 0)
                throw Error(label, "", fmt::format("expected validation-<global batch>.csv, got \"{}\"", name));
            g.validation[b] = parseValidationRows(util::readFile(f.string()), label);
        }
    }
    if (g.rows.empty())
        throw Error(dir, "", "no placements[-GPU].csv in the profile directory");
    if (g.validation.empty())
        throw Error(dir, "", "no validation-<batch>.csv in the profile directory");
    for (auto& [suffix, rows] : scalability) {
        auto& into = g.rows[suffix];
        into.insert(into.end(), rows.begin(), rows.end());
    }
    return g;
}

std::string profileSuffixForGpu(std::string_view catalogName)
{
    if (catalogName == "t4")
        return "aws";
    if (catalogName == "v100-32gb")
        return "azure";
    if (catalogName == "a100-40gb-sxm")
        return "dgx-ext";
    if (catalogName == "quadro-rtx6000")
        return "quad";
    if (catalogName == "rtx2080ti")
        return "rtx";
    return "";
}

} // namespace orrery::workload

#include "workload/gavel_throughput_table.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_fast_parse.h"
#include "io/json_reader.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <optional>

namespace orrery::workload {

namespace {

/**
 * The table read straight from simdjson's DOM, for a text that the strict reader below would accept, giving what it
 * would give. Copying the 1.2 MB file into nlohmann's DOM first was a fifth of a whole `orrery-cli simulate` of
 * Gavel's trace (docs/performance.md, seventh pass). Anything the strict reader would refuse or could read
 * differently (a syntax error, a repeated key at any depth, an unknown worker type, a bad key or value, two keys
 * naming one (job type, scale factor)) gives nullopt, and the strict reader then says what and where.
 */
std::optional<GavelThroughputTable::Rows> readFast(const std::string& text)
{
    simdjson::dom::parser& parser = io::threadJsonParser();
    simdjson::dom::element doc;
    // readFile leaves room for simdjson's padding: the text is then parsed in place rather than copied.
    const bool copy = text.capacity() - text.size() < simdjson::SIMDJSON_PADDING;
    if (parser.parse(text.data(), text.size(), copy).get(doc) != simdjson::SUCCESS || !doc.is_object())
        return std::nullopt;
    const simdjson::dom::object workers(doc);
    if (!io::uniqueKeys(workers))
        return std::nullopt;
    const auto& catalog = hardware::GpuCatalog::builtin();
    GavelThroughputTable::Rows out;
    for (const auto worker : workers) {
        if (!worker.value.is_object())
            return std::nullopt;
        if (worker.key.find("unconsolidated") != std::string_view::npos) {
            if (!io::uniqueKeysThroughout(worker.value))
                return std::nullopt;
            continue;
        }
        const hardware::GpuType* type = catalog.find(std::string(worker.key));
        const simdjson::dom::object jobs(worker.value);
        if (!type || !io::uniqueKeys(jobs))
            return std::nullopt;
        auto& row = out[type->name];
        std::string jobType;
        for (const auto job : jobs) {
            int scale = 0;
            if (!parseGavelJobKey(job.key, jobType, scale) || !job.value.is_object())
                return std::nullopt;
            const simdjson::dom::object entry(job.value);
            if (!io::uniqueKeys(entry))
                return std::nullopt;
            bool found = false;
            for (const auto member : entry) {
                if (member.key != "null") {
                    if (!io::uniqueKeysThroughout(member.value))
                        return std::nullopt;
                    continue;
                }
                double value = 0;
                if (member.value.get_double().get(value) != simdjson::SUCCESS || !(value >= 0) || !std::isfinite(value))
                    return std::nullopt;
                if (!row.emplace(std::make_pair(jobType, scale), value).second)
                    return std::nullopt;
                found = true;
            }
            if (!found)
                return std::nullopt;
        }
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

} // namespace

bool parseGavelJobKey(std::string_view key, std::string& jobType, int& scaleFactor)
{
    // Python's repr of a (str, int) tuple: "('<job type>', <n>)".
    if (key.size() < 7 || key.compare(0, 2, "('") != 0 || key.back() != ')')
        return false;
    const auto sep = key.rfind("', ");
    if (sep == std::string::npos || sep < 2)
        return false;
    const std::string_view number = key.substr(sep + 3, key.size() - sep - 4);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos || number.size() > 6)
        return false;
    jobType = key.substr(2, sep - 2);
    std::from_chars(number.data(), number.data() + number.size(), scaleFactor);
    return scaleFactor > 0;
}

GavelThroughputTable GavelThroughputTable::fromFile(const std::string& path)
{
    const std::string text = util::readFile(path);
    try {
        return fromJsonText(text, util::baseName(path));
    } catch (const Error& e) {
        throw e.inFile(util::baseName(path));
    }
}

GavelThroughputTable GavelThroughputTable::fromJsonText(const std::string& text, const std::string& fileLabel)
{
    if (auto rows = readFast(text)) {
        GavelThroughputTable out;
        out.m_table = std::move(*rows);
        out.m_label = fileLabel;
        return out;
    }
    // The file is mostly the throughputs of job pairs sharing a GPU, which nothing here reads: they
    // are checked but not stored, which halves the time a Gavel scenario takes to load.
    const auto isolatedOnly = [](int depth, std::string_view key) { return depth < 3 || key == "null"; };
    const nlohmann::json doc = io::parseJson(text, fileLabel, isolatedOnly);
    if (!doc.is_object())
        throw Error(fileLabel, "", "expected an object of worker types, got " + io::describeJson(doc));
    const auto& catalog = hardware::GpuCatalog::builtin();
    GavelThroughputTable out;
    out.m_label = fileLabel;
    for (const auto& [worker, jobs] : doc.items()) {
        if (worker.find("unconsolidated") != std::string::npos)
            continue;
        const hardware::GpuType* type = catalog.find(worker);
        if (!type)
            throw Error(fileLabel, worker,
                        fmt::format("unknown worker type \"{}\" (expected a GPU of the catalog, e.g. v100)", worker));
        if (!jobs.is_object())
            throw Error(fileLabel, worker, "expected an object of job types, got " + io::describeJson(jobs));
        auto& row = out.m_table[type->name];
        for (const auto& [key, entry] : jobs.items()) {
            const std::string path = worker + "." + key;
            std::string jobType;
            int scale = 0;
            if (!parseGavelJobKey(key, jobType, scale))
                throw Error(fileLabel, path, "expected a key of the form \"('<job type>', <scale factor>)\"");
            if (!entry.is_object() || !entry.contains("null"))
                throw Error(fileLabel, path, "expected an object with the isolated throughput under \"null\"");
            const auto& iso = entry.at("null");
            if (!iso.is_number() || iso.get<double>() < 0 || !std::isfinite(iso.get<double>()))
                throw Error(fileLabel, path + ".null",
                            "expected a non-negative throughput in steps/s, got " + io::describeJson(iso));
            row[{jobType, scale}] = iso.get<double>();
        }
    }
    if (out.m_table.empty())
        throw Error(fileLabel, "", "no worker types in the throughput table");
    return out;
}

double GavelThroughputTable::lookup(const std::string& catalogType, const std::string& jobType, int scaleFactor) const
{
    const Row* r = row(catalogType);
    if (!r)
        return -1;
    const auto it = r->find({jobType, scaleFactor});
    return it == r->end() ? -1 : it->second;
}

const GavelThroughputTable::Row* GavelThroughputTable::row(const std::string& catalogType) const
{
    const auto it = m_table.find(catalogType);
    return it == m_table.end() ? nullptr : &it->second;
}

bool GavelThroughputTable::hasJobType(const std::string& jobType) const
{
    for (const auto& entry : m_table) {
        const auto it = entry.second.lower_bound({jobType, 0});
        if (it != entry.second.end() && it->first.first == jobType)
            return true;
    }
    return false;
}

std::vector<std::string> GavelThroughputTable::workerTypes() const
{
    std::vector<std::string> out;
    for (const auto& entry : m_table)
        out.push_back(entry.first);
    return out;
}

} // namespace orrery::workload

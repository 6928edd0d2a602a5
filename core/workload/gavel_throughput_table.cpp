#include "workload/gavel_throughput_table.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>

namespace orrery::workload {

bool parseGavelJobKey(const std::string& key, std::string& jobType, int& scaleFactor)
{
    // Python's repr of a (str, int) tuple: "('<job type>', <n>)".
    if (key.size() < 7 || key.compare(0, 2, "('") != 0 || key.back() != ')')
        return false;
    const auto sep = key.rfind("', ");
    if (sep == std::string::npos || sep < 2)
        return false;
    jobType = key.substr(2, sep - 2);
    const std::string number = key.substr(sep + 3, key.size() - sep - 4);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 6)
        return false;
    scaleFactor = std::stoi(number);
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

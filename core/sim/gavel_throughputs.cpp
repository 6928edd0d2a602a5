#include "sim/gavel_throughputs.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>

namespace orrery::sim {

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

GavelThroughputs GavelThroughputs::fromFile(const std::string& path)
{
    const std::string text = util::readFile(path);
    try {
        return fromJsonText(text, util::baseName(path));
    } catch (const Error& e) {
        throw e.inFile(util::baseName(path));
    }
}

GavelThroughputs GavelThroughputs::fromJsonText(const std::string& text, const std::string& fileLabel)
{
    const nlohmann::json doc = io::parseJson(text, fileLabel);
    if (!doc.is_object())
        throw Error(fileLabel, "", "expected an object of worker types, got " + io::describeJson(doc));
    const auto& catalog = hardware::GpuCatalog::builtin();
    GavelThroughputs out;
    for (const auto& [worker, jobs] : doc.items()) {
        if (worker.find("unconsolidated") != std::string::npos)
            continue; // Gavel's non-consolidated placements; its simulator never reads them.
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

double GavelThroughputs::lookup(const std::string& catalogType, const std::string& jobType, int scaleFactor) const
{
    const auto row = m_table.find(catalogType);
    if (row == m_table.end())
        return -1;
    const auto it = row->second.find({jobType, scaleFactor});
    return it == row->second.end() ? -1 : it->second;
}

bool GavelThroughputs::hasJobType(const std::string& jobType) const
{
    for (const auto& [type, row] : m_table) {
        const auto it = row.lower_bound({jobType, 0});
        if (it != row.end() && it->first.first == jobType)
            return true;
    }
    return false;
}

std::vector<std::string> GavelThroughputs::workerTypes() const
{
    std::vector<std::string> out;
    for (const auto& [type, row] : m_table)
        out.push_back(type);
    return out;
}

double GavelThroughputs::rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const
{
    const auto row = m_table.find(gpu.name);
    if (row == m_table.end() || count < 1)
        return 0;
    const auto exact = row->second.find({job.jobType, count});
    if (exact != row->second.end())
        return exact->second;
    // Largest profiled scale factor below `count`, scaled linearly.
    auto it = row->second.lower_bound({job.jobType, count});
    if (it == row->second.begin())
        return 0;
    --it;
    if (it->first.first != job.jobType)
        return 0;
    return it->second * count / it->first.second;
}

} // namespace orrery::sim

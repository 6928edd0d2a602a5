#include "hardware/gpu_catalog.h"

#include "hardware/gpu_curves.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "util/embedded.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace orrery::hardware {

using nlohmann::json;

GpuCurves gpuCurvesFromJson(const json& value, const std::string& path)
{
    io::JsonObject o(value, path);
    GpuCurves c;
    c.sms = int(o.integer("sms", 1, 100000));
    const auto fraction = [&o](const char* key) {
        const double v = o.positiveNumber(key);
        if (v > 1.5)
            o.fail(key, "expected a fraction of the peak in (0, 1.5]");
        return v;
    };
    c.gemmEfficiency = fraction("gemm_efficiency");
    c.fp32GemmEfficiency = fraction("fp32_gemm_efficiency");
    c.memoryEfficiency = fraction("memory_efficiency");
    c.tile = o.positiveNumber("tile");
    if (c.tile < 8 || c.tile > 1024)
        o.fail("tile", "expected a tile edge in [8, 1024] elements");
    c.halfK = o.nonNegativeNumber("half_k");
    if (c.halfK > 65536)
        o.fail("half_k", "expected at most 65536");
    c.kernelFloorUs = o.nonNegativeNumber("kernel_floor_us");
    if (c.kernelFloorUs > 1000)
        o.fail("kernel_floor_us", "expected at most 1000 µs");
    c.source = o.string("source", "");
    c.misalignedGemmEfficiency = o.positiveNumber("misaligned_gemm_efficiency", c.misalignedGemmEfficiency);
    if (c.misalignedGemmEfficiency > 1)
        o.fail("misaligned_gemm_efficiency", "expected a fraction of the aligned rate in (0, 1]");
    c.fp8GemmSpeedup = o.nonNegativeNumber("fp8_gemm_speedup", 0);
    if (c.fp8GemmSpeedup > 8)
        o.fail("fp8_gemm_speedup", "expected the FP8/bf16 GEMM rate ratio, at most 8 (0: no FP8)");
    c.flash2Efficiency = o.nonNegativeNumber("flash2_efficiency", 0);
    if (c.flash2Efficiency > 1)
        o.fail("flash2_efficiency", "expected a fraction of the large-GEMM rate in [0, 1] (0: the GEMM curve)");
    o.finish();
    return c;
}

json gpuCurvesToJson(const GpuCurves& c)
{
    json j = {{"sms", c.sms},
              {"gemm_efficiency", c.gemmEfficiency},
              {"fp32_gemm_efficiency", c.fp32GemmEfficiency},
              {"tile", c.tile},
              {"half_k", c.halfK},
              {"memory_efficiency", c.memoryEfficiency},
              {"kernel_floor_us", c.kernelFloorUs},
              {"misaligned_gemm_efficiency", c.misalignedGemmEfficiency}};
    if (c.fp8GemmSpeedup > 0)
        j["fp8_gemm_speedup"] = c.fp8GemmSpeedup;
    if (c.flash2Efficiency > 0)
        j["flash2_efficiency"] = c.flash2Efficiency;
    if (!c.source.empty())
        j["source"] = c.source;
    return j;
}

GpuType gpuTypeFromJson(const json& value, const std::string& path)
{
    io::JsonObject o(value, path);
    GpuType t;
    t.name = util::toLower(o.string("name"));
    if (t.name.empty())
        o.fail("name", "expected a non-empty name");
    t.display = o.string("display", t.name);
    t.vendor = o.choice("vendor", {"nvidia", "amd", "intel", "other"}, "nvidia");
    for (auto& a : o.stringList("aliases"))
        t.aliases.push_back(util::toLower(a));
    t.memoryGiB = o.positiveNumber("memory_gib");
    t.fp16TFlops = o.positiveNumber("fp16_tflops");
    t.fp32TFlops = o.positiveNumber("fp32_tflops");
    t.memoryBandwidthGBps = o.positiveNumber("memory_bandwidth_gb_s");
    const std::string link = o.choice("intra_link", {"pcie", "nvlink", "infinity-fabric"}, "pcie");
    t.intraLink.kind = linkKindFromString(link);
    t.intraLink.bandwidthGBps = o.positiveNumber("intra_link_gb_s", t.intraLink.kind == LinkKind::PCIe ? 16.0 : 150.0);
    t.priceUsdPerHour = o.nonNegativeNumber("price_usd_per_hour", 0.0);
    t.source = o.string("source", "");
    if (const json* curves = o.member("curves")) {
        t.curves = gpuCurvesFromJson(*curves, o.childPath("curves"));
        // Calibrations written before the field existed measured GEMMs only: their attention rate is the type's.
        if (curves->is_object() && !curves->contains("flash2_efficiency"))
            t.curves->flash2Efficiency = defaultCurves(t).flash2Efficiency;
    }
    o.finish();
    return t;
}

json gpuTypeToJson(const GpuType& t)
{
    json j = {{"name", t.name},
              {"display", t.display},
              {"vendor", t.vendor},
              {"aliases", t.aliases},
              {"memory_gib", t.memoryGiB},
              {"fp16_tflops", t.fp16TFlops},
              {"fp32_tflops", t.fp32TFlops},
              {"memory_bandwidth_gb_s", t.memoryBandwidthGBps},
              {"intra_link", toString(t.intraLink.kind)},
              {"intra_link_gb_s", t.intraLink.bandwidthGBps},
              {"price_usd_per_hour", t.priceUsdPerHour}};
    if (!t.source.empty())
        j["source"] = t.source;
    if (t.curves)
        j["curves"] = gpuCurvesToJson(*t.curves);
    return j;
}

namespace {

GpuCatalog& processCatalog()
{
    static GpuCatalog catalog = GpuCatalog::fromJson(json::parse(embedded::gpusJson), "gpus.json");
    return catalog;
}

} // namespace

const GpuCatalog& GpuCatalog::builtin()
{
    return processCatalog();
}

void GpuCatalog::calibrateBuiltin(GpuType measured)
{
    processCatalog().add(std::move(measured));
}

GpuCatalog GpuCatalog::fromJson(const json& doc, const std::string& file)
{
    try {
        io::JsonObject o(doc, "");
        if (o.string("format") != "orrery-gpus")
            o.fail("format", "expected \"orrery-gpus\"");
        const auto version = o.integer("version", 1, io::limits::kMaxInt);
        if (version != 1)
            o.fail("version", "unsupported version " + std::to_string(version) + " (this Orrery reads 1)");
        GpuCatalog c;
        const json& gpus = o.array("gpus");
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            const std::string path = io::indexPath("gpus", i);
            GpuType t = gpuTypeFromJson(gpus[i], path);
            if (c.find(t.name))
                throw Error("", path + ".name", "duplicate GPU type \"" + t.name + "\"");
            try {
                c.add(std::move(t));
            } catch (const Error& e) {
                throw Error("", path + ".aliases", e.message());
            }
        }
        o.finish();
        return c;
    } catch (const Error& e) {
        throw e.inFile(file);
    }
}

GpuCatalog GpuCatalog::fromFile(const std::string& path)
{
    return fromJson(io::parseJson(util::readFile(path), path), path);
}

void GpuCatalog::add(GpuType type)
{
    const int existing = indexOf(type.name);
    int idx = existing;
    if (existing >= 0 && m_types[existing].name == type.name) {
        for (const auto& a : m_types[existing].aliases)
            m_index.erase(util::toLower(a));
        m_types[existing] = std::move(type);
    } else {
        idx = static_cast<int>(m_types.size());
        m_types.push_back(std::move(type));
    }
    const GpuType& t = m_types[idx];
    m_index[util::toLower(t.name)] = idx;
    // Lookups are case-insensitive, so the index holds lower-case keys whatever the caller wrote.
    for (const auto& alias : t.aliases) {
        const std::string a = util::toLower(alias);
        auto it = m_index.find(a);
        if (it != m_index.end() && it->second != idx)
            throw Error("alias \"" + alias + "\" of \"" + t.name + "\" is already used by \"" +
                        m_types[it->second].name + "\"");
        m_index[a] = idx;
    }
}

int GpuCatalog::indexOf(const std::string& nameOrAlias) const
{
    auto it = m_index.find(util::toLower(nameOrAlias));
    return it == m_index.end() ? -1 : it->second;
}

const GpuType* GpuCatalog::find(const std::string& nameOrAlias) const
{
    const int i = indexOf(nameOrAlias);
    return i < 0 ? nullptr : &m_types[i];
}

const GpuType& GpuCatalog::at(const std::string& nameOrAlias) const
{
    if (const GpuType* t = find(nameOrAlias))
        return *t;
    std::vector<std::string> all;
    for (const auto& [k, v] : m_index)
        all.push_back(k);
    std::string msg = "unknown GPU type \"" + nameOrAlias + "\"";
    const std::string near = io::closestMatch(util::toLower(nameOrAlias), all);
    if (!near.empty())
        msg += " (did you mean \"" + near + "\"?)";
    throw Error(msg);
}

std::vector<std::string> GpuCatalog::names() const
{
    std::vector<std::string> out;
    for (const auto& t : m_types)
        out.push_back(t.name);
    return out;
}

} // namespace orrery::hardware

#pragma once

#include "hardware/gpu_type.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace orrery::hardware {

/**
 * The known GPU types, looked up by name or alias (case-insensitive). The
 * built-in catalog is `data/gpus.json`, compiled into the binaries.
 */
class GpuCatalog
{
public:
    GpuCatalog() = default;

    /** The embedded catalog (parsed once, then shared), with any calibrations applied to it. */
    static const GpuCatalog& builtin();
    /**
     * Puts a calibrated type (profile::Calibration::type: measured curves) into builtin(), replacing the
     * type of that name or adding it. Not synchronised: call it at start-up (`--calibration`) or while
     * no estimate, provisioning or simulation runs.
     */
    static void calibrateBuiltin(GpuType measured);
    /** Parses the `orrery-gpus` format; errors name `file` and the JSON path. */
    static GpuCatalog fromJson(const nlohmann::json& doc, const std::string& file);
    static GpuCatalog fromFile(const std::string& path);

    /** Adds or replaces a type (custom types from a scenario). Throws on alias clashes. */
    void add(GpuType type);

    const std::vector<GpuType>& types() const { return m_types; }
    std::size_t size() const { return m_types.size(); }
    /** By name or alias; nullptr when unknown. */
    const GpuType* find(const std::string& nameOrAlias) const;
    /** Index into types(), or -1. */
    int indexOf(const std::string& nameOrAlias) const;
    /** Like find(), but throws an Error with a "did you mean" suggestion. */
    const GpuType& at(const std::string& nameOrAlias) const;
    std::vector<std::string> names() const;

private:
    std::vector<GpuType> m_types;
    std::unordered_map<std::string, int> m_index; // lower-case name/alias -> index
};

/** Reads a type's measured kernel curves (`curves` of a GPU type; docs/models/profiler.md) at `path`. */
GpuCurves gpuCurvesFromJson(const nlohmann::json& value, const std::string& path);
nlohmann::json gpuCurvesToJson(const GpuCurves& curves);

/** Reads one GPU type object (scenario `gpus[]` or catalog entry) at `path`. */
GpuType gpuTypeFromJson(const nlohmann::json& value, const std::string& path);
nlohmann::json gpuTypeToJson(const GpuType& type);

} // namespace orrery::hardware

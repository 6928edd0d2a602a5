#pragma once

// Internal to the scenario reader: the "options" members that carry their own sub-formats, and policy specs.

#include "io/error.h"
#include "io/json_reader.h"
#include "io/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace orrery::hardware {
class GpuCatalog;
}
namespace orrery::workload {
class ModelLibrary;
}

namespace orrery::io::detail {

/** f(), with an error that names no place of its own placed at `key` of `o` (a catalog or library lookup's). */
template <class F> auto rethrowAt(JsonObject& o, const std::string& key, F&& f)
{
    try {
        return f();
    } catch (const Error& e) {
        if (!e.location().empty())
            throw;
        o.fail(key, e.message());
    }
}

/** The "options" member, read against the scenario's models and catalog (restart_s_by_model, reference_gpu). */
void readOptions(JsonObject& options, ScenarioOptions& op, const workload::ModelLibrary& models,
                 const hardware::GpuCatalog& catalog);

/** `options.estimate_error` and `estimate_error_scale` into `op` (docs/simulator.md, "Estimates versus truth"). */
void readEstimateError(JsonObject& options, ScenarioOptions& op);
/** `options.locality` at `path`: a model name or an object (docs/simulator.md, "Locality"). */
LocalityOptions readLocality(const nlohmann::json& value, const std::string& path);
/** One `policies[]` entry at `path` (a spec string or {"name", "params"}), checked; its canonical label. */
std::string readPolicy(const nlohmann::json& entry, const std::string& path);

} // namespace orrery::io::detail

#include "serve/serving_spec.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "serve/maf_trace.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace orrery::serve {

const std::vector<std::string>& placementMethods()
{
    static const std::vector<std::string> methods = {kMethodAlpaServe, kMethodSelectiveReplication, kMethodClockwork};
    return methods;
}

const std::vector<std::string>& ablationMethods()
{
    static const std::vector<std::string> methods = {kMethodRoundRobin, kMethodGreedy};
    return methods;
}

std::string methodTitle(const std::string& method)
{
    if (method == kMethodAlpaServe)
        return "AlpaServe";
    if (method == kMethodSelectiveReplication)
        return "Selective Replication";
    if (method == kMethodClockwork)
        return "Clockwork++";
    if (method == kMethodRoundRobin)
        return "Round robin";
    if (method == kMethodGreedy)
        return "Greedy placement";
    if (method == kMethodGiven)
        return "given placement";
    return method;
}

std::optional<ModelCounts> modelSet(const std::string& name)
{
    const std::string s = util::toLower(name);
    if (s == "s1")
        return ModelCounts{{"bert-1.3b", 32}};
    if (s == "s2")
        return ModelCounts{{"bert-6.7b", 32}};
    if (s == "s3")
        return ModelCounts{{"bert-1.3b", 10}, {"bert-2.7b", 10}, {"bert-6.7b", 10},
                           {"moe-1.3b", 10},  {"moe-2.4b", 10},  {"moe-5.3b", 10}};
    if (s == "s4")
        return ModelCounts{{"bert-104b", 4}};
    return std::nullopt;
}

std::string modelCountsText(const ModelCounts& counts)
{
    std::string out;
    for (const auto& [name, count] : counts)
        out += fmt::format("{}{}:{}", out.empty() ? "" : ",", name, count);
    return out;
}

nlohmann::json servingSpecToJson(const ServingSpec& s)
{
    nlohmann::json models = nlohmann::json::array();
    for (const auto& [name, count] : s.models)
        models.push_back({{"model", name}, {"count", count}});
    return {{"model_set", s.modelSet},
            {"models", models},
            {"library", s.library},
            {"gpu", s.gpu},
            {"gpus", s.gpus},
            {"memory_budget_gb", s.memoryBudgetGB},
            {"calibrate", s.calibrate},
            {"rate_per_s", s.ratePerS},
            {"cv", s.cv},
            {"power_law", s.powerLaw},
            {"duration_s", s.durationS},
            // A 64-bit seed as text: JSON readers that keep numbers as doubles would round it.
            {"seed", std::to_string(s.seed)},
            {"trace", s.trace},
            {"window_min", s.windowMin},
            {"rate_scale", s.rateScale},
            {"cv_scale", s.cvScale},
            {"slo_scale", s.sloScale},
            {"max_batch", s.maxBatch},
            {"auto_partition", s.autoPartition},
            {"method", s.method},
            {"beam", s.beam},
            {"fast_above", s.fastAbove},
            {"max_buckets", s.maxBuckets},
            {"window_s", s.windowS},
            {"placement_file", s.placementFile}};
}

ServingSpec servingSpecFromJson(const nlohmann::json& doc, const std::string& file)
{
    try {
        io::JsonObject o(doc, "");
        ServingSpec s;
        s.modelSet = o.string("model_set", "");
        const auto& models = o.array("models");
        for (std::size_t i = 0; i < models.size(); ++i) {
            io::JsonObject m(models[i], fmt::format("models[{}]", i));
            const std::string name = m.string("model");
            const auto count = static_cast<int>(m.integer("count", 1, 100000));
            m.finish();
            s.models.emplace_back(name, count);
        }
        s.library = o.string("library", "");
        s.gpu = o.string("gpu", s.gpu);
        s.gpus = static_cast<int>(o.integer("gpus", s.gpus, 1, 4096));
        s.memoryBudgetGB = o.nonNegativeNumber("memory_budget_gb", 0);
        s.calibrate = o.boolean("calibrate", true);
        s.ratePerS = o.nonNegativeNumber("rate_per_s", s.ratePerS);
        s.cv = o.nonNegativeNumber("cv", s.cv);
        s.powerLaw = o.nonNegativeNumber("power_law", s.powerLaw);
        s.durationS = o.positiveNumber("duration_s", s.durationS);
        const std::string seed = o.string("seed", "1");
        char* end = nullptr;
        s.seed = std::strtoull(seed.c_str(), &end, 10);
        if (seed.empty() || *end != '\0' || seed.front() == '-')
            o.fail("seed", fmt::format("expected a non-negative integer as text, got \"{}\"", seed));
        s.trace = o.string("trace", "");
        s.windowMin = static_cast<int>(o.integer("window_min", s.windowMin, 1, 1440));
        s.rateScale = o.nonNegativeNumber("rate_scale", 1);
        s.cvScale = o.nonNegativeNumber("cv_scale", 1);
        s.sloScale = o.positiveNumber("slo_scale", s.sloScale);
        s.maxBatch = static_cast<int>(o.integer("max_batch", 1, 1, 1024));
        s.autoPartition = o.boolean("auto_partition", true);
        std::vector<std::string> methods = placementMethods();
        methods.insert(methods.end(), ablationMethods().begin(), ablationMethods().end());
        methods.push_back(kMethodGiven);
        s.method = o.choice("method", methods, kMethodAlpaServe);
        s.beam = static_cast<int>(o.integer("beam", 1, 1, 64));
        s.fastAbove = o.nonNegativeNumber("fast_above", s.fastAbove);
        s.maxBuckets = static_cast<int>(o.integer("max_buckets", s.maxBuckets, 1, 16));
        s.windowS = o.positiveNumber("window_s", s.windowS);
        s.placementFile = o.string("placement_file", "");
        o.finish();
        return s;
    } catch (const Error& e) {
        throw e.inFile(file);
    }
}

std::unique_ptr<ServingSetup> prepareServing(const ServingSpec& spec)
{
    auto s = std::make_unique<ServingSetup>();
    const ServingLibrary loaded = spec.library.empty() ? ServingLibrary() : ServingLibrary::fromFile(spec.library);
    const ServingLibrary& library = spec.library.empty() ? ServingLibrary::builtin() : loaded;
    if (spec.models.empty())
        throw Error("", "models", "no models to serve");
    s->problem =
        ServingProblem::fromCounts(spec.models, library, hardware::GpuCatalog::builtin().at(spec.gpu), spec.gpus);
    if (!(spec.memoryBudgetGB >= 0))
        throw Error("", "memory_budget_gb", fmt::format("expected a non-negative budget, got {}", spec.memoryBudgetGB));
    s->problem.latency.memoryBudgetBytes = spec.memoryBudgetGB * 1e9;
    s->problem.latency.calibrate = spec.calibrate;
    s->problem.latency.autoPartition = spec.autoPartition;
    if (spec.maxBatch < 1)
        throw Error("", "max_batch", fmt::format("expected a batch of at least 1, got {}", spec.maxBatch));
    s->problem.maxBatch = spec.maxBatch;
    if (!(spec.sloScale > 0))
        throw Error("", "slo_scale", fmt::format("expected a positive scale, got {}", spec.sloScale));
    s->problem.sloScale = spec.sloScale;
    const int models = s->problem.models();
    if (spec.usesTrace()) {
        const MafTrace trace = readMafTrace(spec.trace);
        s->windows = fitMafWindows(trace, models, {spec.windowMin, spec.rateScale, spec.cvScale});
        s->windowS = spec.windowMin * 60.0;
        s->workload = windowedGammaWorkload(s->windows, s->windowS, spec.seed);
    } else {
        if (!(spec.durationS > 0))
            throw Error("", "duration_s", fmt::format("expected a positive duration, got {}", spec.durationS));
        if (!(spec.ratePerS >= 0) || !(spec.cv >= 0))
            throw Error("", spec.ratePerS >= 0 ? "cv" : "rate_per_s", "expected a non-negative number");
        std::vector<GammaProcess> per;
        for (double r : powerLawRates(spec.ratePerS, models, spec.powerLaw))
            per.push_back({r, spec.cv});
        s->workload = gammaWorkload(per, spec.durationS, spec.seed);
    }
    return s;
}

} // namespace orrery::serve

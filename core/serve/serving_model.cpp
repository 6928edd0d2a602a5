#include "serve/serving_model.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "util/embedded.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace orrery::serve {

using nlohmann::json;

double ServingModel::paramCount() const
{
    double params = double(spec.paramCount());
    if (experts > 0) {
        const double h = spec.hidden, f = spec.ffnHidden;
        const double expert = 2 * h * f + (spec.bias ? f + h : 0.0);
        // One expert is already in the dense layer; the others and the gate come on top.
        params += spec.layers * ((experts - 1) * expert + h * experts);
    }
    return params;
}

double ServingModel::weightBytes() const
{
    return paperSizeGB > 0 ? paperSizeGB * 1e9 : 2.0 * paramCount();
}

workload::ModelSpec ServingModel::computeSpec() const
{
    workload::ModelSpec dense = spec;
    if (experts > 0)
        dense.ffnHidden = spec.ffnHidden * topK;
    return dense;
}

const ServingLibrary& ServingLibrary::builtin()
{
    static const ServingLibrary library =
        fromJson(io::parseJson(embedded::servingModelsJson, "serving_models.json"), "serving_models.json");
    return library;
}

ServingLibrary ServingLibrary::fromJson(const json& doc, const std::string& file)
{
    try {
        io::JsonObject o(doc, "");
        if (o.string("format") != "orrery-serving-models")
            o.fail("format", "expected \"orrery-serving-models\"");
        if (o.integer("version", 1, io::limits::kMaxInt) != 1)
            o.fail("version", "unsupported version (this Orrery reads 1)");
        ServingLibrary lib;
        if (o.has("calibration")) {
            io::JsonObject c = o.object("calibration");
            lib.m_calibrationGpu = c.string("gpu", lib.m_calibrationGpu);
            if (c.integer("seq", 2048, 1, io::limits::kMaxInt) <= 0)
                c.fail("seq", "expected a positive integer");
            c.allow({"note"});
            c.finish();
        }
        const json& models = o.array("models");
        for (std::size_t i = 0; i < models.size(); ++i) {
            const std::string path = io::indexPath("models", i);
            io::JsonObject m(models[i], path);
            ServingModel model;
            model.name = m.string("name");
            if (model.name.empty())
                m.fail("name", "expected a non-empty name");
            const json* spec = m.member("model");
            if (!spec)
                m.fail("model", "missing: the transformer's shape (the keys of data/models.json)");
            model.spec = workload::modelSpecFromJson(*spec, m.childPath("model"));
            model.experts = static_cast<int>(m.integer("experts", 0, 0, 4096));
            model.topK = static_cast<int>(m.integer("top_k", 2, 1, 64));
            if (model.experts > 0 && model.topK > model.experts)
                m.fail("top_k", "more experts per token than the model has");
            model.paperLatencyMs = m.nonNegativeNumber("paper_latency_ms", 0);
            model.paperSizeGB = m.nonNegativeNumber("paper_size_gb", 0);
            m.finish();
            if (lib.find(model.name))
                throw Error("", path + ".name", "duplicate model \"" + model.name + "\"");
            lib.m_models.push_back(std::move(model));
        }
        o.finish();
        return lib;
    } catch (const Error& e) {
        throw e.inFile(file);
    }
}

ServingLibrary ServingLibrary::fromFile(const std::string& path)
{
    const std::string label = std::filesystem::path(path).filename().string();
    return fromJson(io::parseJson(util::readFile(path), label), label);
}

const ServingModel* ServingLibrary::find(const std::string& name) const
{
    const std::string key = util::toLower(name);
    for (const auto& m : m_models)
        if (util::toLower(m.name) == key)
            return &m;
    return nullptr;
}

const ServingModel& ServingLibrary::at(const std::string& name) const
{
    if (const ServingModel* m = find(name))
        return *m;
    std::vector<std::string> names;
    for (const auto& m : m_models)
        names.push_back(m.name);
    std::string msg = "unknown serving model \"" + name + "\"";
    const std::string near = io::closestMatch(name, names);
    if (!near.empty())
        msg += " (did you mean \"" + near + "\"?)";
    throw Error(msg);
}

} // namespace orrery::serve

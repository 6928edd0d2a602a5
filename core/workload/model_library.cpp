#include "workload/model_library.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "util/embedded.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

namespace orrery::workload {

using nlohmann::json;

const ModelLibrary& ModelLibrary::builtin()
{
    static const ModelLibrary library = fromJson(json::parse(embedded::modelsJson), "models.json");
    return library;
}

ModelLibrary ModelLibrary::fromJson(const json& doc, const std::string& file)
{
    try {
        io::JsonObject o(doc, "");
        if (o.string("format") != "orrery-models")
            o.fail("format", "expected \"orrery-models\"");
        if (o.integer("version", 1, io::limits::kMaxInt) != 1)
            o.fail("version", "unsupported version (this Orrery reads 1)");
        ModelLibrary lib;
        const json& models = o.array("models");
        for (std::size_t i = 0; i < models.size(); ++i) {
            ModelSpec m = modelSpecFromJson(models[i], io::indexPath("models", i));
            if (lib.find(m.name))
                throw Error("", io::indexPath("models", i) + ".name", "duplicate model \"" + m.name + "\"");
            lib.add(std::move(m));
        }
        o.finish();
        return lib;
    } catch (const Error& e) {
        throw e.inFile(file);
    }
}

void ModelLibrary::add(ModelSpec model)
{
    for (auto& m : m_models)
        if (util::toLower(m.name) == util::toLower(model.name)) {
            m = std::move(model);
            return;
        }
    m_models.push_back(std::move(model));
}

const ModelSpec* ModelLibrary::find(const std::string& name) const
{
    const std::string key = util::toLower(name);
    for (const auto& m : m_models)
        if (util::toLower(m.name) == key)
            return &m;
    return nullptr;
}

const ModelSpec& ModelLibrary::at(const std::string& name) const
{
    if (const ModelSpec* m = find(name))
        return *m;
    std::vector<std::string> names;
    for (const auto& m : m_models)
        names.push_back(m.name);
    std::string msg = "unknown model \"" + name + "\"";
    const std::string near = io::closestMatch(name, names);
    if (!near.empty())
        msg += " (did you mean \"" + near + "\"?)";
    throw Error(msg);
}

ModelSpec resolveModel(const std::string& nameOrFile, const ModelLibrary& library)
{
    if (nameOrFile.size() > 5 && nameOrFile.substr(nameOrFile.size() - 5) == ".json") {
        const std::string text = util::readFile(nameOrFile);
        json doc = io::parseJson(text, nameOrFile);
        try {
            if (doc.is_object() && !doc.contains("name"))
                doc["name"] = util::baseName(nameOrFile).substr(0, util::baseName(nameOrFile).size() - 5);
            return modelSpecFromJson(doc, "");
        } catch (const Error& e) {
            throw e.inFile(nameOrFile);
        }
    }
    return library.at(nameOrFile);
}

} // namespace orrery::workload

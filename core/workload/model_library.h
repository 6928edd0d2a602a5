#pragma once

#include "workload/model_spec.h"

#include <string>
#include <vector>

namespace orrery::workload {

/** Named models: the built-in library (`data/models.json`) plus custom ones. */
class ModelLibrary
{
public:
    static const ModelLibrary& builtin();
    static ModelLibrary fromJson(const nlohmann::json& doc, const std::string& file);

    void add(ModelSpec model); ///< replaces a model of the same name
    const std::vector<ModelSpec>& models() const { return m_models; }
    const ModelSpec* find(const std::string& name) const; ///< case-insensitive
    /** Throws Error with a "did you mean" suggestion. */
    const ModelSpec& at(const std::string& name) const;

private:
    std::vector<ModelSpec> m_models;
};

/** A model by library name, or from a JSON file when `nameOrFile` ends in `.json`. */
ModelSpec resolveModel(const std::string& nameOrFile, const ModelLibrary& library = ModelLibrary::builtin());

} // namespace orrery::workload

#include "serve/placement_json.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace orrery::serve {

using nlohmann::json;

json placementToJson(const Placement& placement, const ServingProblem& problem)
{
    json groups = json::array();
    for (const auto& g : placement.groups) {
        json models = json::array();
        for (int m : g.models)
            models.push_back(problem.instances[static_cast<std::size_t>(m)].name);
        groups.push_back({{"stages", g.config.stages}, {"intra", g.config.intra}, {"models", models}});
    }
    return {{"format", "orrery-serving-placement"},
            {"version", 1},
            {"gpu", problem.gpu ? problem.gpu->name : std::string()},
            {"gpus", placement.gpus()},
            {"groups", groups}};
}

Placement placementFromJson(const json& doc, const std::string& file, const ServingProblem& problem)
{
    try {
        if (doc.is_object() && doc.contains("placement") && !doc.contains("format"))
            return placementFromJson(doc.at("placement"), file, problem);
        io::JsonObject o(doc, "");
        if (o.string("format") != "orrery-serving-placement")
            o.fail("format", "expected \"orrery-serving-placement\"");
        if (o.integer("version", 1, io::limits::kMaxInt) != 1)
            o.fail("version", "unsupported version (this Orrery reads 1)");
        o.allow({"gpu", "gpus"});
        Placement p;
        const json& groups = o.array("groups");
        for (std::size_t i = 0; i < groups.size(); ++i) {
            io::JsonObject g(groups[i], io::indexPath("groups", i));
            GroupPlacement group;
            group.config.stages = static_cast<int>(g.integer("stages", 1, 1, 4096));
            group.config.intra = static_cast<int>(g.integer("intra", 1, 1, 4096));
            const std::vector<std::string> names = g.stringList("models");
            for (std::size_t k = 0; k < names.size(); ++k) {
                int found = -1;
                for (int m = 0; m < problem.models(); ++m)
                    if (problem.instances[static_cast<std::size_t>(m)].name == names[k])
                        found = m;
                if (found < 0)
                    throw Error("", fmt::format("{}.models[{}]", g.path(), k),
                                fmt::format("no model instance \"{}\" in the served set", names[k]));
                if (std::find(group.models.begin(), group.models.end(), found) != group.models.end())
                    throw Error("", fmt::format("{}.models[{}]", g.path(), k),
                                fmt::format("\"{}\" is listed twice in one group", names[k]));
                group.models.push_back(found);
            }
            g.finish();
            p.groups.push_back(std::move(group));
        }
        o.finish();
        return p;
    } catch (const Error& e) {
        throw e.inFile(file);
    }
}

} // namespace orrery::serve

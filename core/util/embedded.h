#pragma once

#include <string_view>

// Data files compiled into liborrery (see cmake/OrreryEmbed.cmake).
namespace orrery::embedded {
extern const std::string_view gpusJson;
extern const std::string_view modelsJson;
extern const std::string_view defaultScenarioJson;
extern const std::string_view servingModelsJson;
} // namespace orrery::embedded

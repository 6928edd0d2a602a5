#include "sim/run_result.h"

#include <array>
#include <optional>
#include <string_view>

namespace orrery::sim {

namespace {
constexpr std::array<const char*, 7> kNames = {"suspend", "resume", "drop", "profile", "plan", "reason", "auction"};
}

const char* toString(JobEventKind kind)
{
    return kNames[static_cast<std::size_t>(kind)];
}

std::optional<JobEventKind> jobEventKindFromString(std::string_view name)
{
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (name == kNames[i])
            return static_cast<JobEventKind>(i);
    return std::nullopt;
}

const std::vector<std::string>& reservedJobExtraKeys()
{
    static const std::vector<std::string> keys = {"dropped_s",          "drop_reason", "suspensions",
                                                  "paused_gpu_seconds", "slo_class",   "deadlines"};
    return keys;
}

} // namespace orrery::sim

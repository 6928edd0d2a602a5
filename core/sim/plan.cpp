#include "sim/plan.h"

#include <fmt/format.h>

namespace orrery::sim {

std::string toString(const Plan& plan)
{
    std::string out;
    const auto field = [&out](const char* name, int value) {
        if (value != 0)
            out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
    };
    field("batch", plan.globalBatch);
    field("micro_batch", plan.microBatch);
    field("dp", plan.dp);
    field("tp", plan.tp);
    field("pp", plan.pp);
    if (!plan.stages.empty()) {
        // type x gpus : layers [/ dp x tp] per stage; -1 and 0 stand for "unspecified".
        out += out.empty() ? "stages=[" : " stages=[";
        for (std::size_t k = 0; k < plan.stages.size(); ++k) {
            const StageLayout& s = plan.stages[k];
            out += fmt::format("{}{}x{}:{}", k ? "," : "", s.type, s.gpus, s.layers);
            if (s.dp != 0 || s.tp != 0)
                out += fmt::format("/{}x{}", s.dp, s.tp);
        }
        out += ']';
    }
    return out;
}

} // namespace orrery::sim

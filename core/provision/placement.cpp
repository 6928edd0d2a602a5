#include "provision/placement.h"

#include "provision/iteration_time.h"

namespace orrery::provision {

bool adjustToCoverAllLayers(const PipelineModel& model, std::vector<Stage>& stages)
{
    const int k = static_cast<int>(stages.size());
    int rem = model.layers();
    for (const auto& s : stages)
        rem -= s.layers;
    // Stage 0's layer count was chosen by the placer's enumeration: leftovers go to the others.
    while (rem > 0) {
        bool progressed = false;
        for (int s = 1; s < k && rem > 0; ++s) {
            auto& st = stages[static_cast<std::size_t>(s)];
            if (st.layers + 1 <= model.maxLayers(st.gpu, s, k)) {
                ++st.layers;
                --rem;
                progressed = true;
            }
        }
        if (!progressed)
            return false;
    }
    while (rem < 0) {
        bool progressed = false;
        for (int s = k - 1; s >= 1 && rem < 0; --s) {
            auto& st = stages[static_cast<std::size_t>(s)];
            if (st.layers > 1) {
                --st.layers;
                ++rem;
                progressed = true;
            }
        }
        if (!progressed)
            return false;
    }
    for (int s = 0; s < k; ++s)
        if (stages[static_cast<std::size_t>(s)].layers < 1)
            return false;
    return true;
}

Placement scorePlacement(const PipelineModel& model, std::vector<Stage> stages, double cutoffS)
{
    Placement p;
    const int k = static_cast<int>(stages.size());
    int total = 0;
    for (int s = 0; s < k; ++s) {
        const auto& st = stages[static_cast<std::size_t>(s)];
        if (st.layers < 1 || st.layers > model.maxLayers(st.gpu, s, k))
            return p;
        total += st.layers;
    }
    if (total != model.layers())
        return p;
    p.iterationS = iterationTimeS(model, stages, cutoffS);
    if (!(p.iterationS < cutoffS))
        return Placement{};
    p.stages = std::move(stages);
    p.valid = true;
    return p;
}

} // namespace orrery::provision

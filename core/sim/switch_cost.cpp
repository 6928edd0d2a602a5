#include "sim/switch_cost.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

namespace orrery::sim {

const std::vector<std::string>& restartModels()
{
    static const std::vector<std::string> models = {"constant", "chronus", "unisched", "by_model", "sia"};
    return models;
}

double SwitchCost::pauseS(const SwitchEvent& e) const
{
    const io::ScenarioOptions& o = *m_options;
    if (o.restartModel == "sia") {
        // sia-simulator/applications.py:56-69 (Application.rescale_time); job.py:536 pays it on every placement.
        static const std::pair<std::string_view, double> kRescaleS[] = {
            {"cifar10", 50}, {"deepspeech2", 25}, {"bert", 120}, {"yolov3", 80}, {"imagenet", 250}, {"ncf", 15}};
        for (const auto& [app, s] : kRescaleS)
            if (e.application == app)
                return s;
        return e.application.empty() && e.firstStart ? o.loadTimeS : o.restartPenaltyS;
    }
    if (e.firstStart)
        return o.loadTimeS;
    const double log2g = std::log2(static_cast<double>(std::max(e.newGpus, 1)));
    if (o.restartModel == "chronus")
        return 30.0 * (1.0 + log2g);
    if (o.restartModel == "unisched")
        return 16.0 + 1.5 * log2g;
    if (o.restartModel == "by_model") {
        const auto it = o.restartSByModel.find(std::string(e.model));
        if (it != o.restartSByModel.end())
            return it->second;
    }
    return o.restartPenaltyS;
}

} // namespace orrery::sim

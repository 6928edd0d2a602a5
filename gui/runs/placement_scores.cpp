#include "runs/placement_scores.h"

#include "metrics/apps.h"
#include "sim/prepare_scenario.h"
#include "sim/prepared_workload.h"

namespace orrery::gui {

std::shared_ptr<const std::vector<double>> placementScoresOf(const io::Scenario& scenario, const sim::RunResult& run)
{
    try {
        const sim::PreparedWorkload workload = sim::prepareScenario(scenario);
        // A result of another job list (a scenario edited and stored under the same record) has no scores here.
        if (workload.jobCount() != static_cast<int>(run.jobs.size()))
            return nullptr;
        return std::make_shared<const std::vector<double>>(metrics::placementScores(run, workload));
    } catch (const std::exception&) {
        return nullptr;
    }
}

} // namespace orrery::gui

#include "provision/allocator.h"
#include "provision/baseline_placers.h"
#include "provision/search_state.h"
#include "provision/strategies.h"

#include <map>
#include <memory>

namespace orrery::provision {

ProvisionResult provisionSiaPlus(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                                 const ProvisionOptions& options, const std::atomic<bool>* cancel)
{
    SearchState state(job, pool, options, cancel);
    std::map<int, std::unique_ptr<PipelineModel>> models; // one profile set per DP size
    auto modelFor = [&](int d) -> const PipelineModel& {
        auto& slot = models[d];
        if (!slot)
            slot = std::make_unique<PipelineModel>(job, pool, source, d);
        return *slot;
    };
    for (int t = 0; t < static_cast<int>(pool.size()); ++t) {
        for (int gpus : powerOfTwoSizes(pool[static_cast<std::size_t>(t)].quota)) {
            for (int d : powerOfTwoSizes(gpus)) {
                const int k = gpus / d;
                if (!PipelineModel::validDp(job, d) || k > job.layers())
                    continue;
                state.checkCancel();
                ++state.stats().expanded;
                ++state.stats().placements;
                state.offer(evenPlace(modelFor(d), std::vector<int>(static_cast<std::size_t>(k), t)), d);
            }
        }
    }
    return state.finish();
}

} // namespace orrery::provision

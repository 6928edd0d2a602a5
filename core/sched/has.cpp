#include "sched/has.h"

#include <algorithm>
#include <tuple>

namespace orrery::sched {

int HasPlacement::gpus() const
{
    int n = 0;
    for (const NodeShare& s : shares) {
        n += s.gpus;
    }
    return n;
}

namespace {

int adequateIdleGpus(std::span<const HasNode> nodes, double requiredGiB)
{
    int n = 0;
    for (const HasNode& node : nodes) {
        if (gpuFits(node.gpuMemoryGiB, requiredGiB)) {
            n += node.idleGpus;
        }
    }
    return n;
}

// Lines 11-37 of Algorithm 1 on a private copy of the idle counts. The caller has checked that
// enough adequate GPUs are idle, so every round takes at least one GPU and the loop ends.
std::vector<NodeShare> placeBestFit(std::vector<HasNode> work, const HasPlan& plan, SizeFilter filter)
{
    std::vector<NodeShare> shares;
    std::vector<HasNode*> cand;
    int need = plan.gpus;
    while (need > 0) {
        cand.clear();
        for (HasNode& n : work) {
            if (n.idleGpus > 0 && gpuFits(n.gpuMemoryGiB, plan.requiredGiB)) {
                cand.push_back(&n);
            }
        }
        if (filter == SizeFilter::Exact) {
            // Line 14's fitSz, recomputed every round ("update avaRsc"), so the search widens to the
            // next memory size once the best-fitting one is used up.
            double fit = cand.front()->gpuMemoryGiB;
            for (const HasNode* n : cand) {
                fit = std::min(fit, n->gpuMemoryGiB);
            }
            std::erase_if(cand, [fit](const HasNode* n) { return n->gpuMemoryGiB != fit; });
        }
        std::sort(cand.begin(), cand.end(), [](const HasNode* a, const HasNode* b) {
            return std::tie(a->idleGpus, a->gpuMemoryGiB, a->id) < std::tie(b->idleGpus, b->gpuMemoryGiB, b->id);
        });
        auto single = std::find_if(cand.begin(), cand.end(), [need](const HasNode* n) { return n->idleGpus >= need; });
        if (single != cand.end()) {
            shares.push_back({(*single)->id, need});
            (*single)->idleGpus -= need;
            need = 0;
        } else {
            HasNode* most = cand.back();
            shares.push_back({most->id, most->idleGpus});
            need -= most->idleGpus;
            most->idleGpus = 0;
        }
    }
    return shares;
}

} // namespace

std::optional<HasPlacement> hasPlace(std::span<const HasNode> nodes, std::span<const HasPlan> plans,
                                     const HasOptions& options)
{
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const HasPlan& plan = plans[i];
        if (plan.gpus <= 0 || adequateIdleGpus(nodes, plan.requiredGiB) < plan.gpus) {
            continue;
        }
        HasPlacement out;
        out.planIndex = static_cast<int>(i);
        out.shares = placeBestFit(std::vector<HasNode>(nodes.begin(), nodes.end()), plan, options.sizeFilter);
        return out;
    }
    return std::nullopt;
}

} // namespace orrery::sched

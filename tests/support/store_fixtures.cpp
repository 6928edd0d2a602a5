#include "store_fixtures.h"

namespace orrery::test {

hardware::GpuLayout twoNodeLayout()
{
    hardware::GpuLayout l;
    l.nodeNames = {"a100-0", "rtx-0"};
    l.gpuNode = {0, 0, 0, 0, 1, 1};
    l.gpuTypes = {"a100-40gb-sxm", "a100-40gb-sxm", "a100-40gb-sxm", "a100-40gb-sxm", "rtx2080ti", "rtx2080ti"};
    return l;
}

store::RunInfo twoNodeRunInfo(const std::string& scenarioName, const std::string& scenarioJson,
                              const std::string& policy, std::uint64_t seed)
{
    store::RunInfo i;
    i.scenarioName = scenarioName;
    i.scenarioJson = scenarioJson;
    i.policy = policy;
    i.seed = seed;
    i.gpuTypes = {"a100-40gb-sxm", "rtx2080ti"};
    i.gpusByType = {4, 2};
    i.priceUsdPerHourByType = {3.67, 0.4};
    i.layout = twoNodeLayout();
    return i;
}

sim::RunResult twoNodeRun(const std::string& policy, std::uint64_t seed)
{
    sim::RunResult r;
    r.policy = policy;
    r.seed = seed;
    r.gpuTypes = {"a100-40gb-sxm", "rtx2080ti"};
    r.gpusByType = {4, 2};
    r.priceUsdPerHourByType = {3.67, 0.4};
    r.gpuType = {0, 0, 0, 0, 1, 1};
    r.totalGpus = 6;
    return r;
}

} // namespace orrery::test

#include "store/prepared_run.h"

#include "util/hash.h"

#include <numeric>

namespace orrery::store {

PreparedRun prepareRun(const std::string& storePath, RunInfo info, const sim::RunResult& result)
{
    PreparedRun run;
    run.info = std::move(info);
    run.info.policy = result.policy;
    run.info.seed = result.seed;
    run.scenarioHash = util::fnv1a64Hex(run.info.scenarioJson);
    run.status = result.cancelled ? RunStatus::Cancelled : RunStatus::Completed;
    run.summary = summaryRowOf(result);
    run.gpuTypes = result.gpuTypes;
    run.gpusByType = result.gpusByType;
    run.priceUsdPerHourByType = result.priceUsdPerHourByType;
    run.writer = ProcessIdentity::current();

    // Every job is final once the run has ended: written in index order, as a run writer's finish() does when
    // nothing was synced before.
    std::vector<std::uint32_t> order(result.jobs.size());
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    const auto append = [&run](std::vector<EncodedChunk> chunks) {
        run.records += recordsOf(chunks);
        run.chunks.insert(run.chunks.end(), std::make_move_iterator(chunks.begin()),
                          std::make_move_iterator(chunks.end()));
    };
    append(encodeIntervals(result.intervals, 0));
    append(encodeUtilization(result.utilization, 0));
    append(encodeDecisions(result.decisions, 0));
    append(encodeJobs(storePath, result.jobs, order, 0));
    run.jobExtras = encodeJobExtras(result.jobs, order, 0);
    append(encodeEvents(storePath, result.jobEvents, 0));
    append(encodeRateSegments(result.rateSegments, 0));
    append(encodeGpus(storePath, run.info.layout));
    run.series = result.series;
    return run;
}

} // namespace orrery::store

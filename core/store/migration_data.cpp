// The migrations' data steps (schema.cpp holds their SQL): what an older store's rows become under a new layout.

#include "store/migration_data.h"

#include "io/error.h"
#include "io/limits.h"
#include "sim/run_result.h"
#include "store/column_chunks.h"
#include "store/sqlite.h"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

namespace orrery::store {

namespace {

std::vector<std::int64_t> runIds(Connection& db)
{
    std::vector<std::int64_t> runs;
    Statement s(db, "SELECT id FROM runs ORDER BY id");
    while (s.step())
        runs.push_back(s.columnInt(0));
    return runs;
}

/**
 * Migration 11's data step: every run's gpus rows become GPU chunks. The rows were written for GPUs 0, 1, ... in
 * order; a run whose rows are not that (a damaged or hand-edited store) is refused, naming the run, rather than given
 * a layout whose GPU indices no longer match its intervals'.
 */
void convertGpusToChunks(Connection& db)
{
    for (const std::int64_t run : runIds(db)) {
        hardware::GpuLayout layout;
        Statement s(db, "SELECT gpu, node_index, node, gpu_type FROM gpus WHERE run_id = ?1 ORDER BY gpu");
        s.bind(1, run);
        while (s.step()) {
            const std::int64_t gpu = s.columnInt(0);
            const std::int64_t node = s.columnInt(1);
            if (gpu != layout.gpuCount())
                throw Error(db.path(), "gpus",
                            fmt::format("run {}: GPU {} follows {} GPUs; the rows must number GPUs 0, 1, ...", run, gpu,
                                        layout.gpuCount()));
            if (node < 0 || node >= io::limits::kMaxClusterNodes)
                throw Error(db.path(), "gpus", fmt::format("run {}: GPU {} has node_index {}", run, gpu, node));
            const auto at = static_cast<std::size_t>(node);
            if (layout.nodeNames.size() <= at)
                layout.nodeNames.resize(at + 1);
            layout.nodeNames[at] = s.columnText(2);
            layout.gpuNode.push_back(static_cast<int>(node));
            layout.gpuTypes.push_back(s.columnText(3));
        }
        ColumnChunkWriter(db, run).write(encodeGpus(db.path(), layout));
    }
    db.exec("DROP TABLE gpus;");
}

/**
 * Migration 6's data step: every run's job_events rows become event chunks, in event_index order. Kinds are
 * copied as text, so a kind this build does not know is kept, not refused.
 */
void convertEventsToChunks(Connection& db)
{
    for (const std::int64_t run : runIds(db)) {
        std::vector<StoredEvent> events;
        Statement s(db,
                    "SELECT job_index, time_s, kind, detail FROM job_events WHERE run_id = ?1 ORDER BY event_index");
        s.bind(1, run);
        while (s.step()) {
            const std::int64_t job = s.columnInt(0);
            if (job < 0 || job >= kMaxJobIndex)
                throw Error(db.path(), "job_events", fmt::format("run {}: job_index {} is out of range", run, job));
            events.push_back({static_cast<int>(job), s.columnDouble(1), s.columnText(2), s.columnText(3)});
        }
        ColumnChunkWriter(db, run).writeEvents(events, 0);
    }
    db.exec("DROP TABLE job_events;");
}

/** Migration 5's data step: no run stored before could drop a job, so every ended run dropped none. */
void fillDroppedCounts(Connection& db)
{
    db.exec("UPDATE runs SET dropped_job_count = 0 WHERE job_count IS NOT NULL");
}

/** Migration 4's data step: every run's job rows become chunks, in job_index order. */
void convertJobsToChunks(Connection& db)
{
    for (const std::int64_t run : runIds(db)) {
        // Laid out by job_index, as writeJobs() stores the position in `jobs` as the job_index.
        std::vector<sim::JobRecord> jobs;
        std::vector<std::uint32_t> order;
        Statement s(db, "SELECT job_index, job_id, model, user, arrival_s, start_s, end_s, gpus, gpu_type, restarts, "
                        "gpu_seconds, cost_usd, ideal_s, nodes, demand, excluded_from_average FROM jobs "
                        "WHERE run_id = ?1 ORDER BY job_index");
        s.bind(1, run);
        while (s.step()) {
            const std::int64_t index = s.columnInt(0);
            if (index < 0 || index >= kMaxJobIndex)
                throw Error(db.path(), "jobs", fmt::format("run {}: job_index {} is out of range", run, index));
            const auto at = static_cast<std::uint32_t>(index);
            if (jobs.size() <= at)
                jobs.resize(at + 1);
            order.push_back(at);
            sim::JobRecord& j = jobs[at];
            j.id = s.columnText(1);
            j.model = s.columnText(2);
            j.user = s.columnText(3);
            j.arrivalS = s.columnDouble(4);
            j.startS = s.columnDouble(5, -1);
            j.endS = s.columnDouble(6, -1);
            j.gpus = static_cast<int>(s.columnInt(7));
            j.gpuType = s.columnText(8);
            j.restarts = static_cast<int>(s.columnInt(9));
            j.gpuSeconds = s.columnDouble(10);
            j.costUsd = s.columnDouble(11);
            j.idealS = s.columnDouble(12);
            j.nodes = static_cast<int>(s.columnInt(13));
            j.demand = static_cast<int>(s.columnInt(14));
            j.excludedFromAverage = s.columnInt(15) != 0;
        }
        ColumnChunkWriter(db, run).writeJobs(jobs, order, 0);
    }
    db.exec("DROP TABLE jobs;");
}

/** Migration 3's data step: every run's interval, utilisation and decision rows become chunks. */
void convertToColumnChunks(Connection& db)
{
    for (const std::int64_t run : runIds(db)) {
        std::vector<sim::AllocationInterval> intervals;
        std::vector<sim::UtilizationSample> samples;
        std::vector<sim::DecisionTiming> decisions;
        {
            Statement s(
                db, "SELECT job_index, gpu, start_s, end_s FROM intervals WHERE run_id = ?1 ORDER BY interval_index");
            s.bind(1, run);
            while (s.step())
                intervals.push_back({static_cast<int>(s.columnInt(0)), static_cast<int>(s.columnInt(1)),
                                     s.columnDouble(2), s.columnDouble(3)});
        }
        {
            Statement s(db, "SELECT sample_index, time_s, busy_gpus, busy_by_type FROM utilization WHERE run_id = ?1 "
                            "ORDER BY sample_index");
            s.bind(1, run);
            while (s.step()) {
                sim::UtilizationSample u{s.columnDouble(1), static_cast<int>(s.columnInt(2)), {}};
                const auto byType = nlohmann::json::parse(s.columnText(3), nullptr, false);
                if (!byType.is_array())
                    throw Error(db.path(), "utilization",
                                fmt::format("run {} sample {}: busy_by_type is not a JSON array", run, s.columnInt(0)));
                for (const auto& v : byType) {
                    if (!v.is_number_integer())
                        throw Error(
                            db.path(), "utilization",
                            fmt::format("run {} sample {}: busy_by_type holds a non-integer", run, s.columnInt(0)));
                    u.busyByType.push_back(v.get<int>());
                }
                samples.push_back(std::move(u));
            }
        }
        {
            Statement s(db, "SELECT sim_time_s, wall_s, queued, running FROM decisions WHERE run_id = ?1 "
                            "ORDER BY decision_index");
            s.bind(1, run);
            while (s.step())
                decisions.push_back({s.columnDouble(0), s.columnDouble(1), static_cast<int>(s.columnInt(2)),
                                     static_cast<int>(s.columnInt(3))});
        }
        ColumnChunkWriter writer(db, run);
        writer.writeIntervals(intervals, 0);
        writer.writeUtilization(samples, 0);
        writer.writeDecisions(decisions, 0);
    }
    db.exec("DROP TABLE intervals; DROP TABLE utilization; DROP TABLE decisions;");
}

} // namespace

void migrateData(Connection& db, int version)
{
    switch (version) {
    case 3:
        convertToColumnChunks(db);
        break;
    case 4:
        convertJobsToChunks(db);
        break;
    case 5:
        fillDroppedCounts(db);
        break;
    case 6:
        convertEventsToChunks(db);
        break;
    case 11:
        convertGpusToChunks(db);
        break;
    default:
        break;
    }
}

} // namespace orrery::store

#include "store/run_store.h"

#include "store/column_chunks.h"
#include "store/gpu_types_table.h"
#include "store/job_records.h"
#include "store/prepared_run.h"
#include "store/run_summary_row.h"
#include "store/run_uid.h"
#include "store/sqlite.h"
#include "store/timestamp.h"
#include "version.h"

#include <exception>

// Storing finished runs whole (docs/database.md, "Crash safety"): a run or a batch of prepared runs
// (store::prepareRun) in one transaction, each run all or nothing. Opening, reading and deleting are run_store.cpp.

namespace orrery::store {

std::int64_t RunStore::writeRun(const PreparedRun& prepared)
{
    // The rows a run writer leaves for a run begun and finished at once (beginRun, RunWriter::finish): the run's row
    // is inserted as it ends rather than inserted running and updated, so the writer steps fewer statements.
    const RunInfo& info = prepared.info;
    const std::int64_t scenarioId = findOrInsertScenario(info.scenarioName, info.scenarioJson, prepared.scenarioHash);
    auto run = m_db->cached(
        "INSERT INTO runs (scenario_id, policy, options_json, seed, orrery_version, started_at, status, writer_pid, "
        "writer_start_ticks, writer_host, uid, finished_at, error, job_count, finished_job_count, avg_jct_s, "
        "makespan_s, cost_usd, sim_wall_s, events, total_gpus, dropped_job_count) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, NULL, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
        "?21)");
    const std::string startedAt = utcNowIso();
    run->bind(1, scenarioId)
        .bindStatic(2, info.policy)
        .bindStatic(3, info.optionsJson)
        .bind(4, static_cast<std::int64_t>(info.seed))
        .bind(5, kVersion)
        .bind(6, startedAt)
        .bind(7, toString(prepared.status))
        .bind(8, prepared.writer.pid)
        .bind(9, prepared.writer.startTicks)
        .bindStatic(10, prepared.writer.host)
        .bind(11, newRunUid())
        .bind(12, utcNowIso());
    bindSummaryRow(*run, 13, prepared.summary);
    run->run();
    const std::int64_t runId = m_db->lastInsertRowId();
    if (info.sweep) {
        // In the run's own transaction: a point is never stored without its tag, so resuming finds it.
        auto tag = m_db->cached("INSERT INTO sweep_points (run_id, sweep, point_key, axes) VALUES (?1, ?2, ?3, ?4)");
        tag->bind(1, runId)
            .bindStatic(2, info.sweep->sweep)
            .bindStatic(3, info.sweep->pointKey)
            .bindStatic(4, info.sweep->axesJson);
        tag->run();
    }
    // The result is the authority on the cluster it ran on.
    writeGpuTypes(*m_db, runId, prepared.gpuTypes, prepared.gpusByType, prepared.priceUsdPerHourByType);
    ColumnChunkWriter(*m_db, runId).writeNew(prepared.chunks); // the GPU layout's chunk among them
    writeJobExtras(*m_db, runId, prepared.jobExtras);
    if (!prepared.series.empty())
        writeSeries(*m_db, runId, prepared.series);
    return runId;
}

std::int64_t RunStore::storeRun(const RunInfo& info, const sim::RunResult& result)
{
    // All or nothing: a run that cannot be stored (a label the store cannot keep) throws before or while it is
    // written and leaves nothing behind.
    const PreparedRun prepared = prepareRun(m_path, info, result);
    Transaction tx(*m_db);
    const std::int64_t id = writeRun(prepared);
    tx.commit();
    return id;
}

std::vector<RunStore::StoredOutcome> RunStore::storeRuns(const std::vector<RunToStore>& runs)
{
    // A run that cannot be prepared keeps its error and is left out; the others are stored as one batch.
    std::vector<StoredOutcome> out(runs.size());
    std::vector<PreparedRun> prepared;
    std::vector<std::size_t> indexOf;
    prepared.reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        try {
            prepared.push_back(prepareRun(m_path, *runs[i].info, *runs[i].result));
            indexOf.push_back(i);
        } catch (const std::exception& e) {
            out[i].error = e.what();
        }
    }
    std::vector<const PreparedRun*> toStore;
    toStore.reserve(prepared.size());
    for (const auto& p : prepared)
        toStore.push_back(&p);
    const auto stored = storeRuns(toStore);
    for (std::size_t k = 0; k < stored.size(); ++k)
        out[indexOf[k]] = stored[k];
    return out;
}

std::vector<RunStore::StoredOutcome> RunStore::storeRuns(const std::vector<const PreparedRun*>& runs)
{
    // First the batch as it nearly always goes, every run stored, without a savepoint per run: inside a savepoint
    // SQLite copies each page the run changes that the batch had already written (the last leaf of every table and
    // index the runs append to) into a sub-journal, a temporary file once past 64 KiB, and that copying was nearly
    // half of the sweep writer's CPU (docs/performance.md, "Sweeps"). A run that fails part-way leaves rows behind
    // without one, so then the batch is rolled back and stored again run by run.
    std::vector<StoredOutcome> out(runs.size());
    {
        Transaction batch(*m_db);
        bool runFailed = false;
        for (std::size_t i = 0; i < runs.size() && !runFailed; ++i) {
            try {
                out[i].runId = writeRun(*runs[i]);
            } catch (const std::exception&) {
                // A failure that took the transaction with it (disk full, I/O) takes the whole batch.
                if (!m_db->inTransaction())
                    throw;
                runFailed = true;
            }
        }
        if (!runFailed) {
            batch.commit();
            return out;
        }
    }
    return storeRunsOneByOne(runs);
}

std::vector<RunStore::StoredOutcome> RunStore::storeRunsOneByOne(const std::vector<const PreparedRun*>& runs)
{
    std::vector<StoredOutcome> out(runs.size());
    Transaction batch(*m_db);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        try {
            Transaction one(*m_db);
            out[i].runId = writeRun(*runs[i]);
            one.commit();
        } catch (const std::exception& e) {
            // A run of its own making is left out and the batch goes on; a failure that took the transaction with it
            // (disk full, I/O) takes the whole batch.
            if (!m_db->inTransaction())
                throw;
            out[i] = {0, e.what()};
        }
    }
    batch.commit();
    return out;
}

} // namespace orrery::store

#include "store/run_writer.h"

#include "store/column_chunks.h"
#include "store/gpu_types_table.h"
#include "store/job_records.h"
#include "store/run_summary_row.h"
#include "store/sqlite.h"
#include "store/timestamp.h"

#include <cstring>
#include <optional>
#include <vector>

namespace orrery::store {

struct RunWriter::Impl
{
    Impl(Connection& c, std::int64_t id, int batch) : db(c), runId(id), batchRows(batch), chunks(c, id) {}

    void rows(std::size_t count)
    {
        pending += count;
        if (pending >= static_cast<std::size_t>(batchRows))
            commit();
    }

    void begin()
    {
        if (!tx)
            tx.emplace(db);
    }

    void commit()
    {
        if (tx) {
            tx->commit();
            tx.reset();
        }
        pending = 0;
    }

    static std::uint64_t mix(std::uint64_t h, const sim::AllocationInterval& iv)
    {
        const auto bits = [](double d) {
            std::uint64_t u = 0;
            std::memcpy(&u, &d, sizeof u);
            return u;
        };
        for (const std::uint64_t v :
             {static_cast<std::uint64_t>(iv.job), static_cast<std::uint64_t>(iv.gpu), bits(iv.startS), bits(iv.endS)})
            h = (h ^ v) * 0x100000001b3ULL;
        return h;
    }

    /**
     * The simulator may reorder its intervals when a run ends (e.g. sorted by GPU). What was
     * written must then be replaced, or rows would be missing and duplicated; a fingerprint of
     * the written prefix detects it without keeping a copy.
     */
    void checkIntervalPrefix(const sim::RunResult& r)
    {
        std::uint64_t h = 0xcbf29ce484222325ULL;
        for (std::size_t i = 0; i < intervalsWritten && i < r.intervals.size(); ++i)
            h = mix(h, r.intervals[i]);
        if (r.intervals.size() >= intervalsWritten && h == intervalsHash)
            return;
        begin();
        chunks.deleteIntervals();
        intervalsWritten = 0;
        intervalsHash = 0xcbf29ce484222325ULL;
    }

    void write(const sim::RunResult& r, bool allJobs)
    {
        if (allJobs)
            checkIntervalPrefix(r);
        // Series are append-only while the run goes on; their chunks are (re)written from the first new record.
        if (intervalsWritten < r.intervals.size()) {
            begin();
            for (std::size_t i = intervalsWritten; i < r.intervals.size(); ++i)
                intervalsHash = mix(intervalsHash, r.intervals[i]);
            rows(chunks.writeIntervals(r.intervals, intervalsWritten));
            intervalsWritten = r.intervals.size();
        }
        // The simulator may still change its last sample in place (a later step at the same instant), so
        // the last one written is written again when it no longer matches.
        std::size_t samplesFrom = samplesWritten;
        if (samplesFrom > 0 && samplesFrom <= r.utilization.size()) {
            const auto& s = r.utilization[samplesFrom - 1];
            if (s.timeS != lastSample.timeS || s.busyGpus != lastSample.busyGpus ||
                s.busyByType != lastSample.busyByType)
                --samplesFrom;
        }
        if (samplesFrom < r.utilization.size()) {
            begin();
            rows(chunks.writeUtilization(r.utilization, samplesFrom));
            samplesWritten = r.utilization.size();
            lastSample = r.utilization.back();
        }
        if (decisionsWritten < r.decisions.size()) {
            begin();
            rows(chunks.writeDecisions(r.decisions, decisionsWritten));
            decisionsWritten = r.decisions.size();
        }
        // A job record changes until the job finishes: write it once final, or at the end whatever its state.
        if (jobWritten.size() < r.jobs.size())
            jobWritten.resize(r.jobs.size(), 0);
        const std::size_t jobsWritten = jobOrder.size();
        for (std::size_t i = 0; i < r.jobs.size(); ++i) {
            if (!jobWritten[i] && (allJobs || r.jobs[i].finished() || r.jobs[i].dropped())) {
                jobOrder.push_back(static_cast<std::uint32_t>(i));
                jobWritten[i] = 1;
            }
        }
        if (jobsWritten < jobOrder.size()) {
            begin();
            rows(chunks.writeJobs(r.jobs, jobOrder, jobsWritten));
            begin(); // rows() may have committed: the extras go into a transaction too, not one each
            rows(writeJobExtras(db, runId, r.jobs, jobOrder, jobsWritten));
        }
        // Events are append-only too (schema 6: column chunks), so they are synced as the run goes and an
        // interrupted run keeps them. As one row each (schema 5) they were written only at the end: OR REPLACE
        // rows cost a statement journal each (job_records.cpp), which made every sync slow.
        if (eventsWritten < r.jobEvents.size()) {
            begin();
            rows(chunks.writeEvents(r.jobEvents, eventsWritten));
            eventsWritten = r.jobEvents.size();
        }
        // Series are replaced as a whole, so they are written once, when the run ends.
        if (allJobs && !r.series.empty()) {
            begin();
            rows(writeSeries(db, runId, r.series));
        }
        // Rate segments too: a job's last segment grows while it keeps its rate.
        if (allJobs && !r.rateSegments.empty()) {
            begin();
            rows(chunks.writeRateSegments(r.rateSegments, 0));
        }
    }

    void end(RunStatus status, const std::string& error, const sim::RunResult* result)
    {
        begin();
        auto lease =
            db.cached("UPDATE runs SET status = ?2, error = ?3, finished_at = ?4, job_count = ?5, "
                      "finished_job_count = ?6, avg_jct_s = ?7, makespan_s = ?8, cost_usd = ?9, sim_wall_s = ?10, "
                      "events = ?11, total_gpus = coalesce(?12, total_gpus), dropped_job_count = ?13 WHERE id = ?1");
        Statement& update = *lease;
        update.bind(1, runId).bind(2, toString(status)).bind(4, utcNowIso());
        if (error.empty())
            update.bindNull(3);
        else
            update.bind(3, error);
        if (result) {
            bindSummaryRow(update, 5, summaryRowOf(*result));
            // The result is the authority on the cluster it ran on.
            writeGpuTypes(db, runId, result->gpuTypes, result->gpusByType, result->priceUsdPerHourByType);
        } else {
            for (int i = 5; i <= 13; ++i)
                update.bindNull(i);
        }
        update.run();
        commit();
        done = true;
    }

    Connection& db;
    std::int64_t runId;
    int batchRows;
    ColumnChunkWriter chunks;
    std::optional<Transaction> tx;
    std::size_t pending = 0;
    std::size_t intervalsWritten = 0, samplesWritten = 0, decisionsWritten = 0, eventsWritten = 0;
    sim::UtilizationSample lastSample; ///< the last sample as written
    std::uint64_t intervalsHash = 0xcbf29ce484222325ULL;
    std::vector<char> jobWritten;
    std::vector<std::uint32_t> jobOrder; ///< job indices in the order they were written
    bool done = false;
};

RunWriter::RunWriter(Connection& db, std::int64_t runId, int batchRows)
    : m(std::make_unique<Impl>(db, runId, batchRows > 0 ? batchRows : kDefaultBatchRows))
{}

RunWriter::~RunWriter()
{
    if (!m || m->done)
        return;
    try {
        // Keep what was written; the run did not end properly.
        m->commit();
        m->end(RunStatus::Failed, "writer closed before the run ended", nullptr);
    } catch (...) {
        // A destructor must not throw; the next open marks the run interrupted instead.
    }
}

RunWriter::RunWriter(RunWriter&&) noexcept = default;

std::int64_t RunWriter::runId() const
{
    return m->runId;
}

void RunWriter::sync(const sim::RunResult& partial)
{
    m->write(partial, false);
    m->commit();
}

void RunWriter::finish(const sim::RunResult& result, RunStatus status)
{
    m->write(result, true);
    m->end(status, {}, &result);
}

void RunWriter::fail(const std::string& error)
{
    m->commit();
    m->end(RunStatus::Failed, error, nullptr);
}

bool RunWriter::finished() const
{
    return m->done;
}

} // namespace orrery::store

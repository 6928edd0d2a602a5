#include "store/run_writer.h"

#include "metrics/metrics.h"
#include "store/column_chunks.h"
#include "store/gpu_types_table.h"
#include "store/sqlite.h"
#include "store/timestamp.h"

#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

namespace orrery::store {

struct RunWriter::Impl
{
    Impl(Connection& c, std::int64_t id, int batch)
        : db(c), runId(id), batchRows(batch), job(c, jobInsertSql(1)), jobs(c, jobInsertSql(kJobsPerStatement)),
          chunks(c, id)
    {}

    static constexpr int kJobColumns = 17;
    /** Jobs per multi-row INSERT: one statement step per job cost ~30% more CPU than this. */
    static constexpr int kJobsPerStatement = 64;

    static std::string jobInsertSql(int rows)
    {
        std::string sql = "INSERT INTO jobs (run_id, job_index, job_id, model, user, arrival_s, start_s, end_s, gpus, "
                          "gpu_type, restarts, gpu_seconds, cost_usd, ideal_s, nodes, demand, excluded_from_average) "
                          "VALUES ";
        for (int r = 0; r < rows; ++r) {
            sql += r ? ", (" : "(";
            for (int c = 0; c < kJobColumns; ++c)
                fmt::format_to(std::back_inserter(sql), "{}?{}", c ? ", " : "", r * kJobColumns + c + 1);
            sql += ')';
        }
        return sql;
    }

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

    /** Binds job `index` as row `row` of `s`; its strings are bound in place, so `j` must outlive the step. */
    void bindJob(Statement& s, int row, std::size_t index, const sim::JobRecord& j)
    {
        const int b = row * kJobColumns;
        s.bind(b + 1, runId)
            .bind(b + 2, static_cast<std::int64_t>(index))
            .bindStatic(b + 3, j.id)
            .bindStatic(b + 4, j.model)
            .bindStatic(b + 5, j.user)
            .bind(b + 6, j.arrivalS)
            .bind(b + 7, j.startS >= 0 ? std::optional<double>(j.startS) : std::nullopt)
            .bind(b + 8, j.finished() ? std::optional<double>(j.endS) : std::nullopt)
            .bind(b + 9, j.gpus)
            .bindStatic(b + 10, j.gpuType)
            .bind(b + 11, j.restarts)
            .bind(b + 12, j.gpuSeconds)
            .bind(b + 13, j.costUsd)
            .bind(b + 14, j.idealS)
            .bind(b + 15, j.nodes)
            .bind(b + 16, j.demand)
            .bind(b + 17, j.excludedFromAverage ? 1 : 0);
    }

    void writeJobs(const std::vector<sim::JobRecord>& all, const std::vector<std::size_t>& indices)
    {
        std::size_t i = 0;
        while (i < indices.size()) {
            begin();
            // Whole statements of kJobsPerStatement rows, the rest one by one; commit between statements only.
            const std::size_t group = indices.size() - i >= kJobsPerStatement ? kJobsPerStatement : 1;
            Statement& s = group == 1 ? job : jobs;
            for (std::size_t r = 0; r < group; ++r, ++i)
                bindJob(s, static_cast<int>(r), indices[i], all[indices[i]]);
            s.run();
            rows(group);
        }
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
        if (samplesWritten < r.utilization.size()) {
            begin();
            rows(chunks.writeUtilization(r.utilization, samplesWritten));
            samplesWritten = r.utilization.size();
        }
        if (decisionsWritten < r.decisions.size()) {
            begin();
            rows(chunks.writeDecisions(r.decisions, decisionsWritten));
            decisionsWritten = r.decisions.size();
        }
        // A job record changes until the job finishes: write it once final, or at the end whatever its state.
        if (jobWritten.size() < r.jobs.size())
            jobWritten.resize(r.jobs.size(), 0);
        std::vector<std::size_t> due;
        for (std::size_t i = 0; i < r.jobs.size(); ++i) {
            if (!jobWritten[i] && (allJobs || r.jobs[i].finished())) {
                due.push_back(i);
                jobWritten[i] = 1;
            }
        }
        writeJobs(r.jobs, due);
    }

    void end(RunStatus status, const std::string& error, const sim::RunResult* result)
    {
        begin();
        Statement update(db,
                         "UPDATE runs SET status = ?2, error = ?3, finished_at = ?4, job_count = ?5, "
                         "finished_job_count = ?6, avg_jct_s = ?7, makespan_s = ?8, cost_usd = ?9, sim_wall_s = ?10, "
                         "events = ?11, total_gpus = coalesce(?12, total_gpus) WHERE id = ?1");
        update.bind(1, runId).bind(2, toString(status)).bind(4, utcNowIso());
        if (error.empty())
            update.bindNull(3);
        else
            update.bind(3, error);
        if (result) {
            const metrics::Summary s = metrics::summarize(*result, metrics::SummaryScope::Headline);
            update.bind(5, s.jobs)
                .bind(6, s.jobsCompleted)
                .bind(7, s.jobsCompleted > 0 ? std::optional<double>(s.avgJctS) : std::nullopt)
                .bind(8, s.makespanS)
                .bind(9, s.costUsd)
                .bind(10, s.wallS)
                .bind(11, static_cast<std::int64_t>(result->events))
                .bind(12, result->totalGpus);
            // The result is the authority on the cluster it ran on.
            writeGpuTypes(db, runId, result->gpuTypes, result->gpusByType, result->priceUsdPerHourByType);
        } else {
            for (int i = 5; i <= 12; ++i)
                update.bindNull(i);
        }
        update.run();
        commit();
        done = true;
    }

    Connection& db;
    std::int64_t runId;
    int batchRows;
    Statement job, jobs;
    ColumnChunkWriter chunks;
    std::optional<Transaction> tx;
    std::size_t pending = 0;
    std::size_t intervalsWritten = 0, samplesWritten = 0, decisionsWritten = 0;
    std::uint64_t intervalsHash = 0xcbf29ce484222325ULL;
    std::vector<char> jobWritten;
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

#include "store/run_writer.h"

#include "metrics/metrics.h"
#include "store/gpu_types_table.h"
#include "store/sqlite.h"
#include "store/timestamp.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <vector>

namespace orrery::store {

struct RunWriter::Impl
{
    Impl(Connection& c, std::int64_t id, int batch)
        : db(c), runId(id), batchRows(batch),
          job(c, "INSERT OR REPLACE INTO jobs (run_id, job_index, job_id, model, user, arrival_s, start_s, end_s, "
                 "gpus, gpu_type, restarts, gpu_seconds, cost_usd, ideal_s, nodes, demand, excluded_from_average) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"),
          interval(c, "INSERT INTO intervals (run_id, interval_index, job_index, gpu, start_s, end_s) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
          utilization(c, "INSERT INTO utilization (run_id, sample_index, time_s, busy_gpus, busy_by_type) "
                         "VALUES (?1, ?2, ?3, ?4, ?5)"),
          decision(c, "INSERT INTO decisions (run_id, decision_index, sim_time_s, wall_s, queued, running) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
    {
        job.bind(1, runId);
        interval.bind(1, runId);
        utilization.bind(1, runId);
        decision.bind(1, runId);
    }

    void row()
    {
        if (++pending >= batchRows)
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

    void writeJob(std::size_t index, const sim::JobRecord& j)
    {
        begin();
        job.bind(2, static_cast<std::int64_t>(index))
            .bindStatic(3, j.id) // the record outlives the step below
            .bindStatic(4, j.model)
            .bindStatic(5, j.user)
            .bind(6, j.arrivalS)
            .bind(7, j.startS >= 0 ? std::optional<double>(j.startS) : std::nullopt)
            .bind(8, j.finished() ? std::optional<double>(j.endS) : std::nullopt)
            .bind(9, j.gpus)
            .bindStatic(10, j.gpuType)
            .bind(11, j.restarts)
            .bind(12, j.gpuSeconds)
            .bind(13, j.costUsd)
            .bind(14, j.idealS)
            .bind(15, j.nodes)
            .bind(16, j.demand)
            .bind(17, j.excludedFromAverage ? 1 : 0);
        job.run();
        row();
    }

    static std::uint64_t mix(std::uint64_t h, const sim::AllocationInterval& iv)
    {
        const auto bits = [](double d) {
            std::uint64_t u = 0;
            std::memcpy(&u, &d, sizeof u);
            return u;
        };
        for (const std::uint64_t v : {static_cast<std::uint64_t>(iv.job), static_cast<std::uint64_t>(iv.gpu),
                                      bits(iv.startS), bits(iv.endS)})
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
        Statement del(db, "DELETE FROM intervals WHERE run_id = ?1");
        del.bind(1, runId);
        del.run();
        intervalsWritten = 0;
        intervalsHash = 0xcbf29ce484222325ULL;
    }

    void write(const sim::RunResult& r, bool allJobs)
    {
        if (allJobs)
            checkIntervalPrefix(r);
        for (; intervalsWritten < r.intervals.size(); ++intervalsWritten) {
            const auto& iv = r.intervals[intervalsWritten];
            begin();
            interval.bind(2, static_cast<std::int64_t>(intervalsWritten))
                .bind(3, iv.job)
                .bind(4, iv.gpu)
                .bind(5, iv.startS)
                .bind(6, iv.endS);
            interval.run();
            intervalsHash = mix(intervalsHash, iv);
            row();
        }
        std::string byType;
        for (; samplesWritten < r.utilization.size(); ++samplesWritten) {
            const auto& u = r.utilization[samplesWritten];
            byType.assign(1, '[');
            for (std::size_t t = 0; t < u.busyByType.size(); ++t)
                fmt::format_to(std::back_inserter(byType), "{}{}", t ? "," : "", u.busyByType[t]);
            byType += ']';
            begin();
            utilization.bind(2, static_cast<std::int64_t>(samplesWritten))
                .bind(3, u.timeS)
                .bind(4, u.busyGpus)
                .bindStatic(5, byType);
            utilization.run();
            row();
        }
        for (; decisionsWritten < r.decisions.size(); ++decisionsWritten) {
            const auto& d = r.decisions[decisionsWritten];
            begin();
            decision.bind(2, static_cast<std::int64_t>(decisionsWritten))
                .bind(3, d.simTimeS)
                .bind(4, d.wallS)
                .bind(5, d.queued)
                .bind(6, d.running);
            decision.run();
            row();
        }
        // A job record changes until the job finishes: write it once final, or at the end whatever its state.
        if (jobWritten.size() < r.jobs.size())
            jobWritten.resize(r.jobs.size(), 0);
        for (std::size_t i = 0; i < r.jobs.size(); ++i) {
            if (!jobWritten[i] && (allJobs || r.jobs[i].finished())) {
                writeJob(i, r.jobs[i]);
                jobWritten[i] = 1;
            }
        }
    }

    void end(RunStatus status, const std::string& error, const sim::RunResult* result)
    {
        begin();
        Statement update(db, "UPDATE runs SET status = ?2, error = ?3, finished_at = ?4, job_count = ?5, "
                             "finished_job_count = ?6, avg_jct_s = ?7, makespan_s = ?8, cost_usd = ?9, sim_wall_s = ?10, "
                             "events = ?11, total_gpus = coalesce(?12, total_gpus) WHERE id = ?1");
        update.bind(1, runId).bind(2, toString(status)).bind(4, utcNowIso());
        if (error.empty())
            update.bindNull(3);
        else
            update.bind(3, error);
        if (result) {
            const metrics::Summary s = metrics::summarize(*result);
            update.bind(5, s.jobs)
                .bind(6, s.jobsCompleted)
                .bind(7, s.jobsCompleted > 0 ? std::optional<double>(s.avgJctS) : std::nullopt)
                .bind(8, s.makespanS)
                .bind(9, s.costUsd)
                .bind(10, s.wallS).bind(11, static_cast<std::int64_t>(result->events))
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
    Statement job, interval, utilization, decision;
    std::optional<Transaction> tx;
    int pending = 0;
    std::size_t intervalsWritten = 0, samplesWritten = 0, decisionsWritten = 0;
    std::uint64_t intervalsHash = 0xcbf29ce484222325ULL;
    std::vector<char> jobWritten;
    bool done = false;
};

RunWriter::RunWriter(Connection& db, std::int64_t runId, int batchRows)
    : m(std::make_unique<Impl>(db, runId, batchRows > 0 ? batchRows : kDefaultBatchRows))
{
}

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

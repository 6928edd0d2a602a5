#include "store/job_records.h"

#include "io/error.h"
#include "store/sqlite.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace orrery::store {

using nlohmann::json;

std::string jobExtrasJson(const sim::JobRecord& j)
{
    // Only what differs from a job without lifecycle or SLO data, so default runs write no rows (and, checked
    // first, build no JSON: a 100,000-job run passes here once per job).
    if (!j.dropped() && j.suspensions == 0 && j.pausedGpuSeconds == 0 && j.sloClass.empty() && j.deadlines.empty() &&
        j.extras.empty())
        return {};
    json o = json::object();
    if (j.dropped()) {
        o["dropped_s"] = j.droppedS;
        o["drop_reason"] = j.dropReason;
    }
    if (j.suspensions)
        o["suspensions"] = j.suspensions;
    if (j.pausedGpuSeconds != 0)
        o["paused_gpu_seconds"] = j.pausedGpuSeconds;
    if (!j.sloClass.empty())
        o["slo_class"] = j.sloClass;
    if (!j.deadlines.empty()) {
        json list = json::array();
        for (const auto& d : j.deadlines)
            list.push_back({{"at_s", d.atS}, {"reward", d.reward}});
        o["deadlines"] = std::move(list);
    }
    for (const auto& [key, text] : j.extras)
        o[key] = json::parse(text, nullptr, false);
    return o.empty() ? std::string() : o.dump();
}

std::vector<JobExtrasRow> encodeJobExtras(const std::vector<sim::JobRecord>& jobs,
                                          const std::vector<std::uint32_t>& order, std::size_t from)
{
    std::vector<JobExtrasRow> out;
    for (std::size_t k = from; k < order.size(); ++k) {
        std::string text = jobExtrasJson(jobs[order[k]]);
        if (!text.empty())
            out.push_back({static_cast<std::int64_t>(order[k]), std::move(text)});
    }
    return out;
}

std::size_t writeJobExtras(Connection& db, std::int64_t runId, const std::vector<JobExtrasRow>& rows)
{
    if (rows.empty())
        return 0;
    // A plain INSERT (a job's extras are written once): OR REPLACE with foreign keys on makes SQLite keep a
    // statement journal for every row, which it writes to a temporary file, two write() calls a row.
    auto insert = db.cached("INSERT INTO job_extras (run_id, job_index, extras) VALUES (?1, ?2, ?3)");
    for (const JobExtrasRow& row : rows) {
        insert->bind(1, runId).bind(2, row.jobIndex).bindStatic(3, row.json);
        insert->run();
    }
    return rows.size();
}

std::size_t writeJobExtras(Connection& db, std::int64_t runId, const std::vector<sim::JobRecord>& jobs,
                           const std::vector<std::uint32_t>& order, std::size_t from)
{
    return writeJobExtras(db, runId, encodeJobExtras(jobs, order, from));
}

std::size_t writeSeries(Connection& db, std::int64_t runId, const std::vector<sim::MetricSeries>& series)
{
    {
        auto del = db.cached("DELETE FROM run_series WHERE run_id = ?1");
        del->bind(1, runId);
        del->run();
    }
    if (series.empty())
        return 0;
    auto insert = db.cached("INSERT INTO run_series (run_id, name, point_index, series_index, time_s, value) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    std::size_t rows = 0;
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto& s = series[k];
        for (std::size_t i = 0; i < s.timeS.size(); ++i, ++rows) {
            insert->bind(1, runId)
                .bindStatic(2, s.name)
                .bind(3, static_cast<std::int64_t>(i))
                .bind(4, static_cast<std::int64_t>(k))
                .bind(5, s.timeS[i])
                .bind(6, s.value[i]);
            insert->run();
        }
    }
    return rows;
}

void readJobExtras(Connection& db, const std::string& path, std::int64_t runId, std::vector<sim::JobRecord>& jobs)
{
    Statement s(db, "SELECT job_index, extras FROM job_extras WHERE run_id = ?1 ORDER BY job_index");
    s.bind(1, runId);
    const auto& reserved = sim::reservedJobExtraKeys();
    while (s.step()) {
        const std::int64_t index = s.columnInt(0);
        const auto bad = [&](const std::string& what) {
            return Error(path, "job_extras", fmt::format("run {} job {}: {}", runId, index, what));
        };
        if (index < 0 || static_cast<std::size_t>(index) >= jobs.size())
            throw bad("job_index out of range");
        const json o = json::parse(s.columnText(1), nullptr, false);
        if (!o.is_object())
            throw bad("extras is not a JSON object");
        auto& j = jobs[static_cast<std::size_t>(index)];
        try {
            if (o.contains("dropped_s"))
                j.droppedS = o.at("dropped_s").get<double>();
            j.dropReason = o.value("drop_reason", std::string());
            j.suspensions = o.value("suspensions", 0);
            j.pausedGpuSeconds = o.value("paused_gpu_seconds", 0.0);
            j.sloClass = o.value("slo_class", std::string());
            if (o.contains("deadlines"))
                for (const auto& d : o.at("deadlines"))
                    j.deadlines.push_back({d.at("at_s").get<double>(), d.at("reward").get<double>()});
        } catch (const json::exception& e) {
            throw bad(e.what());
        }
        for (const auto& item : o.items())
            if (std::find(reserved.begin(), reserved.end(), item.key()) == reserved.end())
                j.extras.emplace_back(item.key(), item.value().dump());
    }
}

std::vector<sim::MetricSeries> readSeries(Connection& db, const std::string& /*path*/, std::int64_t runId)
{
    // In the run's order (series_index: order of first record).
    std::vector<sim::MetricSeries> out;
    Statement s(db, "SELECT name, time_s, value FROM run_series WHERE run_id = ?1 ORDER BY series_index, point_index");
    s.bind(1, runId);
    while (s.step()) {
        std::string name = s.columnText(0);
        if (out.empty() || out.back().name != name)
            out.push_back({std::move(name), {}, {}});
        out.back().timeS.push_back(s.columnDouble(1));
        out.back().value.push_back(s.columnDouble(2));
    }
    return out;
}

} // namespace orrery::store

#include "store/sweep_records.h"

#include "store/sqlite.h"
#include "store/timestamp.h"

#include <nlohmann/json.hpp>

namespace orrery::store {

void saveSweep(Connection& db, const std::string& name, const std::string& axesJson, const std::string& specJson)
{
    Transaction tx(db);
    // created_at stays the first time's; axes and spec follow the spec as last run (an axis added later).
    Statement s(db, "INSERT INTO sweeps (name, axes, spec, created_at) VALUES (?1, ?2, ?3, ?4) "
                    "ON CONFLICT (name) DO UPDATE SET axes = excluded.axes, spec = excluded.spec");
    s.bind(1, name).bind(2, axesJson).bind(3, specJson).bind(4, utcNowIso());
    s.run();
    tx.commit();
}

std::unordered_set<std::string> completedPointKeys(Connection& db, const std::string& sweep)
{
    std::unordered_set<std::string> keys;
    Statement s(db, "SELECT p.point_key FROM sweep_points p JOIN runs r ON r.id = p.run_id "
                    "WHERE p.sweep = ?1 AND r.status = 'completed'");
    s.bind(1, sweep);
    while (s.step())
        keys.insert(s.columnText(0));
    return keys;
}

std::vector<std::string> sweepNames(Connection& db)
{
    std::vector<std::string> names;
    Statement s(db, "SELECT name FROM sweeps UNION SELECT DISTINCT sweep FROM sweep_points ORDER BY 1");
    while (s.step())
        names.push_back(s.columnText(0));
    return names;
}

std::vector<std::string> sweepAxes(Connection& db, const std::string& sweep)
{
    std::vector<std::string> axes;
    Statement s(db, "SELECT axes FROM sweeps WHERE name = ?1");
    s.bind(1, sweep);
    if (!s.step())
        return axes;
    const auto j = nlohmann::json::parse(s.columnText(0), nullptr, false);
    if (j.is_array())
        for (const auto& a : j)
            if (a.is_string())
                axes.push_back(a.get<std::string>());
    return axes;
}

std::vector<SweepPointRow> sweepPoints(Connection& db, const std::string& sweep)
{
    // Per key the best run: completed first, then the latest. A window over the key's runs picks it in one pass.
    Statement s(db, R"SQL(
SELECT run_id, point_key, axes, policy, seed, status, error, attempts, job_count, finished_job_count, avg_jct_s,
       makespan_s, cost_usd, sim_wall_s
FROM (SELECT p.run_id, p.point_key, p.axes, r.policy, r.seed, r.status, r.error, r.job_count, r.finished_job_count,
             r.avg_jct_s, r.makespan_s, r.cost_usd, r.sim_wall_s,
             count(*) OVER (PARTITION BY p.point_key) AS attempts,
             row_number() OVER (PARTITION BY p.point_key
                                ORDER BY r.status = 'completed' DESC, r.id DESC) AS rank
      FROM sweep_points p JOIN runs r ON r.id = p.run_id WHERE p.sweep = ?1)
WHERE rank = 1 ORDER BY run_id)SQL");
    s.bind(1, sweep);
    std::vector<SweepPointRow> rows;
    const auto optInt = [&](int c) { return s.isNull(c) ? std::nullopt : std::optional<int>(int(s.columnInt(c))); };
    const auto optDouble = [&](int c) { return s.isNull(c) ? std::nullopt : std::optional<double>(s.columnDouble(c)); };
    while (s.step()) {
        SweepPointRow r;
        r.runId = s.columnInt(0);
        r.pointKey = s.columnText(1);
        r.axesJson = s.columnText(2);
        r.policy = s.columnText(3);
        r.seed = static_cast<std::uint64_t>(s.columnInt(4));
        r.status = s.columnText(5);
        r.error = s.columnText(6);
        r.attempts = static_cast<int>(s.columnInt(7));
        r.jobCount = optInt(8);
        r.finishedJobCount = optInt(9);
        r.avgJctS = optDouble(10);
        r.makespanS = optDouble(11);
        r.costUsd = optDouble(12);
        r.simWallS = optDouble(13);
        rows.push_back(std::move(r));
    }
    return rows;
}

} // namespace orrery::store

#include "store/serving_records.h"

#include "io/error.h"
#include "store/run_uid.h"
#include "store/sqlite.h"
#include "store/timestamp.h"
#include "version.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <map>

namespace orrery::store {

namespace {

/** Latencies are NULL when nothing was served: no latency to report, not a latency of 0. */
std::optional<double> latencyOrNull(const serve::LatencySummary& l, double value)
{
    return l.served > 0 ? std::optional<double>(value) : std::nullopt;
}

} // namespace

std::int64_t saveServingRun(Connection& db, serve::ServingRun& run)
{
    Transaction tx(db);
    run.uid = newRunUid();
    run.createdAt = utcNowIso();
    run.orreryVersion = kVersion;
    const bool gamma = !run.spec.usesTrace();
    {
        Statement s(db, "INSERT INTO serving_runs (uid, created_at, orrery_version, method, model_set, gpu_type, gpus, "
                        "rate_per_s, cv, slo_scale, spec, segments, requests, served, rejected, unplaced, attainment, "
                        "latency_mean_s, latency_p50_s, latency_p90_s, latency_p99_s, latency_max_s, search_s, "
                        "simulations, candidates) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                        "?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)");
        const auto& l = run.latency;
        s.bind(1, run.uid)
            .bind(2, run.createdAt)
            .bind(3, run.orreryVersion)
            .bind(4, run.spec.method)
            .bind(5, run.spec.modelSet)
            .bind(6, run.spec.gpu)
            .bind(7, run.spec.gpus)
            .bind(8, gamma ? std::optional<double>(run.spec.ratePerS) : std::nullopt)
            .bind(9, gamma ? std::optional<double>(run.spec.cv) : std::nullopt)
            .bind(10, run.spec.sloScale)
            .bind(11, serve::servingSpecToJson(run.spec).dump())
            .bind(12, run.segments)
            .bind(13, static_cast<std::int64_t>(run.requests))
            .bind(14, static_cast<std::int64_t>(run.served))
            .bind(15, static_cast<std::int64_t>(run.rejected))
            .bind(16, static_cast<std::int64_t>(run.unplaced))
            .bind(17, run.attainment())
            .bind(18, latencyOrNull(l, l.meanS))
            .bind(19, latencyOrNull(l, l.p50S))
            .bind(20, latencyOrNull(l, l.p90S))
            .bind(21, latencyOrNull(l, l.p99S))
            .bind(22, latencyOrNull(l, l.maxS))
            .bind(23, run.searchS)
            .bind(24, run.simulations)
            .bind(25, run.candidates);
        s.run();
    }
    run.id = db.lastInsertRowId();
    Statement group(db, "INSERT INTO serving_groups (run_id, segment, group_index, stages, intra, utilisation) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    Statement replica(db, "INSERT INTO serving_replicas (run_id, segment, group_index, replica_index, model) "
                          "VALUES (?1, ?2, ?3, ?4, ?5)");
    int previousSegment = -1, index = 0;
    for (const auto& g : run.groups) {
        index = g.segment == previousSegment ? index + 1 : 0;
        previousSegment = g.segment;
        group.bind(1, run.id).bind(2, g.segment).bind(3, index).bind(4, g.config.stages).bind(5, g.config.intra);
        group.bind(6, g.utilisation);
        group.run();
        for (std::size_t r = 0; r < g.models.size(); ++r) {
            replica.bind(1, run.id).bind(2, g.segment).bind(3, index).bind(4, static_cast<int>(r));
            replica.bind(5, g.models[r]);
            replica.run();
        }
    }
    Statement model(db, "INSERT INTO serving_models (run_id, model_index, model, kind, slo_s, requests, served) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (std::size_t m = 0; m < run.models.size(); ++m) {
        const auto& rm = run.models[m];
        model.bind(1, run.id).bind(2, static_cast<int>(m)).bind(3, rm.name).bind(4, rm.kind).bind(5, rm.sloS);
        model.bind(6, static_cast<std::int64_t>(rm.requests)).bind(7, static_cast<std::int64_t>(rm.served));
        model.run();
    }
    Statement cdf(db, "INSERT INTO serving_latency_cdf (run_id, point_index, latency_s, fraction) "
                      "VALUES (?1, ?2, ?3, ?4)");
    for (std::size_t i = 0; i < run.cdf.size(); ++i) {
        cdf.bind(1, run.id).bind(2, static_cast<int>(i)).bind(3, run.cdf[i].first).bind(4, run.cdf[i].second);
        cdf.run();
    }
    tx.commit();
    return run.id;
}

std::vector<ServingRunRow> listServingRuns(Connection& db, const std::string& method)
{
    Statement s(db, "SELECT r.id, r.created_at, r.method, r.model_set, r.spec, r.gpu_type, r.gpus, r.rate_per_s, r.cv, "
                    "r.slo_scale, r.requests, r.served, r.attainment, r.latency_p99_s, "
                    "(SELECT count(*) FROM serving_groups g WHERE g.run_id = r.id AND g.segment = 0) "
                    "FROM serving_runs r WHERE ?1 = '' OR r.method = ?1 ORDER BY r.id");
    s.bind(1, method);
    std::vector<ServingRunRow> rows;
    const auto opt = [&](int c) { return s.isNull(c) ? std::nullopt : std::optional<double>(s.columnDouble(c)); };
    while (s.step()) {
        ServingRunRow r;
        r.id = s.columnInt(0);
        r.createdAt = s.columnText(1);
        r.method = s.columnText(2);
        r.modelSet = s.columnText(3);
        // The list shows the models without reading the whole spec strictly: a spec this build cannot read is
        // still listed (loadServingRun names what is wrong with it).
        const auto spec = nlohmann::json::parse(s.columnText(4), nullptr, false);
        if (spec.is_object() && spec.contains("models") && spec["models"].is_array())
            for (const auto& m : spec["models"])
                if (m.is_object() && m.value("model", nlohmann::json()).is_string())
                    r.models += fmt::format("{}{}:{}", r.models.empty() ? "" : ",", m["model"].get<std::string>(),
                                            m.value("count", 1));
        r.gpuType = s.columnText(5);
        r.gpus = static_cast<int>(s.columnInt(6));
        r.ratePerS = opt(7);
        r.cv = opt(8);
        r.sloScale = s.columnDouble(9);
        r.requests = s.columnInt(10);
        r.served = s.columnInt(11);
        r.attainment = s.columnDouble(12);
        r.p99S = opt(13);
        r.groups = static_cast<int>(s.columnInt(14));
        rows.push_back(std::move(r));
    }
    return rows;
}

serve::ServingRun loadServingRun(Connection& db, std::int64_t id)
{
    serve::ServingRun run;
    {
        Statement s(db, "SELECT uid, created_at, orrery_version, spec, segments, requests, served, rejected, unplaced, "
                        "latency_mean_s, latency_p50_s, latency_p90_s, latency_p99_s, latency_max_s, search_s, "
                        "simulations, candidates FROM serving_runs WHERE id = ?1");
        s.bind(1, id);
        if (!s.step())
            throw Error(db.path(), "serving run", fmt::format("no serving run with id {}", id));
        run.id = id;
        run.uid = s.columnText(0);
        run.createdAt = s.columnText(1);
        run.orreryVersion = s.columnText(2);
        const std::string where = fmt::format("serving_runs[{}].spec", id);
        try {
            run.spec = serve::servingSpecFromJson(nlohmann::json::parse(s.columnText(3)), db.path());
        } catch (const Error& e) {
            throw Error(db.path(), where + (e.location().empty() ? "" : "." + e.location()), e.message());
        } catch (const nlohmann::json::exception&) {
            throw Error(db.path(), where, "is not JSON");
        }
        run.segments = static_cast<int>(s.columnInt(4));
        run.requests = s.columnInt(5);
        run.served = s.columnInt(6);
        run.rejected = s.columnInt(7);
        run.unplaced = s.columnInt(8);
        auto& l = run.latency;
        l.served = s.isNull(9) ? 0 : run.served;
        l.meanS = s.columnDouble(9, 0);
        l.p50S = s.columnDouble(10, 0);
        l.p90S = s.columnDouble(11, 0);
        l.p99S = s.columnDouble(12, 0);
        l.maxS = s.columnDouble(13, 0);
        run.searchS = s.columnDouble(14);
        run.simulations = static_cast<int>(s.columnInt(15));
        run.candidates = static_cast<int>(s.columnInt(16));
    }
    // A group is (segment, group_index): where it is in run.groups, for its replicas.
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> at;
    {
        Statement s(db, "SELECT segment, group_index, stages, intra, utilisation FROM serving_groups WHERE run_id = ?1 "
                        "ORDER BY segment, group_index");
        s.bind(1, id);
        while (s.step()) {
            serve::RunGroup g;
            g.segment = static_cast<int>(s.columnInt(0));
            g.config = {static_cast<int>(s.columnInt(2)), static_cast<int>(s.columnInt(3))};
            g.utilisation = s.columnDouble(4);
            at.emplace(std::make_pair(s.columnInt(0), s.columnInt(1)), run.groups.size());
            run.groups.push_back(std::move(g));
        }
    }
    {
        Statement s(db, "SELECT segment, group_index, model FROM serving_replicas WHERE run_id = ?1 "
                        "ORDER BY segment, group_index, replica_index");
        s.bind(1, id);
        while (s.step()) {
            const auto it = at.find({s.columnInt(0), s.columnInt(1)});
            if (it == at.end())
                throw Error(db.path(), "serving_replicas",
                            fmt::format("run {}: a replica of group {} of segment {}, which is not stored", id,
                                        s.columnInt(1), s.columnInt(0)));
            run.groups[it->second].models.push_back(s.columnText(2));
        }
    }
    {
        Statement s(db, "SELECT model, kind, slo_s, requests, served FROM serving_models WHERE run_id = ?1 "
                        "ORDER BY model_index");
        s.bind(1, id);
        while (s.step())
            run.models.push_back({s.columnText(0), s.columnText(1), s.columnDouble(2), s.columnInt(3), s.columnInt(4)});
    }
    {
        Statement s(db, "SELECT latency_s, fraction FROM serving_latency_cdf WHERE run_id = ?1 ORDER BY point_index");
        s.bind(1, id);
        while (s.step())
            run.cdf.emplace_back(s.columnDouble(0), s.columnDouble(1));
    }
    return run;
}

bool deleteServingRun(Connection& db, std::int64_t id)
{
    Transaction tx(db);
    Statement find(db, "SELECT 1 FROM serving_runs WHERE id = ?1");
    find.bind(1, id);
    if (!find.step())
        return false;
    find.reset();
    // The groups, replicas, models and CDF go with it (ON DELETE CASCADE: groups from the run, replicas from groups).
    Statement del(db, "DELETE FROM serving_runs WHERE id = ?1");
    del.bind(1, id);
    del.run();
    tx.commit();
    return true;
}

} // namespace orrery::store

// Serving runs (issue 17; docs/serving.md "Serving runs", docs/database.md "Serving runs"): the run a spec gives is
// what core's placement calls give, a stored run reads back identically (Clockwork++'s segments included), schema 10's
// migration from version 9 keeps the training runs, bad stored specs name the row and field, `runs merge` copies
// serving runs once, the CSV exports carry their units, and the attainment curves have one point per value per method
// and stop when asked (with a trace: along its rate or CV scale, which the CSV names).
#include "store_fixtures.h"
#include "test_support.h"

#include "io/error.h"
#include "io/serving_csv.h"
#include "serve/attainment_curves.h"
#include "serve/clockwork.h"
#include "serve/placement_search.h"
#include "serve/serving_run.h"
#include "store/run_merge.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/serving_records.h"
#include "store/sqlite.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stop_token>

using namespace orrery;
using namespace orrery::serve;
using orrery::test::errorOf;

namespace {

/** Four BERT-1.3B on four V100s at the paper's 13 GB budget: a search of a few hundred milliseconds. */
ServingSpec smallSpec(const std::string& method = kMethodAlpaServe)
{
    ServingSpec s;
    s.models = {{"bert-1.3b", 4}};
    s.gpus = 4;
    s.memoryBudgetGB = 13;
    s.ratePerS = 8;
    s.cv = 3;
    s.durationS = 120;
    s.method = method;
    return s;
}

void sameRun(const ServingRun& a, const ServingRun& b)
{
    QCOMPARE(servingSpecToJson(a.spec).dump(), servingSpecToJson(b.spec).dump());
    QCOMPARE(a.segments, b.segments);
    QCOMPARE(a.groups.size(), b.groups.size());
    for (std::size_t g = 0; g < a.groups.size(); ++g) {
        QCOMPARE(a.groups[g].segment, b.groups[g].segment);
        QVERIFY(a.groups[g].config == b.groups[g].config);
        QCOMPARE(a.groups[g].models, b.groups[g].models);
        QCOMPARE(a.groups[g].utilisation, b.groups[g].utilisation);
    }
    QCOMPARE(a.models.size(), b.models.size());
    for (std::size_t m = 0; m < a.models.size(); ++m) {
        QCOMPARE(a.models[m].name, b.models[m].name);
        QCOMPARE(a.models[m].kind, b.models[m].kind);
        QCOMPARE(a.models[m].sloS, b.models[m].sloS);
        QCOMPARE(a.models[m].requests, b.models[m].requests);
        QCOMPARE(a.models[m].served, b.models[m].served);
    }
    QCOMPARE(a.requests, b.requests);
    QCOMPARE(a.served, b.served);
    QCOMPARE(a.rejected, b.rejected);
    QCOMPARE(a.unplaced, b.unplaced);
    QCOMPARE(a.latency.meanS, b.latency.meanS);
    QCOMPARE(a.latency.p50S, b.latency.p50S);
    QCOMPARE(a.latency.p90S, b.latency.p90S);
    QCOMPARE(a.latency.p99S, b.latency.p99S);
    QCOMPARE(a.latency.maxS, b.latency.maxS);
    QVERIFY(a.cdf == b.cdf);
    QCOMPARE(a.searchS, b.searchS);
    QCOMPARE(a.simulations, b.simulations);
    QCOMPARE(a.candidates, b.candidates);
}

} // namespace

class TestStoreServing : public orrery::test::TempDirTest
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void runIsWhatTheCoreCallsGive()
    {
        const ServingSpec spec = smallSpec();
        const ServingRun run = runServing(spec);
        // The same problem and traffic through core's calls directly.
        auto setup = prepareServing(spec);
        ProfileCache cache(setup->problem);
        const SearchResult search = searchPlacement(cache, setup->workload);
        const SimResult sim = evaluatePlacement(cache, search.placement, setup->workload, true);
        QCOMPARE(run.attainment(), sim.attainment());
        QCOMPARE(run.served, sim.served);
        QCOMPARE(run.requests, static_cast<long long>(setup->workload.requests.size()));
        QCOMPARE(run.simulations, search.simulations);
        QCOMPARE(run.groups.size(), search.placement.groups.size());
        const Placement back = placementOf(run, 0, setup->problem);
        for (std::size_t g = 0; g < back.groups.size(); ++g) {
            QVERIFY(back.groups[g].config == search.placement.groups[g].config);
            QCOMPARE(back.groups[g].models, search.placement.groups[g].models);
        }
        QCOMPARE(run.latency.p99S, summarizeLatencies(sim).p99S);
        QVERIFY(run.cdf == latencyCdf(sim, kStoredCdfPoints));
        QCOMPARE(run.models.size(), std::size_t(4));
        QCOMPARE(run.models[0].sloS, 5 * cache.baseLatencyS(0));
        long long served = 0;
        for (const auto& m : run.models)
            served += m.served;
        QCOMPARE(served, run.served);
        // Selective Replication: the baseline's own search.
        const ServingRun sr = runServing(smallSpec(kMethodSelectiveReplication));
        const SearchResult srSearch = selectiveReplication(cache, setup->workload);
        QCOMPARE(sr.attainment(), evaluatePlacement(cache, srSearch.placement, setup->workload).attainment());
        QVERIFY(errorOf([] { runServing(smallSpec("magic")); }).find("method") != std::string::npos);
    }

    void storedRunReloadsIdentically()
    {
        store::RunStore s(path("round.sqlite"));
        ServingRun run = runServing(smallSpec());
        const auto id = store::saveServingRun(s.connection(), run);
        QCOMPARE(run.id, id);
        QCOMPARE(run.uid.size(), std::size_t(32));
        const ServingRun back = store::loadServingRun(s.connection(), id);
        sameRun(back, run);
        QCOMPARE(back.uid, run.uid);
        QCOMPARE(back.createdAt, run.createdAt);

        // Clockwork++: one placement per two windows, each stored as its segment.
        ServingSpec cw = smallSpec(kMethodClockwork);
        cw.durationS = 240;
        cw.windowS = 60;
        ServingRun cwRun = runServing(cw);
        QCOMPARE(cwRun.segments, 2);
        const auto cwId = store::saveServingRun(s.connection(), cwRun);
        const ServingRun cwBack = store::loadServingRun(s.connection(), cwId);
        sameRun(cwBack, cwRun);
        QVERIFY(!cwBack.segmentGroups(1).empty());
        // The direct call gives the same attainment.
        auto setup = prepareServing(cw);
        ProfileCache cache(setup->problem);
        QCOMPARE(cwRun.attainment(), clockworkPlusPlus(cache, setup->workload, 60).attainment());

        // A trace run has no rate or CV columns: its traffic is the trace's.
        ServingSpec traced = smallSpec(kMethodSelectiveReplication);
        traced.trace = test::sourcePath("data/serving/maf1_synthetic.csv");
        traced.windowMin = 30;
        ServingRun tracedRun = runServing(traced);
        const auto tracedId = store::saveServingRun(s.connection(), tracedRun);
        sameRun(store::loadServingRun(s.connection(), tracedId), tracedRun);

        const auto rows = store::listServingRuns(s.connection());
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0].method, std::string("alpaserve"));
        QCOMPARE(rows[0].models, std::string("bert-1.3b:4"));
        QCOMPARE(rows[0].attainment, run.attainment());
        QCOMPARE(*rows[0].ratePerS, 8.0);
        QVERIFY(!rows[2].ratePerS && !rows[2].cv);
        QCOMPARE(store::listServingRuns(s.connection(), "clockwork++").size(), std::size_t(1));

        // Deleting takes every row of the run with it.
        QVERIFY(store::deleteServingRun(s.connection(), cwId));
        QVERIFY(!store::deleteServingRun(s.connection(), cwId));
        for (const char* table : {"serving_groups", "serving_replicas", "serving_models", "serving_latency_cdf"})
            QCOMPARE(s.connection().queryInt(fmt::format("SELECT count(*) FROM {} WHERE run_id = {}", table, cwId)),
                     std::int64_t(0));
        const std::string missing = errorOf([&] { store::loadServingRun(s.connection(), cwId); });
        QVERIFY2(missing.find(fmt::format("no serving run with id {}", cwId)) != std::string::npos, missing.c_str());
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void badStoredSpecNamesTheRowAndField()
    {
        const std::string p = path("bad.sqlite");
        store::RunStore s(p);
        ServingRun run = runServing(smallSpec());
        const auto id = store::saveServingRun(s.connection(), run);
        s.connection().exec(
            fmt::format("UPDATE serving_runs SET spec = json_set(spec, '$.gpus', -3) WHERE id = {}", id));
        const std::string err = errorOf([&] { store::loadServingRun(s.connection(), id); });
        QVERIFY2(err.find(p) == 0 && err.find(fmt::format("serving_runs[{}].spec.gpus", id)) != std::string::npos,
                 err.c_str());
        s.connection().exec(
            fmt::format("UPDATE serving_runs SET spec = json_set(spec, '$.method', 'magic') WHERE id = {}", id));
        QVERIFY(errorOf([&] { store::loadServingRun(s.connection(), id); }).find(".spec.") != std::string::npos);
    }

    void version9StoresAreMigrated()
    {
        const std::string p = path("v9.sqlite");
        {
            store::Connection db(p, store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 9);
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "job_count, finished_job_count, uid) VALUES (1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 0, 0, "
                    "'00112233445566778899aabbccddeeff')");
            QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'serving%'"), std::int64_t(0));
        }
        {
            store::RunStore::Options ro;
            ro.access = store::RunStore::Access::ReadOnly;
            const std::string err = errorOf([&] { store::RunStore s(p, ro); });
            QVERIFY2(err.find("schema version 9, now 11") != std::string::npos, err.c_str());
        }
        store::RunStore s(p);
        auto& db = s.connection();
        QCOMPARE(store::schemaVersion(), 11);
        QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(11));
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('serving_runs', "
                             "'serving_groups', 'serving_replicas', 'serving_models', 'serving_latency_cdf')"),
                 std::int64_t(5));
        // The training run is still there, and serving runs go in beside it.
        const auto runs = s.listRuns();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].policy, std::string("fifo"));
        QVERIFY(store::listServingRuns(db).empty());
        ServingRun run = runServing(smallSpec(kMethodSelectiveReplication));
        const auto id = store::saveServingRun(db, run);
        sameRun(store::loadServingRun(db, id), run);
        QCOMPARE(s.listRuns().size(), std::size_t(1));
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void mergeCopiesServingRunsOnce()
    {
        const std::string a = path("merge-a.sqlite"), out = path("merge-out.sqlite");
        ServingRun run = runServing(smallSpec());
        {
            store::RunStore s(a);
            store::saveServingRun(s.connection(), run);
        }
        store::RunStore dest(out);
        ServingRun mine = runServing(smallSpec(kMethodSelectiveReplication));
        store::saveServingRun(dest.connection(), mine);
        const auto report = store::mergeRunStores(dest, {a});
        QCOMPARE(report.servingCopied(), 1);
        const auto rows = store::listServingRuns(dest.connection());
        QCOMPARE(rows.size(), std::size_t(2));
        const ServingRun back = store::loadServingRun(dest.connection(), rows[1].id);
        sameRun(back, run);
        QCOMPARE(back.uid, run.uid);
        QCOMPARE(back.createdAt, run.createdAt);
        // Again: recognised by its uid, not copied twice.
        const auto again = store::mergeRunStores(dest, {a});
        QCOMPARE(again.servingCopied(), 0);
        QCOMPARE(again.sources[0].servingAlreadyPresent, 1);
        QCOMPARE(store::listServingRuns(dest.connection()).size(), std::size_t(2));
        QCOMPARE(dest.integrityCheck(), std::string("ok"));
    }

    void csvCarriesUnits()
    {
        ServingRun run = runServing(smallSpec());
        run.id = 7;
        std::ostringstream runs, groups, models, cdf;
        io::writeServingRunsCsv(runs, {run});
        io::writeServingGroupsCsv(groups, {run});
        io::writeServingModelsCsv(models, {run});
        io::writeServingCdfCsv(cdf, {run});
        QVERIFY(runs.str().rfind("run_id,created_at,method,model_set,models,gpu_type,gpus,rate_per_s,cv,slo_scale,"
                                 "requests,served,rejected,attainment_pct,latency_mean_s,",
                                 0) == 0);
        QVERIFY(runs.str().find("\r\n7,,alpaserve,,bert-1.3b:4,v100-16gb,4,8,3,5,") != std::string::npos);
        QVERIFY(groups.str().rfind("run_id,segment,group,stages,intra,gpus,models,replicas,utilisation_pct\r\n", 0) ==
                0);
        QVERIFY(models.str().rfind("run_id,model,kind,slo_s,requests,served,attainment_pct\r\n7,bert-1.3b#0,", 0) == 0);
        QVERIFY(cdf.str().rfind("run_id,latency_s,fraction\r\n", 0) == 0);
        // One line per group, model and CDF point, after the header.
        const auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n') - 1; };
        QCOMPARE(lines(groups.str()), static_cast<long>(run.groups.size()));
        QCOMPARE(lines(models.str()), 4L);
        QCOMPARE(lines(cdf.str()), static_cast<long>(run.cdf.size()));
    }

    void curvesHaveOnePointPerValuePerMethodAndStop()
    {
        const std::vector<double> rates = {4, 16};
        const auto curves = attainmentCurves(smallSpec(), CurveAxis::Rate, rates, placementMethods());
        QCOMPARE(curves.attainment.size(), std::size_t(3));
        for (std::size_t m = 0; m < 3; ++m) {
            QCOMPARE(curves.attainment[m].size(), rates.size());
            for (std::size_t v = 0; v < rates.size(); ++v) {
                ServingSpec spec = withAxisValue(smallSpec(), CurveAxis::Rate, rates[v]);
                spec.method = placementMethods()[m];
                QCOMPARE(curves.attainment[m][v], runServing(spec).attainment());
            }
        }
        // More traffic on the same GPUs never serves a larger share, for AlpaServe.
        QVERIFY(curves.attainment[0][1] <= curves.attainment[0][0]);
        const auto slo = attainmentCurves(smallSpec(), CurveAxis::SloScale, {2, 10}, {kMethodAlpaServe});
        QVERIFY(slo.attainment[0][1] >= slo.attainment[0][0]);
        QCOMPARE(withAxisValue(smallSpec(), CurveAxis::Cv, 0.5).cv, 0.5);

        // Progress goes up to 1; a stop request ends it with Cancelled.
        std::vector<double> seen;
        util::Progress progress;
        progress.report = [&](double f) { seen.push_back(f); };
        attainmentCurves(smallSpec(), CurveAxis::Cv, {1, 2}, {kMethodSelectiveReplication}, &progress);
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back(), 1.0);
        for (double f : seen)
            QVERIFY(f >= 0 && f <= 1);
        std::stop_source stop;
        util::Progress stopping;
        stopping.stop = stop.get_token();
        stopping.report = [&](double) { stop.request_stop(); };
        bool cancelled = false;
        try {
            attainmentCurves(smallSpec(), CurveAxis::Rate, {4, 8, 12, 16}, placementMethods(), &stopping);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
    }

    void curvesOfATraceAreAlongItsScales()
    {
        // With a trace the rate and CV axes scale the trace's fitted rates and CVs; the curves and their CSV say so.
        ServingSpec traced = smallSpec(kMethodSelectiveReplication);
        traced.trace = test::sourcePath("data/serving/maf1_synthetic.csv");
        const auto curves = attainmentCurves(traced, CurveAxis::Cv, {0.5, 2}, {kMethodSelectiveReplication});
        QVERIFY(curves.trace);
        for (std::size_t v = 0; v < 2; ++v) {
            ServingSpec at = withAxisValue(traced, CurveAxis::Cv, curves.values[v]);
            QCOMPARE(at.cvScale, curves.values[v]);
            QCOMPARE(at.cv, traced.cv);
            QCOMPARE(curves.attainment[0][v], runServing(at).attainment());
        }
        std::ostringstream csv;
        io::writeAttainmentCurvesCsv(csv, curves);
        QVERIFY(csv.str().rfind("method,cv_scale,attainment_pct\r\nsr,0.5,", 0) == 0);
        QCOMPARE(curveAxisTitle(CurveAxis::Cv, true), std::string("CV scale (x the trace's fitted CVs)"));
        // Gamma traffic keeps the spec's own fields.
        const auto gamma = attainmentCurves(smallSpec(), CurveAxis::Rate, {4}, {kMethodSelectiveReplication});
        QVERIFY(!gamma.trace);
        std::ostringstream gammaCsv;
        io::writeAttainmentCurvesCsv(gammaCsv, gamma);
        QVERIFY(gammaCsv.str().rfind("method,rate_per_s,attainment_pct\r\n", 0) == 0);
    }

    void specJsonRoundTripsAndIsStrict()
    {
        ServingSpec s = smallSpec(kMethodClockwork);
        s.modelSet = "S1";
        s.seed = 18446744073709551615ull;
        s.calibrate = false;
        const ServingSpec back = servingSpecFromJson(servingSpecToJson(s), "x.json");
        QCOMPARE(servingSpecToJson(back).dump(), servingSpecToJson(s).dump());
        QCOMPARE(back.seed, s.seed);
        auto doc = servingSpecToJson(s);
        doc["gpuz"] = 3;
        QVERIFY(errorOf([&] { servingSpecFromJson(doc, "x.json"); }).find("gpuz") != std::string::npos);
        QCOMPARE(modelSet("s3")->size(), std::size_t(6));
        QVERIFY(!modelSet("s5"));
        QCOMPARE(modelCountsText(*modelSet("S3")).substr(0, 22), std::string("bert-1.3b:10,bert-2.7b"));
    }

private:
};

QTEST_GUILESS_MAIN(TestStoreServing)
#include "test_store_serving.moc"

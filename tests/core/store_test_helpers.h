#pragma once

// Helpers of the run-store tests (test_store*.cpp): hand-made runs, old-schema files, byte-level checks.

#include "store_fixtures.h"
#include "test_support.h"

#include "hardware/gpu_layout.h"
#include "io/error.h"
#include "io/run_csv.h"
#include "io/run_json.h"
#include "store/column_chunks.h"
#include "store/run_comparison.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "util/hash.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace orrery::test::storetest {

inline store::RunInfo info(const std::string& policy = "fifo", const std::string& scenario = "{\"name\":\"t\"}")
{
    store::RunInfo i = test::twoNodeRunInfo("t", scenario, policy, 7);
    i.optionsJson = R"({"round_s":360})";
    return i;
}

/** A store as schema `version` left it, with one scenario 'old' (id 1) and the rows `sql` inserts. */
inline void writeOldStore(const std::string& path, int version, const std::string& sql)
{
    store::Connection db(path, store::Connection::Mode::ReadWriteCreate);
    store::migrate(db, version);
    db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');" + sql);
}

/** A small, hand-made run: 3 jobs (one unfinished), preemption on GPU 0. */
inline sim::RunResult smallRun(const std::string& policy = "fifo")
{
    sim::RunResult r = test::twoNodeRun(policy, 7);
    r.jobs = {{"j0", "gpt2-124m", "u1", 0, 0, 100, 2, "a100-40gb-sxm", 0, 200, 0.5, 90},
              {"j,\"1\"", "bert-large", "u2", 10, 50, 300, 1, "mixed", 1, 250, 0.7, 200},
              {"j2", "gpt2-350m", "u1", 20, -1, -1, 0, "", 0, 0, 0, 120}};
    r.intervals = {{0, 0, 0, 50}, {0, 1, 0, 100}, {1, 0, 50, 120}, {0, 0, 120, 150}, {1, 4, 150, 300}};
    r.utilization = {{0, 2, {2, 0}}, {50, 2, {2, 0}}, {150, 2, {1, 1}}, {300, 0, {0, 0}}};
    r.decisions = {{0, 1e-5, 1, 0}, {10, 2e-5, 1, 1}, {20, 3e-5, 2, 1}};
    r.makespanS = 300;
    r.wallS = 0.01;
    return r;
}

inline std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

inline store::RunFilter filter(std::string scenario, std::string policy, std::optional<store::RunStatus> status = {},
                               int limit = 0)
{
    store::RunFilter f;
    f.scenario = std::move(scenario);
    f.policy = std::move(policy);
    f.status = status;
    f.limit = limit;
    return f;
}

inline std::int64_t count(store::RunStore& s, const std::string& sql)
{
    return s.connection().queryInt(sql);
}

/** Expects RunStore(path) to throw an orrery::Error naming the file and mentioning `what`, leaving it unchanged. */
inline void expectRefused(const std::string& path, const std::string& what)
{
    const std::string before = readBytes(path);
    bool thrown = false;
    try {
        store::RunStore s(path);
    } catch (const Error& e) {
        thrown = true;
        QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(path));
        QVERIFY2(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
    QVERIFY2(thrown, path.c_str());
    QVERIFY(readBytes(path) == before);
}

inline void compareRuns(const sim::RunResult& a, const sim::RunResult& b)
{
    RC_ASSERT(a.policy == b.policy);
    RC_ASSERT(a.seed == b.seed);
    RC_ASSERT(a.gpuTypes == b.gpuTypes);
    RC_ASSERT(a.gpusByType == b.gpusByType);
    RC_ASSERT(a.priceUsdPerHourByType == b.priceUsdPerHourByType);
    RC_ASSERT(a.gpuType == b.gpuType);
    RC_ASSERT(a.events == b.events);
    RC_ASSERT(a.totalGpus == b.totalGpus);
    RC_ASSERT(a.makespanS == b.makespanS);
    RC_ASSERT(a.wallS == b.wallS);
    RC_ASSERT(a.cancelled == b.cancelled);
    RC_ASSERT(a.jobs.size() == b.jobs.size());
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
        const auto& x = a.jobs[i];
        const auto& y = b.jobs[i];
        RC_ASSERT(x.id == y.id && x.model == y.model && x.user == y.user && x.gpuType == y.gpuType);
        RC_ASSERT(x.arrivalS == y.arrivalS && x.startS == y.startS && x.endS == y.endS);
        RC_ASSERT(x.gpus == y.gpus && x.restarts == y.restarts);
        RC_ASSERT(x.nodes == y.nodes && x.demand == y.demand && x.excludedFromAverage == y.excludedFromAverage);
        RC_ASSERT(x.gpuSeconds == y.gpuSeconds && x.costUsd == y.costUsd && x.idealS == y.idealS);
    }
    RC_ASSERT(a.intervals.size() == b.intervals.size());
    for (std::size_t i = 0; i < a.intervals.size(); ++i)
        RC_ASSERT(a.intervals[i].job == b.intervals[i].job && a.intervals[i].gpu == b.intervals[i].gpu &&
                  a.intervals[i].startS == b.intervals[i].startS && a.intervals[i].endS == b.intervals[i].endS);
    RC_ASSERT(a.utilization.size() == b.utilization.size());
    for (std::size_t i = 0; i < a.utilization.size(); ++i)
        RC_ASSERT(a.utilization[i].timeS == b.utilization[i].timeS &&
                  a.utilization[i].busyGpus == b.utilization[i].busyGpus &&
                  a.utilization[i].busyByType == b.utilization[i].busyByType);
    RC_ASSERT(a.decisions.size() == b.decisions.size());
    for (std::size_t i = 0; i < a.decisions.size(); ++i)
        RC_ASSERT(a.decisions[i].simTimeS == b.decisions[i].simTimeS && a.decisions[i].wallS == b.decisions[i].wallS &&
                  a.decisions[i].queued == b.decisions[i].queued && a.decisions[i].running == b.decisions[i].running);
}

inline rc::Gen<double> seconds()
{
    return rc::gen::map(rc::gen::inRange(0, 100000000), [](int v) { return v / 1000.0; });
}

inline rc::Gen<sim::RunResult> genRun()
{
    return rc::gen::exec([] {
        sim::RunResult r;
        r.policy = *rc::gen::element<std::string>("fifo", "sjf", "tiresias", "gavel");
        r.seed = *rc::gen::arbitrary<std::uint64_t>();
        r.gpuTypes = {"a100-40gb-sxm", "rtx2080ti"};
        r.gpusByType = {4, 2};
        r.priceUsdPerHourByType = {*rc::gen::arbitrary<double>(), *rc::gen::arbitrary<double>()};
        r.gpuType = {0, 0, 0, 0, 1, 1};
        r.totalGpus = 6;
        r.events = *rc::gen::arbitrary<std::uint32_t>();
        const int jobs = *rc::gen::inRange(0, 40);
        for (int i = 0; i < jobs; ++i) {
            sim::JobRecord j;
            j.id = *rc::gen::arbitrary<std::string>();
            j.model = *rc::gen::element<std::string>("gpt2-124m", "bert-large", "ResNet-50 (batch size 64)");
            j.user = *rc::gen::arbitrary<std::string>();
            j.arrivalS = *seconds();
            const int state = *rc::gen::inRange(0, 3); // 0 queued, 1 running, 2 finished
            if (state >= 1)
                j.startS = j.arrivalS + *seconds();
            if (state == 2)
                j.endS = j.startS + *seconds();
            j.gpus = *rc::gen::inRange(0, 9);
            j.gpuType = *rc::gen::element<std::string>("a100-40gb-sxm", "rtx2080ti", "mixed", "");
            j.restarts = *rc::gen::inRange(0, 5);
            j.gpuSeconds = *seconds();
            j.costUsd = *rc::gen::arbitrary<double>();
            j.idealS = *seconds();
            j.nodes = *rc::gen::inRange(0, 3);
            j.demand = *rc::gen::inRange(1, 9);
            j.excludedFromAverage = *rc::gen::arbitrary<bool>();
            r.jobs.push_back(std::move(j));
        }
        const int intervals = jobs ? *rc::gen::inRange(0, 60) : 0;
        for (int i = 0; i < intervals; ++i) {
            const double start = *seconds();
            r.intervals.push_back({*rc::gen::inRange(0, jobs), *rc::gen::inRange(0, 6), start, start + *seconds()});
        }
        const int samples = *rc::gen::inRange(0, 30);
        for (int i = 0; i < samples; ++i) {
            const int a = *rc::gen::inRange(0, 5);
            const int b = *rc::gen::inRange(0, 3);
            r.utilization.push_back({i * 10.0, a + b, {a, b}});
        }
        const int decisions = *rc::gen::inRange(0, 30);
        for (int i = 0; i < decisions; ++i)
            r.decisions.push_back(
                {*seconds(), *rc::gen::inRange(0, 1000) * 1e-6, *rc::gen::inRange(0, 50), *rc::gen::inRange(0, 50)});
        r.makespanS = *seconds();
        r.wallS = *rc::gen::inRange(0, 1000) * 1e-3;
        r.cancelled = *rc::gen::arbitrary<bool>();
        return r;
    });
}

} // namespace orrery::test::storetest

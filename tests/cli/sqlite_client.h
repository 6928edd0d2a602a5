#pragma once

// A plain SQLite client, as the sqlite3 shell or a C program would use one, and the rows the orrery_sqlite
// extension's tables must give for a stored run: what test_sqlite_extension.cpp compares the extension with.

#include "store_fixtures.h"
#include "test_support.h"

#include "io/scenario.h"
#include "sched/run_policies.h"
#include "sim/prepare_scenario.h"
#include "store/chunk_layout.h"
#include "store/run_store.h"

#include <QTemporaryDir>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace orrery::test::sqlitetest {

/** One SQL value as sqlite3_column_* gives it. */
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;
using Row = std::vector<Value>;

struct QueryResult
{
    std::vector<Row> rows;
    int code = SQLITE_OK;
    std::string error; ///< empty when the query succeeded
};

/** A plain SQLite connection, as the sqlite3 shell or a C program would open one. */
class Db
{
public:
    explicit Db(const std::string& path, int flags = SQLITE_OPEN_READWRITE)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK)
            throw std::runtime_error("cannot open " + path + ": " + sqlite3_errmsg(m_db));
    }
    ~Db() { sqlite3_close(m_db); }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    /** Loads the built extension; `entryPoint` null lets SQLite derive it from the file name. */
    std::string load(const char* entryPoint = nullptr)
    {
        sqlite3_enable_load_extension(m_db, 1);
        char* error = nullptr;
        const int rc = sqlite3_load_extension(m_db, ORRERY_SQLITE_MODULE, entryPoint, &error);
        std::string message = rc == SQLITE_OK ? "" : (error ? error : "failed");
        sqlite3_free(error);
        return message;
    }

    QueryResult query(const std::string& sql, const std::vector<Value>& binds = {})
    {
        QueryResult out;
        sqlite3_stmt* stmt = nullptr;
        out.code = sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr);
        if (out.code != SQLITE_OK) {
            out.error = sqlite3_errmsg(m_db);
            return out;
        }
        for (std::size_t i = 0; i < binds.size(); ++i) {
            const int at = static_cast<int>(i) + 1;
            if (const auto* v = std::get_if<std::int64_t>(&binds[i]))
                sqlite3_bind_int64(stmt, at, *v);
            else if (const auto* d = std::get_if<double>(&binds[i]))
                sqlite3_bind_double(stmt, at, *d);
            else if (const auto* s = std::get_if<std::string>(&binds[i]))
                sqlite3_bind_text(stmt, at, s->c_str(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
        }
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            Row row;
            for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
                switch (sqlite3_column_type(stmt, c)) {
                case SQLITE_INTEGER:
                    row.emplace_back(std::int64_t{sqlite3_column_int64(stmt, c)});
                    break;
                case SQLITE_FLOAT:
                    row.emplace_back(sqlite3_column_double(stmt, c));
                    break;
                case SQLITE_TEXT:
                    row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, c)),
                                                 static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
                    break;
                case SQLITE_BLOB:
                    row.emplace_back(std::string("<blob>"));
                    break;
                default:
                    row.emplace_back(std::monostate{});
                    break;
                }
            }
            out.rows.push_back(std::move(row));
        }
        if (rc != SQLITE_DONE) {
            out.code = rc;
            out.error = sqlite3_errmsg(m_db);
        }
        sqlite3_finalize(stmt);
        return out;
    }

    /** The rows of a query that must succeed. */
    std::vector<Row> rows(const std::string& sql, const std::vector<Value>& binds = {})
    {
        QueryResult r = query(sql, binds);
        if (!r.error.empty())
            throw std::runtime_error(sql + ": " + r.error);
        return std::move(r.rows);
    }

    std::int64_t integer(const std::string& sql, const std::vector<Value>& binds = {})
    {
        const auto r = rows(sql, binds);
        return std::get<std::int64_t>(r.at(0).at(0));
    }

    void exec(const std::string& sql)
    {
        char* error = nullptr;
        const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error);
        const std::string message = error ? error : "";
        sqlite3_free(error);
        if (rc != SQLITE_OK)
            throw std::runtime_error(sql + ": " + message);
    }

    sqlite3* handle() { return m_db; }

private:
    sqlite3* m_db = nullptr;
};

inline Value integer(std::int64_t v)
{
    return v;
}

/** A job time as the tables show it: NULL when it did not happen (the store's -1). */
inline Value jobTime(double seconds)
{
    return seconds < 0 ? Value{} : Value{seconds};
}

inline Value text(const std::string& s)
{
    return s;
}

inline std::string busyJson(const std::vector<int>& byType)
{
    std::string out = "[";
    for (std::size_t t = 0; t < byType.size(); ++t)
        out += (t ? "," : "") + std::to_string(byType[t]);
    return out + "]";
}

inline Row jobRow(std::int64_t run, std::size_t index, const sim::JobRecord& j)
{
    return {integer(run),
            integer(static_cast<std::int64_t>(index)),
            text(j.id),
            text(j.model),
            text(j.user),
            j.arrivalS,
            jobTime(j.startS),
            jobTime(j.endS),
            integer(j.gpus),
            text(j.gpuType),
            integer(j.restarts),
            j.gpuSeconds,
            j.costUsd,
            j.idealS,
            integer(j.nodes),
            integer(j.demand),
            integer(j.excludedFromAverage ? 1 : 0),
            j.startS < 0 ? Value{} : Value{j.startS - j.arrivalS},
            j.endS < 0 ? Value{} : Value{j.endS - j.arrivalS}};
}

inline Row intervalRow(std::int64_t run, std::size_t index, const sim::AllocationInterval& iv)
{
    return {integer(run), integer(static_cast<std::int64_t>(index)), integer(iv.job), integer(iv.gpu), iv.startS,
            iv.endS};
}

inline Row utilizationRow(std::int64_t run, std::size_t index, const sim::UtilizationSample& u)
{
    return {integer(run), integer(static_cast<std::int64_t>(index)), u.timeS, integer(u.busyGpus),
            text(busyJson(u.busyByType))};
}

inline Row decisionRow(std::int64_t run, std::size_t index, const sim::DecisionTiming& d)
{
    return {integer(run),      integer(static_cast<std::int64_t>(index)), d.simTimeS, d.wallS, integer(d.queued),
            integer(d.running)};
}

inline Row eventRow(std::int64_t run, std::size_t index, const sim::JobEvent& e)
{
    return {
        integer(run),  integer(static_cast<std::int64_t>(index)), integer(e.job), e.timeS, text(sim::toString(e.kind)),
        text(e.detail)};
}

inline Row segmentRow(std::int64_t run, std::size_t index, const sim::RateSegment& g)
{
    return {integer(run), integer(static_cast<std::int64_t>(index)), integer(g.job), g.startS, g.endS, g.rate,
            g.samplesPerS};
}

/** The rows of the plain gpus table (schemas 1-10) for a layout, in GPU order. */
inline std::vector<Row> gpuRows(std::int64_t run, const hardware::GpuLayout& layout)
{
    std::vector<Row> out;
    for (std::size_t g = 0; g < layout.gpuNode.size(); ++g) {
        const int node = layout.gpuNode[g];
        out.push_back({integer(run), integer(static_cast<std::int64_t>(g)), integer(node),
                       text(layout.nodeNames.at(static_cast<std::size_t>(node))), text(layout.gpuTypes.at(g))});
    }
    return out;
}

/** Readable form of a row for failure messages. */
inline std::string show(const Row& row)
{
    std::string out = "(";
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i)
            out += ", ";
        if (std::holds_alternative<std::monostate>(row[i]))
            out += "NULL";
        else if (const auto* v = std::get_if<std::int64_t>(&row[i]))
            out += std::to_string(*v);
        else if (const auto* d = std::get_if<double>(&row[i]))
            out += std::to_string(*d);
        else
            out += "'" + std::get<std::string>(row[i]) + "'";
    }
    return out + ")";
}

/** Compares two row lists exactly (doubles bit for bit: the tables return the stored values). */
inline bool sameRows(const std::vector<Row>& got, const std::vector<Row>& want, std::string& why)
{
    if (got.size() != want.size()) {
        why = "got " + std::to_string(got.size()) + " rows, expected " + std::to_string(want.size());
        return false;
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i]) {
            why = "row " + std::to_string(i) + ": got " + show(got[i]) + ", expected " + show(want[i]);
            return false;
        }
    }
    return true;
}

#define COMPARE_ROWS(got, want)                                                                                        \
    do {                                                                                                               \
        std::string why_;                                                                                              \
        QVERIFY2(sameRows(got, want, why_), why_.c_str());                                                             \
    } while (false)

inline store::RunInfo syntheticInfo(const std::string& policy)
{
    return test::twoNodeRunInfo("synthetic", R"({"name":"synthetic"})", policy, 11);
}

/**
 * A run with more than one chunk of every record kind: jobs finish in a shuffled order (so job_chunks holds them out
 * of job_index order), some never start, some never finish, and the labels include quotes and non-ASCII text.
 */
inline sim::RunResult syntheticRun(std::size_t jobs)
{
    sim::RunResult r = test::twoNodeRun("fifo", 11);
    const char* models[] = {"gpt2-124m", "bert-large", "gpt2-350m", "resnet50", "llama-7b"};
    for (std::size_t i = 0; i < jobs; ++i) {
        sim::JobRecord j;
        j.id = i == 3 ? "job \"3\", ünïcödé" : "j" + std::to_string(i);
        j.model = models[i % 5];
        j.user = "u" + std::to_string(i % 7);
        j.arrivalS = static_cast<double>(i) * 10.25;
        const bool started = i % 50 != 7;
        const bool finished = started && i % 97 != 5;
        j.startS = started ? j.arrivalS + static_cast<double>(i % 13) : -1;
        j.endS = finished ? j.startS + 100.5 + static_cast<double>(i % 17) : -1;
        j.gpus = started ? 1 << (i % 3) : 0;
        j.gpuType = !started ? "" : i % 4 == 1 ? "mixed" : i % 2 ? "rtx2080ti" : "a100-40gb-sxm";
        j.restarts = static_cast<int>(i % 4);
        j.gpuSeconds = static_cast<double>(i) * 1.5;
        j.costUsd = static_cast<double>(i) * 0.001;
        j.idealS = 80.0 + static_cast<double>(i % 7) / 3;
        j.nodes = started ? 1 + static_cast<int>(i % 2) : 0;
        j.demand = 1 << (i % 3);
        j.excludedFromAverage = i % 11 == 0;
        r.jobs.push_back(j);
        if (started) {
            const double end = finished ? j.endS : j.startS + 50;
            const int gpu = static_cast<int>(i % 6);
            if (i % 5 == 0) { // preempted once: two stretches
                r.intervals.push_back({static_cast<int>(i), gpu, j.startS, (j.startS + end) / 2});
                r.intervals.push_back({static_cast<int>(i), (gpu + 1) % 6, (j.startS + end) / 2, end});
            } else {
                r.intervals.push_back({static_cast<int>(i), gpu, j.startS, end});
            }
        }
    }
    for (std::size_t i = 0; i < jobs / 2 + 700; ++i) {
        const int a = static_cast<int>(i % 5), b = static_cast<int>(i % 3);
        r.utilization.push_back({static_cast<double>(i) * 2.5, a + b, {a, b}});
        r.decisions.push_back({static_cast<double>(i) * 0.5, static_cast<double>(i % 9) * 1e-6 + 1e-7,
                               static_cast<int>(i % 11), static_cast<int>(i % 13)});
        const auto kind = static_cast<sim::JobEventKind>(i % 4);
        r.jobEvents.push_back({static_cast<double>(i) * 0.75, static_cast<int>(i % 97 % jobs), kind,
                               kind == sim::JobEventKind::Drop      ? "deadline " + std::to_string(i % 3)
                               : kind == sim::JobEventKind::Profile ? std::to_string(i % 50)
                                                                    : std::string()});
        // One rate segment per job, so the big run's span several chunks; every third without samples/s.
        if (i < jobs)
            r.rateSegments.push_back({static_cast<int>(i), static_cast<double>(i) * 1.5,
                                      static_cast<double>(i) * 1.5 + 100, 0.5 + static_cast<double>(i % 7),
                                      i % 3 ? 2.0 * static_cast<double>(i) : 0.0});
    }
    r.makespanS = r.jobs.back().arrivalS + 200;
    r.wallS = 0.05;
    return r;
}

/** Stores `full` through syncs in which jobs finish in a shuffled order; returns the run id. */
inline std::int64_t storeIncrementally(store::RunStore& s, const store::RunInfo& info, const sim::RunResult& full)
{
    const std::size_t n = full.jobs.size();
    std::vector<std::size_t> finishRank(n);
    for (std::size_t i = 0; i < n; ++i)
        finishRank[i] = i;
    std::mt19937 rng(5);
    std::shuffle(finishRank.begin(), finishRank.end(), rng);
    auto writer = s.beginRun(info);
    for (const std::size_t cut : {n / 5, n / 2, 3 * n / 4}) {
        sim::RunResult partial = full;
        for (std::size_t i = 0; i < n; ++i) {
            if (finishRank[i] >= cut)
                partial.jobs[i].endS = -1;
        }
        partial.intervals.resize(full.intervals.size() * cut / n);
        partial.utilization.resize(full.utilization.size() * cut / n);
        partial.decisions.resize(full.decisions.size() * cut / n);
        partial.jobEvents.resize(full.jobEvents.size() * cut / n);
        writer.sync(partial);
    }
    writer.finish(full, store::RunStatus::Completed);
    return writer.runId();
}

inline std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string blobOfInt32(const std::vector<std::int32_t>& values)
{
    std::string out(values.size() * 4, '\0');
    for (std::size_t i = 0; i < values.size(); ++i) {
        const auto v = static_cast<std::uint32_t>(values[i]);
        for (int b = 0; b < 4; ++b)
            out[i * 4 + static_cast<std::size_t>(b)] = static_cast<char>((v >> (8 * b)) & 0xff);
    }
    return out;
}

} // namespace orrery::test::sqlitetest

#include "store/run_merge.h"

#include "io/error.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "store/timestamp.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

namespace orrery::store {

namespace {

// Tables keyed by run_id whose rows travel with a run, besides `runs` itself and `run_sources`.
constexpr const char* kRunTables[] = {"run_gpu_types",      "gpu_chunks",      "job_chunks",   "interval_chunks",
                                      "utilization_chunks", "decision_chunks", "event_chunks", "rate_segment_chunks",
                                      "job_extras",         "run_series",      "sweep_points"};

// Serving runs (schema 10) travel with these rows, in this order (a replica's group first).
constexpr const char* kServingTables[] = {"serving_groups", "serving_replicas", "serving_models",
                                          "serving_latency_cdf"};

std::vector<std::string> columnsOf(Connection& db, const std::string& table)
{
    std::vector<std::string> out;
    Statement s(db, fmt::format("SELECT name FROM pragma_table_info('{}') ORDER BY cid", table));
    while (s.step())
        out.push_back(s.columnText(0));
    return out;
}

std::string joined(const std::vector<std::string>& columns, std::size_t from = 0)
{
    std::string out;
    for (std::size_t i = from; i < columns.size(); ++i)
        out += (out.empty() ? "" : ", ") + columns[i];
    return out;
}

std::string placeholders(std::size_t n, std::size_t first = 1)
{
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += fmt::format("{}?{}", i ? ", " : "", first + i);
    return out;
}

std::string absolute(const std::string& path)
{
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

/** Copies one source's runs inside the caller's transaction on `dest`. */
void mergeOne(Connection& dest, RunStore& src, MergeReport::Source& report)
{
    Connection& in = src.connection();
    // The destination's columns name what is copied; the source has the same schema (checked when opened).
    std::vector<std::string> runCols;
    for (const auto& c : columnsOf(dest, "runs"))
        if (c != "id" && c != "scenario_id")
            runCols.push_back(c);
    Statement readRuns(in, fmt::format("SELECT id, scenario_id, {} FROM runs ORDER BY id", joined(runCols)));
    Statement known(dest, "SELECT 1 FROM runs WHERE uid = ?1");
    Statement readScenario(in, "SELECT name, content_hash, json, created_at FROM scenarios WHERE id = ?1");
    Statement findScenario(dest, "SELECT id FROM scenarios WHERE content_hash = ?1 AND json = ?2");
    Statement insertScenario(dest,
                             "INSERT INTO scenarios (name, content_hash, json, created_at) VALUES (?1, ?2, ?3, ?4)");
    Statement insertRun(dest, fmt::format("INSERT INTO runs (scenario_id, {}) VALUES (?1, {})", joined(runCols),
                                          placeholders(runCols.size(), 2)));
    std::size_t statusCol = 0, errorCol = 0, uidCol = 0;
    for (std::size_t i = 0; i < runCols.size(); ++i) {
        if (runCols[i] == "status")
            statusCol = i;
        if (runCols[i] == "error")
            errorCol = i;
        if (runCols[i] == "uid")
            uidCol = i;
    }
    struct Copy
    {
        std::string table;
        std::unique_ptr<Statement> read, write;
        std::size_t columns;
    };
    std::vector<Copy> copies;
    for (const char* table : kRunTables) {
        std::vector<std::string> cols;
        for (const auto& c : columnsOf(dest, table))
            if (c != "run_id")
                cols.push_back(c);
        Copy c{table, nullptr, nullptr, cols.size()};
        c.read =
            std::make_unique<Statement>(in, fmt::format("SELECT {} FROM {} WHERE run_id = ?1", joined(cols), table));
        c.write = std::make_unique<Statement>(dest, fmt::format("INSERT INTO {} (run_id, {}) VALUES (?1, {})", table,
                                                                joined(cols), placeholders(cols.size(), 2)));
        copies.push_back(std::move(c));
    }
    Statement readSource(in, "SELECT source_file, source_run_id, merged_at FROM run_sources WHERE run_id = ?1");
    Statement writeSource(dest, "INSERT INTO run_sources (run_id, source_file, source_run_id, merged_at) "
                                "VALUES (?1, ?2, ?3, ?4)");
    const std::string sourceFile = absolute(src.path());
    const std::string now = utcNowIso();

    while (readRuns.step()) {
        const std::int64_t srcId = readRuns.columnInt(0);
        const std::string uid = readRuns.columnText(2 + static_cast<int>(uidCol));
        known.bind(1, uid);
        const bool present = known.step();
        known.reset();
        if (present) {
            ++report.alreadyPresent;
            continue;
        }
        // findRun() reports a run of a dead writer as failed/"interrupted"; one still `running` there is live.
        const auto record = src.findRun(srcId);
        const bool deadWriter = record && readRuns.columnText(2 + static_cast<int>(statusCol)) == "running" &&
                                record->status == RunStatus::Failed;
        if (record && record->status == RunStatus::Running) {
            ++report.stillRunning;
            continue;
        }
        readScenario.bind(1, readRuns.columnInt(1));
        if (!readScenario.step())
            throw Error(src.path(), "runs",
                        fmt::format("run {} names scenario {}, which is missing", srcId, readRuns.columnInt(1)));
        findScenario.bind(1, readScenario.columnText(1)).bind(2, readScenario.columnText(2));
        std::int64_t scenarioId = 0;
        if (findScenario.step()) {
            scenarioId = findScenario.columnInt(0);
        } else {
            insertScenario.bind(1, readScenario.columnText(0))
                .bind(2, readScenario.columnText(1))
                .bind(3, readScenario.columnText(2))
                .bind(4, readScenario.columnText(3));
            insertScenario.run();
            scenarioId = dest.lastInsertRowId();
        }
        findScenario.reset();
        readScenario.reset();

        insertRun.bind(1, scenarioId);
        for (std::size_t i = 0; i < runCols.size(); ++i) {
            const int at = static_cast<int>(i) + 2;
            if (deadWriter && i == statusCol)
                insertRun.bind(at, "failed");
            else if (deadWriter && i == errorCol)
                insertRun.bind(at, "interrupted");
            else
                insertRun.bindColumn(at, readRuns, 2 + static_cast<int>(i));
        }
        insertRun.run();
        const std::int64_t newId = dest.lastInsertRowId();
        for (auto& c : copies) {
            c.read->bind(1, srcId);
            while (c.read->step()) {
                c.write->bind(1, newId);
                for (std::size_t i = 0; i < c.columns; ++i)
                    c.write->bindColumn(static_cast<int>(i) + 2, *c.read, static_cast<int>(i));
                c.write->run();
            }
            c.read->reset();
        }
        readSource.bind(1, srcId);
        writeSource.bind(1, newId);
        if (readSource.step())
            writeSource.bindColumn(2, readSource, 0).bindColumn(3, readSource, 1).bindColumn(4, readSource, 2);
        else
            writeSource.bind(2, sourceFile).bind(3, srcId).bind(4, now);
        writeSource.run();
        readSource.reset();
        ++report.copied;
    }
    // The sweeps' descriptions (axis order, spec), so that `sweep results` reads the merged store as it did a shard.
    Statement readSweeps(in, "SELECT name, axes, spec, created_at FROM sweeps");
    Statement writeSweep(dest, "INSERT OR IGNORE INTO sweeps (name, axes, spec, created_at) VALUES (?1, ?2, ?3, ?4)");
    while (readSweeps.step()) {
        for (int i = 0; i < 4; ++i)
            writeSweep.bindColumn(i + 1, readSweeps, i);
        writeSweep.run();
    }
}

/** Copies one source's serving runs (by uid, like runs) inside the caller's transaction on `dest`. */
void mergeServing(Connection& dest, Connection& in, MergeReport::Source& report)
{
    std::vector<std::string> runCols;
    for (const auto& c : columnsOf(dest, "serving_runs"))
        if (c != "id")
            runCols.push_back(c);
    const auto uidCol = static_cast<int>(std::find(runCols.begin(), runCols.end(), "uid") - runCols.begin());
    Statement readRuns(in, fmt::format("SELECT id, {} FROM serving_runs ORDER BY id", joined(runCols)));
    Statement known(dest, "SELECT 1 FROM serving_runs WHERE uid = ?1");
    Statement insertRun(
        dest, fmt::format("INSERT INTO serving_runs ({}) VALUES ({})", joined(runCols), placeholders(runCols.size())));
    struct Copy
    {
        std::unique_ptr<Statement> read, write;
        std::size_t columns;
    };
    std::vector<Copy> copies;
    for (const char* table : kServingTables) {
        std::vector<std::string> cols;
        for (const auto& c : columnsOf(dest, table)) // generated columns (attainment) are not listed
            if (c != "run_id")
                cols.push_back(c);
        copies.push_back(
            {std::make_unique<Statement>(in, fmt::format("SELECT {} FROM {} WHERE run_id = ?1", joined(cols), table)),
             std::make_unique<Statement>(dest, fmt::format("INSERT INTO {} (run_id, {}) VALUES (?1, {})", table,
                                                           joined(cols), placeholders(cols.size(), 2))),
             cols.size()});
    }
    while (readRuns.step()) {
        known.bind(1, readRuns.columnText(1 + uidCol));
        const bool present = known.step();
        known.reset();
        if (present) {
            ++report.servingAlreadyPresent;
            continue;
        }
        for (std::size_t i = 0; i < runCols.size(); ++i)
            insertRun.bindColumn(static_cast<int>(i) + 1, readRuns, static_cast<int>(i) + 1);
        insertRun.run();
        const std::int64_t newId = dest.lastInsertRowId();
        for (auto& c : copies) {
            c.read->bind(1, readRuns.columnInt(0));
            while (c.read->step()) {
                c.write->bind(1, newId);
                for (std::size_t i = 0; i < c.columns; ++i)
                    c.write->bindColumn(static_cast<int>(i) + 2, *c.read, static_cast<int>(i));
                c.write->run();
            }
            c.read->reset();
        }
        ++report.servingCopied;
    }
}

} // namespace

int MergeReport::servingCopied() const
{
    int n = 0;
    for (const auto& s : sources)
        n += s.servingCopied;
    return n;
}

int MergeReport::copied() const
{
    int n = 0;
    for (const auto& s : sources)
        n += s.copied;
    return n;
}

int MergeReport::alreadyPresent() const
{
    int n = 0;
    for (const auto& s : sources)
        n += s.alreadyPresent;
    return n;
}

int MergeReport::stillRunning() const
{
    int n = 0;
    for (const auto& s : sources)
        n += s.stillRunning;
    return n;
}

MergeReport mergeRunStores(RunStore& destination, const std::vector<std::string>& sources)
{
    namespace fs = std::filesystem;
    // Every source is opened (and so checked) before anything is written, then closed again: a merge of a
    // thousand shards would otherwise hold a few thousand file descriptors.
    RunStore::Options readOnly;
    readOnly.access = RunStore::Access::ReadOnly;
    for (const auto& path : sources) {
        std::error_code ec;
        if (!fs::exists(path, ec))
            throw Error(path, "", "no such run store");
        if (fs::equivalent(path, destination.path(), ec))
            throw Error(path, "", "is the destination of the merge; a store cannot be merged into itself");
        RunStore check(path, readOnly);
    }
    MergeReport report;
    Connection& dest = destination.connection();
    Transaction tx(dest);
    for (const auto& path : sources) {
        RunStore store(path, readOnly);
        report.sources.push_back({store.path()});
        try {
            mergeOne(dest, store, report.sources.back());
            mergeServing(dest, store.connection(), report.sources.back());
        } catch (const DatabaseError& e) {
            // A read error names the source: the destination is rolled back with the transaction.
            throw Error(store.path(), "", fmt::format("cannot be merged: {}", e.what()));
        }
    }
    tx.commit();
    return report;
}

} // namespace orrery::store

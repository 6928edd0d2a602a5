// Run history from the SQLite store: list, filter by policy and status, load
// one run, load several for comparison, reuse already loaded runs, report
// a file that is not a store, and browse without ever writing to the file.
#include "async/job_runner.h"
#include "hardware/gpu_layout.h"
#include "io/scenario.h"
#include "models/stored_run_model.h"
#include "results/run_library.h"
#include "runs/store_browser.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "synthetic_run.h"
#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

using namespace orrery;
using namespace orrery::gui;

class TestStoreBrowser : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("runs.sqlite"));
        const io::Scenario scenario = io::defaultScenario();
        store::RunStore db(m_path.toStdString());
        const std::string json = io::scenarioToJson(scenario).dump();
        int n = 0;
        for (const char* policy : {"fifo", "sjf", "fifo"}) {
            auto run =
                gui::test::syntheticRun(scenario.cluster, 40 + 10 * n, 11 + static_cast<std::uint64_t>(n), policy);
            store::RunInfo info;
            info.scenarioName = scenario.name;
            info.scenarioJson = json;
            info.policy = policy;
            info.seed = run->seed;
            info.gpuTypes = run->gpuTypes;
            info.layout = hardware::gpuLayoutOf(scenario.cluster);
            m_ids.push_back(db.storeRun(info, *run));
            ++n;
        }
    }

    void listsAndFilters()
    {
        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, m_path);
        QAbstractItemModelTester tester(browser.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE_WITH_TIMEOUT(browser.model()->rowCount(), 3, 5000);
        QSignalSpy listed(&browser, &StoreBrowser::listed);
        browser.setPolicyFilter(QStringLiteral("sjf"));
        QVERIFY(listed.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(browser.model()->rowCount(), 1);
        QCOMPARE(browser.model()->index(0, StoredRunModel::Policy).data().toString(), QStringLiteral("sjf"));
        QCOMPARE(browser.model()->index(0, StoredRunModel::Status).data().toString(), QStringLiteral("completed"));
        browser.setPolicyFilter(QString());
        QVERIFY(listed.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(browser.model()->rowCount(), 3);
        runner.waitForDone();
    }

    void loadOneThenSeveralToCompare()
    {
        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, m_path);
        QSignalSpy loaded(&browser, &StoreBrowser::loaded);
        browser.load({m_ids[1]});
        QVERIFY(loaded.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(runs.runs().size(), 1);
        const RunEntry* one = runs.current();
        QVERIFY(one);
        QCOMPARE(one->storeId, m_ids[1]);
        QVERIFY(one->cluster); // rebuilt from the stored scenario, for the Gantt rows
        QCOMPARE(one->cluster->totalGpus(), io::defaultScenario().cluster.totalGpus());
        QCOMPARE(static_cast<int>(one->result->jobs.size()), 50);
        QCOMPARE(QString::fromStdString(one->result->policy), QStringLiteral("sjf"));

        // Selecting all three rows and loading compares them; the one already loaded is reused.
        QTRY_COMPARE_WITH_TIMEOUT(browser.model()->rowCount(), 3, 5000);
        browser.view()->selectAll();
        browser.loadSelected();
        QVERIFY(loaded.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(runs.runs().size(), 3);
        QCOMPARE(runs.compared().size(), 3);
        QCOMPARE(runs.comparedRuns().size(), 3);
        runner.waitForDone();
    }

    /**
     * Two stores hold runs with the same ids. After switching the store, loading id 1 must load the
     * new store's run 1, not reuse the one loaded from the first store (issue 19).
     */
    void switchingStoresKeysRunsByStore()
    {
        const QString other = m_dir.filePath(QStringLiteral("other.sqlite"));
        std::int64_t otherId = 0;
        {
            const io::Scenario scenario = io::defaultScenario();
            store::RunStore db(other.toStdString());
            auto run = gui::test::syntheticRun(scenario.cluster, 17, 99, "sjf");
            store::RunInfo info;
            info.scenarioName = "other";
            info.scenarioJson = io::scenarioToJson(scenario).dump();
            info.policy = "sjf";
            info.seed = run->seed;
            info.gpuTypes = run->gpuTypes;
            info.layout = hardware::gpuLayoutOf(scenario.cluster);
            otherId = db.storeRun(info, *run);
        }
        QCOMPARE(otherId, m_ids[0]); // the same id in both files

        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, m_path);
        QSignalSpy loaded(&browser, &StoreBrowser::loaded);
        browser.load({m_ids[0]});
        QVERIFY(loaded.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(runs.runs().size(), 1);
        QCOMPARE(static_cast<int>(runs.current()->result->jobs.size()), 40);
        QCOMPARE(runs.current()->storePath, m_path);

        browser.setDatabasePath(other);
        browser.load({otherId});
        QVERIFY(loaded.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(runs.runs().size(), 2);
        const RunEntry* current = runs.current();
        QVERIFY(current);
        QCOMPARE(current->storePath, other);
        QCOMPARE(current->scenarioName, QStringLiteral("other"));
        QCOMPARE(static_cast<int>(current->result->jobs.size()), 17);

        // Back to the first store: its run is reused, not loaded a second time.
        browser.setDatabasePath(m_path);
        browser.load({m_ids[0]});
        QVERIFY(loaded.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(runs.runs().size(), 2);
        QCOMPARE(static_cast<int>(runs.current()->result->jobs.size()), 40);
        runner.waitForDone();
    }

    void notAStoreIsReported()
    {
        const QString bad = m_dir.filePath(QStringLiteral("notes.sqlite"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are my notes, not a database\n");
        f.close();
        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, m_path);
        QSignalSpy failed(&browser, &StoreBrowser::failed);
        browser.setDatabasePath(bad);
        QVERIFY(failed.wait(orrery::test::kWorkerWaitMs));
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("notes.sqlite")));
        QCOMPARE(browser.model()->rowCount(), 0);
        runner.waitForDone();
    }

    /**
     * Browsing opens the store read-only, as the CLI's read commands do: the run of a writer that no
     * longer exists is shown failed but stays `running` in the file (a read-write open would mark it),
     * and listing or loading changes no byte. Permissions cannot prove this when tests run as root.
     */
    void browsingNeverWrites()
    {
        const QString copy = m_dir.filePath(QStringLiteral("dead-writer.sqlite"));
        QVERIFY(QFile::copy(m_path, copy));
        {
            store::Connection c(copy.toStdString(), store::Connection::Mode::ReadWrite);
            // As a writer killed mid-run leaves it (pids never reach this value on Linux).
            c.exec(fmt::format("UPDATE runs SET status = 'running', writer_pid = 2147483000, finished_at = NULL "
                               "WHERE id = {}",
                               m_ids[1]));
            c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        const QByteArray before = fileBytes(copy);
        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, copy);
        QTRY_COMPARE_WITH_TIMEOUT(browser.model()->rowCount(), 3, 5000);
        int failedRow = -1;
        for (int row = 0; row < 3; ++row)
            if (browser.model()->index(row, StoredRunModel::Id).data().toLongLong() == m_ids[1])
                failedRow = row;
        QVERIFY(failedRow >= 0);
        QCOMPARE(browser.model()->index(failedRow, StoredRunModel::Status).data().toString(), QStringLiteral("failed"));
        QSignalSpy loaded(&browser, &StoreBrowser::loaded);
        browser.load({m_ids[0], m_ids[1]});
        QVERIFY(loaded.wait(orrery::test::kWorkerWaitMs));
        QCOMPARE(runs.runs().size(), 2);
        runner.waitForDone();

        store::Connection c(copy.toStdString(), store::Connection::Mode::ReadOnly);
        QCOMPARE(c.queryInt(fmt::format("SELECT status = 'running' FROM runs WHERE id = {}", m_ids[1])), 1);
        QVERIFY(fileBytes(copy) == before);
    }

    /** A damaged store, refused for writing, can still be browsed for what is readable. */
    void damagedStoreIsBrowsable()
    {
        const QString copy = m_dir.filePath(QStringLiteral("damaged.sqlite"));
        QVERIFY(QFile::copy(m_path, copy));
        std::int64_t pageSize = 0, root = 0;
        {
            store::Connection c(copy.toStdString(), store::Connection::Mode::ReadWrite);
            c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
            pageSize = c.queryInt("PRAGMA page_size");
            root = c.queryInt("SELECT rootpage FROM sqlite_schema WHERE name = 'job_chunks'");
        }
        QVERIFY(root > 1);
        QByteArray bytes = fileBytes(copy);
        // The job chunks' b-tree header: an impossible cell count and content offset, as a flipped sector gives.
        const auto at = static_cast<qsizetype>((root - 1) * pageSize);
        QVERIFY(at + 8 < bytes.size());
        for (qsizetype i = at + 3; i < at + 7; ++i)
            bytes[i] = static_cast<char>(0xff);
        QFile f(copy);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
        f.close();
        QVERIFY_THROWS_EXCEPTION(std::exception, store::RunStore(copy.toStdString()));

        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, copy);
        QTRY_COMPARE_WITH_TIMEOUT(browser.model()->rowCount(), 3, 5000);
        runner.waitForDone();
        QVERIFY(fileBytes(copy) == bytes);
    }

    /** A store of an older schema is migrated once, then read (the GUI has no `simulate --db` to point to). */
    void olderSchemaIsUpgradedThenBrowsed()
    {
        const QString old = m_dir.filePath(QStringLiteral("v1.sqlite"));
        {
            store::Connection db(old.toStdString(), store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 1);
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "avg_jct_s) VALUES (1, 'fifo', 1, '0.0.1', 't', 'completed', 4, 12.5)");
        }
        RunLibrary runs;
        JobRunner runner;
        StoreBrowser browser(&runs, &runner, old);
        QTRY_COMPARE_WITH_TIMEOUT(browser.model()->rowCount(), 1, 5000);
        QCOMPARE(browser.model()->index(0, StoredRunModel::Scenario).data().toString(), QStringLiteral("old"));
        runner.waitForDone();
        store::Connection c(old.toStdString(), store::Connection::Mode::ReadOnly);
        QCOMPARE(c.queryInt("PRAGMA user_version"), std::int64_t(store::schemaVersion()));
    }

private:
    static QByteArray fileBytes(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    QTemporaryDir m_dir;
    QString m_path;
    std::vector<std::int64_t> m_ids;
};

QTEST_MAIN(TestStoreBrowser)
#include "test_store_browser.moc"

// Run history from the SQLite store: list, filter by policy and status, load
// one run, load several for comparison, reuse already loaded runs, and report
// a file that is not a store.
#include "async/job_runner.h"
#include "hardware/gpu_layout.h"
#include "io/scenario.h"
#include "models/stored_run_model.h"
#include "results/run_library.h"
#include "runs/store_browser.h"
#include "store/run_store.h"
#include "synthetic_run.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

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
            auto run = test::syntheticRun(scenario.cluster, 40 + 10 * n, 11 + static_cast<std::uint64_t>(n), policy);
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
        QVERIFY(listed.wait(5000));
        QCOMPARE(browser.model()->rowCount(), 1);
        QCOMPARE(browser.model()->index(0, StoredRunModel::Policy).data().toString(), QStringLiteral("sjf"));
        QCOMPARE(browser.model()->index(0, StoredRunModel::Status).data().toString(), QStringLiteral("completed"));
        browser.setPolicyFilter(QString());
        QVERIFY(listed.wait(5000));
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
        QVERIFY(loaded.wait(5000));
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
        QVERIFY(loaded.wait(5000));
        QCOMPARE(runs.runs().size(), 3);
        QCOMPARE(runs.compared().size(), 3);
        QCOMPARE(runs.comparedRuns().size(), 3);
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
        QVERIFY(failed.wait(5000));
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("notes.sqlite")));
        QCOMPARE(browser.model()->rowCount(), 0);
        runner.waitForDone();
    }

private:
    QTemporaryDir m_dir;
    QString m_path;
    std::vector<std::int64_t> m_ids;
};

QTEST_MAIN(TestStoreBrowser)
#include "test_store_browser.moc"

// The sweep builder (issue 18, "build a spec (axes from the current scenario)") and the Slurm export from the GUI:
// the builder is seeded from the scenario (its policies checked, its seed, its groups and the catalog's types), its
// point count and CPU estimate follow the form, its errors name the axis and value as the CLI's do, what it saves is
// what core's reader reads and equals the hand-written specs in data/sweeps/ (a grid and explicit points), Run
// Locally stores the points through the Sweeps tab's run path, and the Slurm submission it exports is the CLI's
// `sweep submit --no-submit` output byte for byte.
#include "async/job_runner.h"
#include "io/scenario.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "store/sweep_records.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"
#include "sweeps/cluster_edits_section.h"
#include "sweeps/policy_axis_section.h"
#include "sweeps/seed_axis_section.h"
#include "sweeps/sweep_builder_dialog.h"
#include "sweeps/sweep_draft.h"
#include "sweeps/sweep_points_section.h"
#include "sweeps/sweep_preview.h"
#include "sweeps/sweep_run_controller.h"
#include "sweeps/sweeps_panel.h"
#include "sweeps/workload_edits_section.h"
#include "test_support.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace orrery;
using namespace orrery::gui;
using nlohmann::json;

namespace {

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void check(QListWidget* list, const std::vector<std::string>& names)
{
    for (int i = 0; i < list->count(); ++i) {
        const auto name = list->item(i)->data(Qt::UserRole).toString().toStdString();
        const bool on = std::find(names.begin(), names.end(), name) != names.end();
        list->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
}

/** Everything a spec says, compared field by field (not where it was read from). */
void compareSpecs(const sweep::SweepSpec& a, const sweep::SweepSpec& b)
{
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.description, b.description);
    QCOMPARE(a.scenario, b.scenario);
    QCOMPARE(a.explicitPoints, b.explicitPoints);
    QCOMPARE(a.axes.size(), b.axes.size());
    for (std::size_t i = 0; i < a.axes.size(); ++i) {
        const auto &x = a.axes[i], &y = b.axes[i];
        QVERIFY(x.kind == y.kind);
        QCOMPARE(x.name, y.name);
        QCOMPARE(x.group, y.group);
        QCOMPARE(x.gpu, y.gpu);
        QCOMPARE(x.gpusPerNode, y.gpusPerNode);
        QCOMPARE(x.groupName, y.groupName);
        QVERIFY2(json(x.values) == json(y.values), (json(x.values).dump() + " vs " + json(y.values).dump()).c_str());
    }
    QCOMPARE(a.points.size(), b.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i)
        QVERIFY(json(a.points[i]) == json(b.points[i]));
    QVERIFY2(a.document == b.document, (a.document.dump() + "\n vs \n" + b.document.dump()).c_str());
    // And the same runs: equal point keys in the same order.
    const auto pa = sweep::resolveSweep(a), pb = sweep::resolveSweep(b);
    QCOMPARE(pa.points.size(), pb.points.size());
    for (std::size_t i = 0; i < pa.points.size(); ++i)
        QCOMPARE(pa.points[i].key, pb.points[i].key);
}

} // namespace

class TestSweepBuilder : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.path().toUtf8());
        qputenv("XDG_CONFIG_HOME", m_dir.path().toUtf8());
        QCoreApplication::setOrganizationName(QStringLiteral("OrreryTest"));
    }

    void seededFromTheScenarioWithALiveCountAndEstimate()
    {
        JobRunner runner;
        SweepBuilderDialog b(io::defaultScenario(), QStringLiteral("default"), &runner);
        QSignalSpy preview(&b, &SweepBuilderDialog::previewUpdated);
        QSignalSpy estimate(&b, &SweepBuilderDialog::estimateUpdated);
        // The scenario's policies (fifo, sjf) are checked and its seed (1) is the seed axis: 2 points.
        const auto d = b.draft();
        QCOMPARE(d.policies, (std::vector<std::string>{"fifo", "sjf"}));
        QCOMPARE(d.seeds, std::string("1"));
        QCOMPARE(d.scenario, std::string("default"));
        QTRY_COMPARE_WITH_TIMEOUT(b.pointCount(), 2, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(b.estimatedCpuS().has_value(), 30000);
        QVERIFY(*b.estimatedCpuS() > 0);
        const double first = *b.estimatedCpuS();
        QVERIFY2(b.previewLabel()->text().contains(QStringLiteral("Estimated CPU time")),
                 qPrintable(b.previewLabel()->text()));
        // A change of the form moves the count: seeds 1-3 and a scaled group of three sizes, 2 x 3 x 3.
        b.seedsEdit()->setText(QStringLiteral("1-3"));
        b.addClusterEdit(sweep::AxisKind::ScaleNodes, QStringLiteral("rtx"), QStringLiteral("0.5, 1, 2"));
        QTRY_COMPARE_WITH_TIMEOUT(b.pointCount(), 18, 20000);
        QVERIFY(b.errorText().isEmpty());
        QVERIFY2(b.previewLabel()->text().startsWith(QStringLiteral("18 points over 9 scenarios")),
                 qPrintable(b.previewLabel()->text()));
        // The estimate follows too (the first one's figure was for 2 points).
        // (It may have arrived already: an edit clears the estimate until the new one comes. Slow under load: the
        // sample simulates a point per policy on a worker at low priority.)
        QTRY_VERIFY_WITH_TIMEOUT(b.estimatedCpuS() && *b.estimatedCpuS() != first, 120000);
        runner.waitForDone();
    }

    void errorsNameTheAxisAndTheValue()
    {
        JobRunner runner;
        SweepBuilderDialog b(io::defaultScenario(), QStringLiteral("default"), &runner);
        // The form's own: a seed that is not a number, a policy parameter the registry does not know.
        b.seedsEdit()->setText(QStringLiteral("1, x"));
        b.updatePreview();
        QVERIFY2(b.errorText().contains(QStringLiteral("seeds: axis \"seed\" = \"x\": expected an integer")),
                 qPrintable(b.errorText()));
        QCOMPARE(b.pointCount(), -1);
        b.seedsEdit()->setText(QStringLiteral("1"));
        b.variantsEdit()->setPlainText(QStringLiteral("sjf\ntiresias:nonesuch=1"));
        b.updatePreview();
        QVERIFY2(b.errorText().contains(QStringLiteral("policy variants, line 2")) &&
                     b.errorText().contains(QStringLiteral("axis \"policy\" = \"tiresias:nonesuch=1\"")) &&
                     b.errorText().contains(QStringLiteral("nonesuch")),
                 qPrintable(b.errorText()));
        b.variantsEdit()->clear();
        // Core's, from resolving against the base scenario: the same text as orrery-cli's.
        b.addClusterEdit(sweep::AxisKind::GpuType, QStringLiteral("rtx"), QStringLiteral("v100-32gb, h200x"));
        b.updatePreview();
        QTRY_VERIFY_WITH_TIMEOUT(!b.errorText().isEmpty(), 20000);
        QVERIFY2(b.errorText().contains(QStringLiteral("axes[0].values[1]: axis \"gpu_type:rtx\" = \"h200x\": "
                                                       "default.json: cluster.nodes[0].gpu: unknown GPU type")),
                 qPrintable(b.errorText()));
        QCOMPARE(b.pointCount(), -1);
        QVERIFY(b.previewLabel()->text() == b.errorText());
        runner.waitForDone();
    }

    void gridSavedIsReadBackAndEqualsTheHandWrittenSpec()
    {
        JobRunner runner;
        SweepBuilderDialog b(io::defaultScenario(), QStringLiteral("default"), &runner);
        fillGrid(b);
        const QString path = m_dir.filePath(QStringLiteral("built-grid.json"));
        QString error;
        QVERIFY2(b.saveTo(path, &error), qPrintable(error));
        QCOMPARE(b.savedPath(), path);
        const auto built = b.spec();
        const auto read = sweep::loadSweepSpec(path.toStdString());
        compareSpecs(built, read);
        compareSpecs(read, sweep::loadSweepSpec(test::sourcePath("data/sweeps/rtx-scale-and-load.json")));
        QTRY_COMPARE_WITH_TIMEOUT(b.pointCount(), 144, 20000);
        runner.waitForDone();
    }

    void explicitPointsEqualTheHandWrittenSpec()
    {
        JobRunner runner;
        SweepBuilderDialog b(io::defaultScenario(), QStringLiteral("default"), &runner);
        b.nameEdit()->setText(QStringLiteral("a100-swap-points"));
        const auto hand = json::parse(readText(test::sourcePath("data/sweeps/a100-swap-points.json")));
        b.descriptionEdit()->setText(QString::fromStdString(hand["description"].get<std::string>()));
        b.seedsEdit()->clear();
        check(b.policyList(), {"fifo", "sjf"});
        b.addClusterEdit(sweep::AxisKind::GpuType, QStringLiteral("a100"),
                         QStringLiteral("a100-40gb-sxm, v100-32gb, h100-sxm"));
        b.jobLimitEdit()->setText(QStringLiteral("30"));
        b.setExplicitPoints(true);
        b.addPoint({{"gpu_type:a100", "a100-40gb-sxm"}, {"policy", "fifo"}});
        b.addPoint({{"gpu_type:a100", "v100-32gb"}, {"policy", "fifo"}});
        b.addPoint({{"gpu_type:a100", "h100-sxm"}, {"policy", "fifo"}, {"job_limit", "30"}});
        b.addPoint({{"gpu_type:a100", "h100-sxm"}, {"policy", "sjf"}, {"job_limit", "30"}});
        QCOMPARE(b.pointsTable()->rowCount(), 4);
        QCOMPARE(b.pointsTable()->columnCount(), 3);
        const auto doc = b.specDocument();
        QVERIFY2(doc == hand, (doc.dump(2) + "\nvs\n" + hand.dump(2)).c_str());
        const QString path = m_dir.filePath(QStringLiteral("built-points.json"));
        std::ofstream(path.toStdString()) << doc.dump(2);
        compareSpecs(sweep::loadSweepSpec(path.toStdString()),
                     sweep::loadSweepSpec(test::sourcePath("data/sweeps/a100-swap-points.json")));
        QTRY_COMPARE_WITH_TIMEOUT(b.pointCount(), 4, 20000);
        // Fill from Grid lists every combination: 3 types x 1 limit x 2 policies.
        b.fillPointsFromGrid();
        QCOMPARE(b.pointsTable()->rowCount(), 6);
        b.updatePreview();
        QTRY_COMPARE_WITH_TIMEOUT(b.pointCount(), 6, 20000);
        runner.waitForDone();
    }

    void eachSectionWritesItsPartOfTheDraft()
    {
        const io::Scenario base = io::defaultScenario();
        // Policies: the scenario's checked, a variant typed.
        PolicyAxisSection policies(base);
        QSignalSpy policiesChanged(&policies, &PolicyAxisSection::changed);
        check(policies.list(), {"sjf", "tiresias"});
        policies.variantsEdit()->setPlainText(QStringLiteral("tiresias:backfill_limit=0"));
        SweepDraft d;
        policies.writeTo(d);
        QCOMPARE(d.policies, (std::vector<std::string>{"sjf", "tiresias"}));
        QCOMPARE(d.policyVariants, std::string("tiresias:backfill_limit=0"));
        QVERIFY(policiesChanged.count() >= 2);

        SeedAxisSection seeds(base);
        seeds.writeTo(d);
        QCOMPARE(d.seeds, std::to_string(base.options.seed));
        seeds.edit()->setText(QStringLiteral("0-4"));
        seeds.writeTo(d);
        QCOMPARE(d.seeds, std::string("0-4"));

        WorkloadEditsSection workload;
        workload.arrivalEdit()->setText(QStringLiteral("0.5 2"));
        workload.jobLimitEdit()->setText(QStringLiteral("20"));
        workload.writeTo(d);
        QCOMPARE(d.arrivalRateScales, std::string("0.5 2"));
        QCOMPARE(d.jobLimits, std::string("20"));
        QCOMPARE(d.estimateErrors, std::string());

        // Cluster edits: a kind changed keeps its group; a removed row leaves the others in order.
        ClusterEditsSection edits(base.cluster);
        QSignalSpy editsChanged(&edits, &ClusterEditsSection::changed);
        edits.addEdit(sweep::AxisKind::ScaleNodes, QStringLiteral("rtx"), QStringLiteral("0.5, 1"));
        edits.addEdit(sweep::AxisKind::GpuType, QStringLiteral("a100"), QStringLiteral("v100-32gb"));
        edits.addEdit(sweep::AxisKind::AddNodes, QStringLiteral("h100-sxm"), QStringLiteral("0 1"), 4);
        edits.setKind(0, sweep::AxisKind::NodeCount);
        edits.removeEdit(1);
        QCOMPARE(edits.count(), 2);
        edits.writeTo(d);
        QCOMPARE(d.clusterEdits.size(), std::size_t(2));
        QVERIFY(d.clusterEdits[0].kind == sweep::AxisKind::NodeCount);
        QCOMPARE(d.clusterEdits[0].target, std::string("rtx"));
        QCOMPARE(d.clusterEdits[0].values, std::string("0.5, 1"));
        QVERIFY(d.clusterEdits[1].kind == sweep::AxisKind::AddNodes);
        QCOMPARE(d.clusterEdits[1].target, std::string("h100-sxm"));
        QCOMPARE(d.clusterEdits[1].gpusPerNode, 4);
        QVERIFY(editsChanged.count() >= 5);

        // Points: the grid writes none; explicit points are the rows over the columns given.
        SweepPointsSection points;
        QSignalSpy toggled(&points, &SweepPointsSection::explicitToggled);
        points.writeTo(d);
        QVERIFY(!d.explicitPoints);
        QVERIFY(!points.table()->isEnabled());
        points.setExplicit(true);
        QCOMPARE(toggled.count(), 1);
        QVERIFY(points.table()->isEnabled());
        SweepDraft grid;
        grid.policies = {"fifo", "sjf"};
        grid.seeds = "1-3";
        const auto axes = draftAxes(grid);
        points.syncColumns(axes);
        points.appendPoint({{"seed", "2"}});
        points.writeTo(d);
        QVERIFY(d.explicitPoints);
        QCOMPARE(d.points.size(), std::size_t(1));
        QVERIFY((d.points[0] == std::map<std::string, std::string>{{"seed", "2"}})); // policy left (base)
        QString error;
        QVERIFY(points.fillFromGrid(axes, &error));
        QCOMPARE(points.table()->rowCount(), 6);
        points.writeTo(d);
        QVERIFY((d.points[5] == std::map<std::string, std::string>{{"policy", "sjf"}, {"seed", "3"}}));
        grid.seeds = "0-999";
        QVERIFY(!points.fillFromGrid(draftAxes(grid), &error));
        QVERIFY2(error.contains(QStringLiteral("2000 points")) && error.contains(QStringLiteral("at most 1,000")),
                 qPrintable(error));
        QCOMPARE(points.table()->rowCount(), 6); // left as it was

        // The preview shows an error until reset, and no count meanwhile.
        JobRunner runner;
        SweepPreview preview(&runner);
        preview.showError(QStringLiteral("seeds: bad"));
        QCOMPARE(preview.errorText(), QStringLiteral("seeds: bad"));
        QCOMPARE(preview.text(), QStringLiteral("seeds: bad"));
        QCOMPARE(preview.pointCount(), -1);
        preview.reset();
        QVERIFY(preview.errorText().isEmpty());
    }

    void runLocallyStoresThePointsThroughTheSweepsTab()
    {
        JobRunner runner;
        const QString db = m_dir.filePath(QStringLiteral("builder-run.sqlite"));
        SweepsPanel panel(&runner, db);
        auto* b = panel.openBuilder(io::defaultScenario(), QStringLiteral("default"));
        b->nameEdit()->setText(QStringLiteral("built-and-run"));
        b->seedsEdit()->setText(QStringLiteral("0, 1"));
        b->jobLimitEdit()->setText(QStringLiteral("12"));
        // The handler asks to confirm; the test runs the same path without the dialog.
        b->setRunHandler(
            [&panel](const sweep::SweepSpec& spec, const QString& label) { panel.runSpec(spec, label, false); });
        QSignalSpy finished(panel.runController(), &SweepRunController::finished);
        b->runLocally();
        QVERIFY(finished.wait(test::kWorkerWaitMs));
        QCOMPARE(panel.runController()->lastOutcome().ran, std::size_t{4});
        store::RunStore s(db.toStdString());
        QCOMPARE(store::completedPointKeys(s.connection(), "built-and-run").size(), std::size_t{4});
        // Stored with the spec the builder made.
        store::Statement q(s.connection(), "SELECT spec FROM sweeps WHERE name = 'built-and-run'");
        QVERIFY(q.step());
        QVERIFY(json::parse(q.columnText(0)) == b->specDocument());
        b->close();
        runner.waitForDone();
    }

    void slurmExportEqualsTheCliOutput()
    {
        JobRunner runner;
        SweepsPanel panel(&runner, m_dir.filePath(QStringLiteral("unused.sqlite")));
        auto* b = panel.openBuilder(io::defaultScenario(), QStringLiteral("default"));
        fillGrid(*b);
        const QString specPath = m_dir.filePath(QStringLiteral("slurm-spec.json"));
        QVERIFY(b->saveTo(specPath));
        const std::string dir = m_dir.filePath(QStringLiteral("submission")).toStdString();
        const auto cli = test::runCommand({test::cliPath(), "sweep", "submit", specPath.toStdString(), "--slurm",
                                           "--dir", dir, "--no-submit", "--partition", "gpu", "--time", "1:30:00",
                                           "--array-max", "4", "--points-per-task", "10", "--cpus-per-task", "2"});
        QVERIFY2(cli.exitCode == 0, cli.err.c_str());
        // The GUI writes into the same path (the CLI's output moved aside), so that the paths in the files agree.
        const std::string cliDir = dir + "-cli";
        std::filesystem::rename(dir, cliDir);
        sweep::SlurmSubmissionOptions options;
        options.dir = dir;
        options.cli = std::filesystem::canonical(test::cliPath()).string(); // what the CLI records: itself
        options.specFile = b->savedPath().toStdString();
        options.partition = "gpu";
        options.time = "1:30:00";
        options.arrayMax = 4;
        options.pointsPerTask = 10;
        options.cpusPerTask = 2;
        QSignalSpy exported(&panel, &SweepsPanel::slurmExported);
        QSignalSpy failed(&panel, &SweepsPanel::failed);
        panel.exportSlurm(b->spec(), options, false);
        QTRY_VERIFY_WITH_TIMEOUT(exported.count() + failed.count() > 0, 20000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
        QCOMPARE(exported.first().at(0).toString().toStdString(), dir);
        QVERIFY(exported.first().at(1).toString().contains(QStringLiteral("of 144 points")));
        for (const char* file : {"spec.json", "points.json", "sweep.sbatch"})
            QVERIFY2(readText(dir + "/" + file) == readText(cliDir + "/" + file), file);
        // submission.json: equal but for the time it was written.
        auto gui = json::parse(readText(dir + "/submission.json"));
        auto cliSubmission = json::parse(readText(cliDir + "/submission.json"));
        gui.erase("created_at");
        cliSubmission.erase("created_at");
        QVERIFY2(gui == cliSubmission, (gui.dump() + "\nvs\n" + cliSubmission.dump()).c_str());
        QCOMPARE(gui["tasks"].get<int>(), 15);
        for (const char* sub : {"shards", "logs", "status"})
            QVERIFY(std::filesystem::is_directory(dir + "/" + sub));
        QVERIFY(std::filesystem::status(dir + "/sweep.sbatch").permissions() ==
                std::filesystem::status(cliDir + "/sweep.sbatch").permissions());
        // A second export into the same directory is refused, as the CLI refuses it.
        panel.exportSlurm(b->spec(), options, false);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
        QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("already holds a submission")),
                 qPrintable(failed.first().at(0).toString()));
        b->close();
        runner.waitForDone();
    }

    void screenshot()
    {
        // docs/screenshots/sweep-builder.png when asked (scripts/screenshots sets ORRERY_SCREENSHOT_DIR).
        const QByteArray out = qgetenv("ORRERY_SCREENSHOT_DIR");
        if (out.isEmpty())
            QSKIP("ORRERY_SCREENSHOT_DIR not set");
        JobRunner runner;
        SweepBuilderDialog b(io::defaultScenario(), QStringLiteral("default"), &runner);
        fillGrid(b);
        b.resize(900, 1000);
        b.show();
        QTRY_VERIFY_WITH_TIMEOUT(b.estimatedCpuS().has_value(), 30000);
        QTest::qWait(200);
        QVERIFY(b.grab().save(QString::fromUtf8(out) + QStringLiteral("/sweep-builder.png")));
        runner.waitForDone();
    }

private:
    /** The form that makes data/sweeps/rtx-scale-and-load.json. */
    static void fillGrid(SweepBuilderDialog& b)
    {
        b.nameEdit()->setText(QStringLiteral("rtx-scale-and-load"));
        b.descriptionEdit()->setText(QStringLiteral(
            "The spec the GUI's sweep builder makes from the default scenario: the RTX group scaled, an H100 "
            "node added or not, load and estimate error, FIFO, SJF and Tiresias without backfill, two seeds."));
        check(b.policyList(), {"fifo", "sjf"});
        b.variantsEdit()->setPlainText(QStringLiteral("tiresias:backfill_limit=0\n"));
        b.seedsEdit()->setText(QStringLiteral("1-2"));
        b.addClusterEdit(sweep::AxisKind::ScaleNodes, QStringLiteral("rtx"), QStringLiteral("0.5, 1, 2"));
        b.addClusterEdit(sweep::AxisKind::AddNodes, QStringLiteral("h100-sxm"), QStringLiteral("0 1"), 8);
        b.arrivalEdit()->setText(QStringLiteral("1, 2"));
        b.jobLimitEdit()->setText(QStringLiteral("40"));
        b.estimateErrorEdit()->setText(QStringLiteral("none, lognormal:0.5"));
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestSweepBuilder)
#include "test_sweep_builder.moc"

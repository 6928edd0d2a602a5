// Tools > Profile this GPU... and Load Calibration...: with no GPU the action explains why (message
// box and status bar) and starts nothing; a calibration file made from synthetic measurements loads
// through the GUI path, replaces the catalog type and the catalog view marks it as measured; a load is
// refused while a worker runs; a bad file's error names the file.
#include "main_window.h"

#include "async/job_runner.h"
#include "document/scenario_document.h"
#include "editors/gpu_catalog_view.h"
#include "hardware/gpu_catalog.h"
#include "models/gpu_catalog_model.h"
#include "profile/calibration.h"
#include "profile/calibration_dialog.h"
#include "profile/device_probe.h"
#include "profile/profile_controller.h"
#include "profile/startup_calibration.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <thread>

using namespace orrery;
using namespace orrery::gui;

/** An H200-like profile: bf16 GEMMs at 700 TFLOP/s plus an 8 µs gap, 4 TB/s copies, 3 µs kernels. */
static profile::Measurements syntheticH200()
{
    profile::Measurements m;
    m.device.name = "NVIDIA H200";
    m.device.sms = 132;
    m.device.ccMajor = 9;
    m.device.totalBytes = 150e9;
    m.device.usableBytes = 140e9;
    m.device.l2Bytes = 60e6;
    m.device.deviceCount = 1;
    const double shapes[][3] = {{1024, 1024, 1024}, {2048, 2048, 512}, {4096, 4096, 4096}, {8192, 8192, 8192}};
    for (const auto& s : shapes)
        m.gemm.push_back({"bf16", s[0], s[1], s[2], 2 * s[0] * s[1] * s[2] / 700e12 + 8e-6});
    m.stream.push_back({"copy", 1e9, 1e9 / 4e12});
    m.elementwise.push_back({1, 3e-6});
    m.elementwise.push_back({1024, 3e-6});
    m.measuredAt = "2026-01-01T00:00:00Z";
    m.host = "test";
    return m;
}

/** The catalog model's row of `name`, or -1. */
static int rowOf(GpuCatalogModel* model, const QString& name)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->data(model->index(r, GpuCatalogModel::Name)).toString() == name)
            return r;
    return -1;
}

class TestProfileGui : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.path().toUtf8());
        QCoreApplication::setOrganizationName(QStringLiteral("OrreryTest"));
        m_window = std::make_unique<MainWindow>();
        m_window->setScenario(io::defaultScenario(), QString());
        m_window->show();
    }
    void cleanupTestCase() { m_window.reset(); }

    void actionsAreInTheToolsMenu()
    {
        auto* profileAction = m_window->findChild<QAction*>(QStringLiteral("ProfileGpuAction"));
        auto* loadAction = m_window->findChild<QAction*>(QStringLiteral("LoadCalibrationAction"));
        QVERIFY(profileAction);
        QVERIFY(loadAction);
        QVERIFY(profileAction->text().contains(QStringLiteral("Profile this GPU")));
        QVERIFY(profileAction->isEnabled());
        QVERIFY(m_window->profileController());
    }

    void noGpuExplainsWhy()
    {
        if (profile::availability().usable())
            QSKIP("this machine has a GPU to profile");
        const QString reason = ProfileController::unavailableReason();
        QVERIFY(!reason.isEmpty());
        // The action opens a modal message box: read and close it from a timer.
        QString shown;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, this, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                shown = box->text();
                box->accept();
            }
        });
        poll.start();
        QTimer::singleShot(10000, this, [] { // never hang the suite
            if (QWidget* w = QApplication::activeModalWidget())
                w->close();
        });
        m_window->findChild<QAction*>(QStringLiteral("ProfileGpuAction"))->trigger();
        poll.stop();
        QVERIFY2(shown.contains(reason), qPrintable(shown));
        QVERIFY(m_window->statusBar()->currentMessage().contains(reason));
        QVERIFY(m_window->profileController()->lastMessage().contains(reason));
        QVERIFY(!m_window->profileController()->isProfiling());
        QCOMPARE(m_window->jobRunner()->runningCount(), 0);
        QVERIFY(!m_window->findChild<QProgressDialog*>(QStringLiteral("ProfileProgress")));
    }

    /** Only where a GPU can be profiled: a quick profile through the action, then "Use in this session". */
    void profilesTheGpuWhenThereIsOne()
    {
        if (!profile::availability().usable())
            QSKIP("no GPU to profile here");
        m_window->findChild<QAction*>(QStringLiteral("QuickProfileAction"))->setChecked(true);
        QVERIFY(m_window->profileController()->isQuick());
        QString failure; // a failed profile shows a message box: record it and close it
        QTimer poll;
        connect(&poll, &QTimer::timeout, this, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                failure = box->text();
                box->accept();
            }
        });
        poll.start(50);
        m_window->findChild<QAction*>(QStringLiteral("ProfileGpuAction"))->trigger();
        QVERIFY(m_window->profileController()->isProfiling());
        QVERIFY(m_window->findChild<QProgressDialog*>(QStringLiteral("ProfileProgress")));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->findChild<CalibrationDialog*>() || !failure.isEmpty(), 240000);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        auto* dialog = m_window->findChild<CalibrationDialog*>();
        QCOMPARE(dialog->useInSession(), QString());
        GpuCatalogModel* model = m_window->catalogView()->model();
        int calibrated = 0;
        for (int r = 0; r < model->rowCount(); ++r)
            calibrated += model->isCalibrated(r);
        QVERIFY(calibrated >= 1);
        dialog->close();
    }

    void summaryShowsTheFit()
    {
        const profile::Calibration c = profile::calibrate(syntheticH200(), hardware::GpuCatalog::builtin());
        const QString html = CalibrationDialog::summaryHtml(c);
        QVERIFY(html.contains(QStringLiteral("NVIDIA H200")));
        QVERIFY(html.contains(QString::fromStdString(c.type.name)));
        QVERIFY(html.contains(QStringLiteral("TFLOP/s")));
        QVERIFY(html.contains(QStringLiteral("GB/s")));
        QVERIFY(html.contains(QStringLiteral("bf16")));
        // Saving from the dialog writes a file that loads back.
        CalibrationDialog dialog(c, {});
        const QString path = m_dir.filePath(QStringLiteral("from-dialog.json"));
        QCOMPARE(dialog.saveTo(path), QString());
        QCOMPARE(profile::loadCalibration(path.toStdString()).type.name, c.type.name);
    }

    void loadingACalibrationMarksTheCatalog()
    {
        const profile::Calibration c = profile::calibrate(syntheticH200(), hardware::GpuCatalog::builtin());
        QVERIFY(c.type.curves);
        const QString path = m_dir.filePath(QStringLiteral("h200.json"));
        profile::saveCalibration(c, path.toStdString());

        GpuCatalogModel* model = m_window->catalogView()->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString name = QString::fromStdString(c.type.name);
        const int before = rowOf(model, name);
        QVERIFY2(before >= 0, qPrintable(name)); // matched to the catalog's H200
        QVERIFY(!model->data(model->index(before, 0), GpuCatalogModel::IsCalibratedRole).toBool());
        QCOMPARE(model->data(model->index(before, GpuCatalogModel::Curves)).toString(), QStringLiteral("published"));
        const int rows = model->rowCount();

        QString error;
        QVERIFY2(m_window->profileController()->loadFile(path, &error), qPrintable(error));
        QVERIFY(hardware::GpuCatalog::builtin().find(c.type.name)->curves);
        QCOMPARE(model->rowCount(), rows); // replaced, not added
        const int row = rowOf(model, name);
        QVERIFY(row >= 0);
        QVERIFY(model->isCalibrated(row));
        QVERIFY(model->data(model->index(row, 0), GpuCatalogModel::IsCalibratedRole).toBool());
        QCOMPARE(model->data(model->index(row, GpuCatalogModel::Curves)).toString(), QStringLiteral("measured"));
        const QString tip = model->data(model->index(row, GpuCatalogModel::Curves), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QString::fromStdString(c.type.curves->source)), qPrintable(tip));
        QVERIFY(m_window->document()->catalog().find(c.type.name)->curves);
        QVERIFY(m_window->statusBar()->currentMessage().contains(name));
        QVERIFY(!m_window->document()->isModified());       // not an edit of the scenario
        QCOMPARE(applyCalibrationFiles({path}), QString()); // orrery --calibration takes the same file
    }

    void applyingWaitsForRunningWorkers()
    {
        const profile::Calibration c = profile::calibrate(syntheticH200(), hardware::GpuCatalog::builtin());
        JobRunner* runner = m_window->jobRunner();
        auto release = std::make_shared<std::atomic<bool>>(false);
        std::function<int(TaskContext&)> work = [release](TaskContext&) {
            while (!release->load())
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return 0;
        };
        runner->start<int>(QString(), std::move(work), this, [](int) {});
        const QString refusal = m_window->profileController()->apply(c);
        QVERIFY(refusal.contains(QStringLiteral("wait")));
        release->store(true);
        runner->waitForDone();
        QTRY_COMPARE(runner->runningCount(), 0);
        QCOMPARE(m_window->profileController()->apply(c), QString());
    }

    void badFilesNameTheFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "orrery-calibration", "version": 1, "device": 5})");
        f.close();
        QString error;
        QVERIFY(!m_window->profileController()->loadFile(path, &error));
        QVERIFY2(error.contains(QStringLiteral("bad.json")), qPrintable(error));
        QVERIFY(m_window->statusBar()->currentMessage().contains(QStringLiteral("bad.json")));
        // The start-up path (orrery --calibration) reports the same error.
        const QString startup = applyCalibrationFiles({path});
        QVERIFY2(startup.contains(QStringLiteral("bad.json")), qPrintable(startup));
        QVERIFY(!applyCalibrationFiles({m_dir.filePath(QStringLiteral("missing.json"))}).isEmpty());
        QCOMPARE(applyCalibrationFiles({}), QString());
    }

    void environmentListIsColonSeparated()
    {
        qputenv("ORRERY_CALIBRATION", "/a.json::/b.json");
        QCOMPARE(calibrationFilesFromEnvironment(), (QStringList{"/a.json", "/b.json"}));
        qunsetenv("ORRERY_CALIBRATION");
        QVERIFY(calibrationFilesFromEnvironment().isEmpty());
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestProfileGui)
#include "test_profile_gui.moc"

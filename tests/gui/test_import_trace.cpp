// File > Import Trace: the preview reads the trace as `orrery-cli import` does (io::importTrace), in the
// background; errors name the file and line; Import is offered only for a preview of the current inputs.
#include "test_support.h"

#include "async/job_runner.h"
#include "editors/import_trace_dialog.h"
#include "io/trace_import.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace orrery;
using namespace orrery::gui;

class TestImportTrace : public QObject
{
    Q_OBJECT
private slots:
    void previewsARealTraceAsTheCliReadsIt()
    {
        const std::string trace = test::sharedDataPath("pollux/philly.csv");
        if (!QFile::exists(QString::fromStdString(trace)))
            QSKIP("shared data not present");
        JobRunner runner;
        ImportTraceDialog dialog(&runner);
        QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
        dialog.setInputs(QStringLiteral("philly"), QString::fromStdString(trace), QStringLiteral("v100:16"), 200);
        QSignalSpy ready(&dialog, &ImportTraceDialog::previewReady);
        dialog.preview();
        QVERIFY(ready.wait(test::kWorkerWaitMs));
        QVERIFY(dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());

        io::TraceImportRequest r;
        r.format = "philly";
        r.file = trace;
        r.cluster = "v100:16";
        r.limit = 200;
        const io::TraceImport cli = io::importTrace(r);
        const auto shown = dialog.result();
        QVERIFY(shown);
        QCOMPARE(shown->scenario.workload.jobs.size(), cli.scenario.workload.jobs.size());
        QCOMPARE(shown->scenario.cluster.totalGpus(), 16);
        QVERIFY(cli.load.factor && shown->load.factor);
        QCOMPARE(*shown->load.factor, *cli.load.factor);
        const QString text = dialog.summaryLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("<b>200 jobs</b>")) &&
                     text.contains(QString::number(*cli.load.factor, 'f', 3)),
                 qPrintable(text));

        // To look at the preview as a user sees it: ORRERY_IMPORT_SHOT=/tmp/import.png.
        if (const QString shot = qEnvironmentVariable("ORRERY_IMPORT_SHOT"); !shot.isEmpty()) {
            dialog.show();
            QTest::qWait(200);
            dialog.grab().save(shot);
        }
        // Changing an input withdraws Import until the next preview.
        dialog.setInputs(QStringLiteral("philly"), QString::fromStdString(trace), QStringLiteral("v100:2816"), 200);
        QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
        QVERIFY(!dialog.result());
        dialog.preview();
        QVERIFY(ready.wait(test::kWorkerWaitMs));
        // 200 jobs on 2,816 GPUs: far below capacity, and said so.
        QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("Warning: the offered load")),
                 qPrintable(dialog.summaryLabel()->text()));
    }

    void errorsNameTheFileAndLine()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.trace"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("A\tcmd\tdir\t-s\t1\t100\t1\t1\t-1\t0\n"
                "A\tcmd\tdir\t-s\t1\tabc\t1\t1\t-1\t5\n");
        f.close();
        JobRunner runner;
        ImportTraceDialog dialog(&runner);
        QSignalSpy failed(&dialog, &ImportTraceDialog::previewFailed);
        dialog.setInputs(QStringLiteral("gavel"), bad);
        dialog.preview();
        QVERIFY(failed.wait(test::kWorkerWaitMs));
        QVERIFY2(dialog.errorLabel()->text().contains(QStringLiteral("bad.trace:2: total_steps")),
                 qPrintable(dialog.errorLabel()->text()));
        QVERIFY(dialog.errorLabel()->isVisibleTo(&dialog));
        QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());

        // A bad cluster is refused before the trace is read, naming the item.
        dialog.setInputs(QStringLiteral("gavel"), bad, QStringLiteral("v100:-4"));
        dialog.preview();
        QVERIFY(failed.wait(test::kWorkerWaitMs));
        QVERIFY2(dialog.errorLabel()->text().contains(QStringLiteral("v100:-4")),
                 qPrintable(dialog.errorLabel()->text()));
    }
};

QTEST_MAIN(TestImportTrace)
#include "test_import_trace.moc"

// orrery: the desktop application. Opens the scenario given on the command
// line, or the embedded default scenario.
#include "main_window.h"
#include "profile/startup_calibration.h"
#include "runs/run_manager_panel.h"

#include <QDockWidget>
#include <QTabWidget>
#include <QTimer>

#include "io/error.h"
#include "version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>

#include <algorithm>
#include <iostream>
#include <string_view>

namespace {

struct Options
{
    QCommandLineOption run{"run", "Run the scenario's policies as soon as the window opens."};
    QCommandLineOption tab{"tab",
                           "Result tab to show first (0 Gantt, 1 cluster at t, 2 utilisation, 3 compare, 4 memory "
                           "planner, 5 provisioning, 6 sweeps, 7 serving).",
                           "index"};
    QCommandLineOption dock{
        "dock", "Dock to bring to the front (ClusterDock, CatalogDock, WorkloadDock, HistoryDock, StoreDock, JobDock).",
        "name"};
    QCommandLineOption job{"job", "Job to show in the job details once the first run is shown (with --run).", "id"};
    QCommandLineOption calibration{"calibration",
                                   "Calibration file from `orrery-cli profile` (repeatable): measured curves replace "
                                   "the catalog defaults of that GPU type (also $ORRERY_CALIBRATION, colon-separated).",
                                   "file"};
};

void describe(QCoreApplication& app, QCommandLineParser& parser, const Options& options)
{
    QCoreApplication::setApplicationName("Orrery");
    QCoreApplication::setOrganizationName("Orrery");
    QCoreApplication::setApplicationVersion(orrery::kVersion);
    parser.setApplicationDescription("Plan, provision and simulate DL training on heterogeneous GPU clusters.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("scenario", "Scenario JSON file to open (default: the embedded default scenario).");
    parser.addOptions({options.run, options.tab, options.dock, options.job, options.calibration});
    parser.process(app); // --help, --version and unknown options end the process here
}

} // namespace

int main(int argc, char** argv)
{
    const Options options;
    // --help and --version need no display: answer them before the GUI application, which aborts without one,
    // exists. (Only then: a console application would refuse Qt's own GUI options such as -platform.)
    const bool informational = std::any_of(argv + 1, argv + argc, [](const char* a) {
        const std::string_view arg(a);
        return arg == "--help" || arg == "-h" || arg == "--help-all" || arg == "--version" || arg == "-v";
    });
    if (informational) {
        QCoreApplication console(argc, argv);
        QCommandLineParser parser;
        describe(console, parser, options);
    }
    // The resources live in the static orrery_gui library, so they must be registered by hand.
    Q_INIT_RESOURCE(orrery);
    QApplication app(argc, argv);
    QApplication::setDesktopFileName("io.github.orrery.Orrery");
    QApplication::setWindowIcon(QIcon(":/icons/orrery.svg"));
    QCommandLineParser parser;
    describe(app, parser, options);
    const QCommandLineOption& run = options.run;
    const QCommandLineOption& tab = options.tab;
    const QCommandLineOption& dock = options.dock;
    const QCommandLineOption& calibration = options.calibration;

    // Before any window: the document's catalog is built from the calibrated built-in one.
    const QString calibrationError =
        orrery::gui::applyCalibrationFiles(orrery::gui::calibrationFilesFromEnvironment() + parser.values(calibration));
    if (!calibrationError.isEmpty()) {
        std::cerr << "orrery: " << calibrationError.toStdString() << '\n';
        return 2;
    }

    orrery::gui::MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        window.openStartupScenario();
    else if (!window.openPath(args.first()))
        window.setScenario(orrery::io::defaultScenario(), QString());
    if (parser.isSet(options.job))
        window.showJobOnNextRun(parser.value(options.job));
    if (parser.isSet(tab))
        window.resultTabs()->setCurrentIndex(parser.value(tab).toInt());
    window.show();
    if (parser.isSet(dock))
        if (auto* d = window.findChild<QDockWidget*>(parser.value(dock)))
            d->raise();
    if (parser.isSet(run))
        QTimer::singleShot(0, &window,
                           [&window] { window.runManager()->runPolicies(window.runManager()->checkedPolicies()); });
    return app.exec();
}

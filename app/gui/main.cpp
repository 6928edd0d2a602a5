// orrery: the desktop application. Opens the scenario given on the command
// line, or the embedded default scenario.
#include "main_window.h"

#include "io/error.h"
#include "version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>

int main(int argc, char** argv)
{
    // The resources live in the static orrery_gui library, so they must be registered by hand.
    Q_INIT_RESOURCE(orrery);
    QApplication app(argc, argv);
    QApplication::setApplicationName("Orrery");
    QApplication::setOrganizationName("Orrery");
    QApplication::setApplicationVersion(orrery::kVersion);
    QApplication::setDesktopFileName("io.github.orrery.Orrery");
    QApplication::setWindowIcon(QIcon(":/icons/orrery.svg"));

    QCommandLineParser parser;
    parser.setApplicationDescription("Plan, provision and simulate DL training on heterogeneous GPU clusters.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("scenario", "Scenario JSON file to open (default: the embedded default scenario).");
    parser.process(app);

    orrery::gui::MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty() || !window.openPath(args.first()))
        window.setScenario(orrery::io::defaultScenario(), QString());
    window.show();
    return app.exec();
}

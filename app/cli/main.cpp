// orrery-cli: Orrery's headless front end for scripts, sweeps and tests.
#include "cli.h"

#include "io/error.h"
#include "profile/calibration.h"
#include "version.h"

#include <iostream>

int main(int argc, char** argv)
{
    CLI::App app{"Orrery: plan, provision and simulate deep-learning training on heterogeneous GPU clusters.\n"
                 "Exit status: 0 success, 1 failure, 2 bad input."};
    app.set_version_flag("--version", std::string("orrery-cli ") + orrery::kVersion);
    app.require_subcommand(1);
    app.fallthrough(false);
    // Calibrations apply before any subcommand runs: CLI11 runs the main app's option callbacks first.
    app.add_option_function<std::vector<std::string>>(
           "--calibration", orrery::profile::applyCalibrations,
           "Calibration file(s) from `orrery-cli profile`: measured curves replace the catalog defaults of "
           "that GPU type (also $ORRERY_CALIBRATION, colon-separated). Give it before the command.")
        ->type_name("FILE");
    orrery::cli::registerAllCommands(app);

    try {
        orrery::profile::applyCalibrations(orrery::profile::calibrationFilesFromEnvironment());
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return orrery::cli::BadInput;
    } catch (const orrery::cli::ExitRequest& e) {
        return e.code;
    } catch (const orrery::Error& e) {
        std::cerr << "orrery-cli: " << e.what() << '\n';
        return orrery::cli::BadInput;
    } catch (const std::exception& e) {
        std::cerr << "orrery-cli: error: " << e.what() << '\n';
        return orrery::cli::Failure;
    }
    return orrery::cli::Ok;
}

// orrery-cli: Orrery's headless front end for scripts, sweeps and tests.
#include "cli.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "profile/calibration.h"
#include "version.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

int main(int argc, char** argv)
{
    CLI::App app{"Orrery: plan, provision and simulate deep-learning training on heterogeneous GPU clusters.\n"
                 "Exit status: 0 success, 1 failure, 2 bad input."};
    app.set_version_flag("--version", std::string("orrery-cli ") + orrery::kVersion);
    app.require_subcommand(1);
    app.fallthrough(false);
    // Calibrations apply before any subcommand runs: CLI11 runs the main app's option callbacks first.
    const auto calibrate = [](const std::vector<std::string>& files) {
        for (const std::string& file : files)
            orrery::hardware::GpuCatalog::calibrateBuiltin(orrery::profile::loadCalibration(file).type);
    };
    app.add_option_function<std::vector<std::string>>(
           "--calibration", calibrate,
           "Calibration file(s) from `orrery-cli profile`: measured curves replace the catalog defaults of "
           "that GPU type (also $ORRERY_CALIBRATION, colon-separated). Give it before the command.")
        ->type_name("FILE");
    orrery::cli::registerAllCommands(app);

    try {
        if (const char* env = std::getenv("ORRERY_CALIBRATION"); env && *env) {
            std::vector<std::string> files;
            std::istringstream list(env);
            for (std::string f; std::getline(list, f, ':');)
                if (!f.empty())
                    files.push_back(f);
            calibrate(files);
        }
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

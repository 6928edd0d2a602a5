#include "cli.h"

#include "hardware/gpu_catalog.h"
#include "profile/calibration.h"
#include "profile/device_probe.h"

#include <fmt/format.h>

#include <unistd.h>

#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

struct ProfileArgs
{
    bool quick = false;
    bool json = false;
    int device = 0;
    std::string as;
    std::string output;
    std::string refit;
};

/** A one-line bar on stderr, redrawn in place; only on a terminal (logs get no carriage returns). */
class ProgressBar
{
public:
    ProgressBar() : m_tty(isatty(STDERR_FILENO) == 1) {}
    ~ProgressBar() { finish(); }

    bool update(double fraction, std::string_view step)
    {
        if (!m_tty)
            return true;
        const int width = 30, done = int(fraction * width + 0.5);
        std::cerr << fmt::format("\r[{}{}] {:3.0f}% {:<24}", std::string(done, '#'), std::string(width - done, '.'),
                                 100 * fraction, step)
                  << std::flush;
        m_drawn = true;
        return true;
    }

    void finish()
    {
        if (m_drawn)
            std::cerr << "\r" << std::string(64, ' ') << "\r" << std::flush;
        m_drawn = false;
    }

private:
    bool m_tty;
    bool m_drawn = false;
};

std::string defaultOutput(const profile::Calibration& c)
{
    return fmt::format("orrery-calibration-{}.json", c.type.name);
}

void printSummary(const profile::Calibration& c, const std::string& file)
{
    const profile::DeviceInfo& d = c.measurements.device;
    const hardware::GpuType& t = c.type;
    constexpr double GiB = 1024.0 * 1024 * 1024;
    std::cout << fmt::format("{} (compute capability {}.{}, {} SMs, driver {}, CUDA {}.{})\n", d.name, d.ccMajor,
                             d.ccMinor, d.sms, d.driver.empty() ? "unknown" : d.driver, d.cudaRuntime / 1000,
                             (d.cudaRuntime % 1000) / 10);
    std::cout << (c.catalogType.empty() ? fmt::format("Not in the catalog: calibrated as a new type \"{}\".\n", t.name)
                                        : fmt::format("Catalog type: {} ({}).\n", t.name, t.display));
    Table gemm({"GEMM", "shapes", "best TFLOP/s", "fitted TFLOP/s", "tile", "half k", "median error"});
    for (const profile::GemmFit& f : c.gemm)
        gemm.add({f.precision, std::to_string(f.samples), fmt::format("{:.1f}", f.maxMeasuredTflops),
                  fmt::format("{:.1f}", f.tflops), fmt::format("{:.0f}", f.tile), fmt::format("{:.0f}", f.halfK),
                  fmt::format("{:.1f}%", 100 * f.medianError)});
    std::cout << gemm.render();
    const hardware::GpuCurves& curves = *t.curves;
    Table other({"measure", "value", "catalog / model"});
    other.add({"memory bandwidth", fmt::format("{:.0f} GB/s", c.bandwidthGBps),
               fmt::format("{:.0f}% of {:.0f} GB/s", 100 * curves.memoryEfficiency, t.memoryBandwidthGBps)});
    other.add({"kernel floor", fmt::format("{:.2f} µs", c.kernelFloorUs),
               fmt::format("default {:.1f} µs", hardware::defaultCurves(t).kernelFloorUs)});
    other.add({"bf16 in training", fmt::format("{:.0f}% of peak", 100 * curves.gemmEfficiency),
               fmt::format("default {:.0f}%", 100 * hardware::defaultCurves(t).gemmEfficiency)});
    other.add({"CUDA context", fmt::format("{:.0f} MiB", d.contextBytes / (1024 * 1024)), ""});
    other.add({"largest allocation", fmt::format("{:.1f} GiB", d.usableBytes / GiB),
               fmt::format("of {:.1f} GiB", d.totalBytes / GiB)});
    if (c.peerGBps > 0)
        other.add({"peer-to-peer", fmt::format("{:.0f} GB/s", c.peerGBps), ""});
    std::cout << other.render();
    for (const std::string& s : c.measurements.skipped)
        std::cout << "skipped: " << s << '\n';
    std::cout << fmt::format("Wrote {}. Use it with: orrery-cli --calibration {} <command> ...\n", file, file);
}

/** Writes the calibration file and prints the summary (or the document with --json). */
void report(const profile::Calibration& c, const ProfileArgs& args)
{
    const std::string file = args.output.empty() ? defaultOutput(c) : args.output;
    profile::saveCalibration(c, file);
    if (args.json)
        printJson(profile::calibrationToJson(c));
    else
        printSummary(c, file);
}

void registerProfileCommand(CLI::App& app)
{
    auto args = std::make_shared<ProfileArgs>();
    auto* cmd = app.add_subcommand(
        "profile", "Measure the local GPU (cuBLAS GEMMs, memory bandwidth, kernel launches) and write a calibration");
    cmd->add_flag("--quick", args->quick, "Fewer shapes and sizes (under a minute)");
    cmd->add_option("--device", args->device, "CUDA device index")->capture_default_str();
    cmd->add_option("--as", args->as, "Catalog type this GPU is (default: matched by its CUDA name)");
    cmd->add_option("--output,-o", args->output, "Calibration file (default: orrery-calibration-<type>.json)");
    cmd->add_flag("--json", args->json, "Print the calibration document instead of the summary");
    cmd->add_option("--refit", args->refit,
                    "Fit the curves again to a calibration file's recorded measurements (no GPU needed)")
        ->type_name("FILE");
    cmd->callback([args] {
        if (!args->refit.empty()) {
            const profile::Calibration recorded = profile::loadCalibration(args->refit);
            report(profile::calibrate(recorded.measurements, hardware::GpuCatalog::builtin(),
                                      args->as.empty() ? recorded.catalogType : args->as),
                   *args);
            return;
        }
        const profile::Availability a = profile::availability();
        if (!a.usable()) {
            std::cerr << "orrery-cli profile: " << a.reason << '\n';
            throw ExitRequest{BadInput};
        }
        if (!args->as.empty())
            hardware::GpuCatalog::builtin().at(args->as); // a typo fails before minutes of measuring
        ProgressBar bar;
        profile::ProbeOptions options;
        options.device = args->device;
        options.quick = args->quick;
        options.progress = [&bar](double f, std::string_view step) { return bar.update(f, step); };
        const profile::Measurements m = profile::measureDevice(options);
        bar.finish();
        report(profile::calibrate(m, hardware::GpuCatalog::builtin(), args->as), *args);
    });
}

} // namespace

ORRERY_CLI_COMMAND(95, registerProfileCommand, "profile");

} // namespace orrery::cli

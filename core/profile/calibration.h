#pragma once

#include "hardware/gpu_type.h"
#include "profile/measurements.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace orrery::hardware {
class GpuCatalog;
}

namespace orrery::profile {

/**
 * Isolated cuBLAS GEMMs run faster than the same GEMMs inside a training step: clocks fall under a
 * step's sustained power draw, and the step's other kernels share the caches. The estimator's
 * gemmEfficiency means the in-training rate, so a calibration scales the measured large-GEMM rate by
 * the in-training efficiency fitted to training runs (docs/models/gpu-curves.md) over the isolated
 * cuBLAS bf16 efficiency of the same part: Ampere, the A100's 0.70 / 0.82; Hopper (700 W parts, which
 * lose more clock under load), 0.60 / 0.75, the in-training figure fitted on our own H200 and H100 training
 * steps and torchtitan's H100 runs (docs/models/profiler.md).
 */
inline constexpr double kTrainingGemmFactorAmpere = 0.70 / 0.82;
inline constexpr double kTrainingGemmFactorHopper = 0.60 / 0.75;
/** The factor for a device: Hopper's from compute capability 9 on, Ampere's below. */
double trainingGemmFactor(const DeviceInfo& device);

/** One precision's fitted GEMM curve (the operator-time model's gemmS over the measured shapes). */
struct GemmFit
{
    std::string precision;
    double tflops = 0;      ///< large-GEMM rate F
    double tile = 128;      ///< output-tile edge
    double halfK = 48;      ///< reduction depth of half efficiency
    double medianError = 0; ///< median |model/measured - 1| over the samples
    double maxMeasuredTflops = 0;
    double floorUs = 0; ///< fastest call: the host's issue rate of library GEMMs (not in the curves)
    int samples = 0;
};

/** A profile's measurements, the curves fitted to them and the GPU type they calibrate. */
struct Calibration
{
    Measurements measurements;
    std::vector<GemmFit> gemm;
    double bandwidthGBps = 0; ///< sustained streaming copy (read + write) of the largest buffers
    double kernelFloorUs = 0; ///< back-to-back element-wise kernel at negligible size
    double peerGBps = 0;      ///< fastest peer copy; 0 with one GPU
    /** Rate of GEMMs off the 16-byte alignment over the aligned curve's (0 when none was measured). */
    double misalignedEfficiency = 0;
    int misalignedSamples = 0;
    /** The catalog type the device was matched to; empty when the GPU is not in the catalog. */
    std::string catalogType;
    /** The type with its measured curves: the catalog's (datasheet figures kept) or a new entry. */
    hardware::GpuType type;

    const GemmFit* fit(const std::string& precision) const;
};

/**
 * The catalog type a device is: its CUDA name normalised ("NVIDIA H100 80GB HBM3" -> h100-80gb -> h100-sxm),
 * or empty when none matches.
 */
std::string matchCatalogType(const DeviceInfo& device, const hardware::GpuCatalog& catalog);

/** Fits one precision's samples; throws when there are fewer than 3. `gapS` and `bytesPerS` are measured. */
GemmFit fitGemm(const std::vector<GemmSample>& samples, const std::string& precision, int sms, double bytesPerS,
                double gapS);

/**
 * Fits curves to `m` and builds the type they calibrate: `asType` names the catalog type explicitly
 * (else matchCatalogType). Throws orrery::Error when the measurements cannot be fitted (no bf16 or
 * fp16 GEMMs, no bandwidth samples).
 */
Calibration calibrate(const Measurements& m, const hardware::GpuCatalog& catalog, const std::string& asType = {});

/** The files named by $ORRERY_CALIBRATION (colon-separated, empty entries skipped), in order. */
std::vector<std::string> calibrationFilesFromEnvironment();
/**
 * Loads each calibration and puts its type into GpuCatalog::builtin(), in order (a later file replaces an
 * earlier one of the same type): what `--calibration` does at start-up. Throws orrery::Error naming the file.
 */
void applyCalibrations(const std::vector<std::string>& files);

/** The calibration file (docs/models/profiler.md, "The calibration file"). */
nlohmann::json calibrationToJson(const Calibration& c);
/** Reads a calibration file's document: the measurements and the type it calibrates. Errors name `file` and the JSON
 * path. */
Calibration calibrationFromJson(const nlohmann::json& doc, const std::string& file);
Calibration loadCalibration(const std::string& path);
void saveCalibration(const Calibration& c, const std::string& path);

/** The measurements alone, as the calibration file holds them (for re-fitting recorded curves). */
nlohmann::json measurementsToJson(const Measurements& m);
Measurements measurementsFromJson(const nlohmann::json& value, const std::string& path);

} // namespace orrery::profile

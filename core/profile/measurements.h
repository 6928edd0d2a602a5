#pragma once

#include <string>
#include <vector>

namespace orrery::profile {

/** What the CUDA runtime says of the device profiled (docs/models/profiler.md, "The calibration file"). */
struct DeviceInfo
{
    std::string name;   ///< cudaDeviceProp::name, e.g. "NVIDIA H200"
    std::string driver; ///< the kernel driver's version (/proc/driver/nvidia/version), empty when unknown
    int cudaDriver = 0; ///< cudaDriverGetVersion: 13000 is CUDA 13.0
    int cudaRuntime = 0;
    int ccMajor = 0; ///< compute capability
    int ccMinor = 0;
    int sms = 0;
    int deviceCount = 0;     ///< devices this process sees
    double totalBytes = 0;   ///< device memory
    double freeBytes = 0;    ///< free once this process's context exists
    double usableBytes = 0;  ///< largest single allocation that succeeded
    double contextBytes = 0; ///< used once the context exists (this context plus any other process's)
    double l2Bytes = 0;
};

/** One timed GEMM: D = A.B with A m x k, B k x n, in `precision` (bf16, fp16, tf32, fp32, fp8). */
struct GemmSample
{
    std::string precision;
    double m = 0, n = 0, k = 0;
    double seconds = 0; ///< one GEMM, averaged over back-to-back repetitions
    double tflops() const { return seconds > 0 ? 2 * m * n * k / seconds / 1e12 : 0; }
};

/** One timed streaming kernel over `bytes` (read + written): copy, triad or a device-to-device memcpy. */
struct StreamSample
{
    std::string kernel;
    double bytes = 0;
    double seconds = 0;
    double gbps() const { return seconds > 0 ? bytes / seconds / 1e9 : 0; }
};

/** An element-wise kernel over `elements` fp32 values, launched back to back: time per launch. */
struct LaunchSample
{
    double elements = 0;
    double seconds = 0;
};

/** A peer-to-peer copy between two GPUs of this node. */
struct PeerSample
{
    int source = 0, target = 0;
    double bytes = 0;
    double seconds = 0;
    double gbps() const { return seconds > 0 ? bytes / seconds / 1e9 : 0; }
};

/** Everything one profile measured; calibration.h fits curves to it. */
struct Measurements
{
    DeviceInfo device;
    std::vector<GemmSample> gemm;
    std::vector<StreamSample> stream;
    std::vector<LaunchSample> elementwise;
    std::vector<PeerSample> peers;
    /** What could not be measured and why ("fp8: needs compute capability 8.9"). */
    std::vector<std::string> skipped;
    /** UTC, ISO 8601. */
    std::string measuredAt;
    std::string host;
    bool quick = false;
};

} // namespace orrery::profile

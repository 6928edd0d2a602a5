#pragma once

#include "io/error.h"
#include "profile/measurements.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace orrery::profile {

/** Whether this build can profile and which devices it sees. */
struct Availability
{
    bool compiledWithCuda = false;
    int devices = 0;
    /** Why no device can be profiled ("built without CUDA", "no CUDA-capable device is detected"). */
    std::string reason;
    bool usable() const { return compiledWithCuda && devices > 0; }
};

Availability availability();

struct ProbeOptions
{
    int device = 0;
    /** Fewer shapes and sizes: under a minute on a datacenter GPU. */
    bool quick = false;
    /**
     * Called between steps with the fraction done and the step's name; returning false cancels the
     * profile (measureDevice then throws orrery::Cancelled). Called on the measuring thread.
     */
    std::function<bool(double fraction, std::string_view step)> progress;
};

/**
 * Measures the local GPU (cuBLAS GEMMs over a grid of shapes and precisions, streaming bandwidth,
 * element-wise launch time, peer copies, memory): docs/models/profiler.md lists every step. Throws
 * std::runtime_error naming the CUDA call that failed; a precision the device lacks is recorded in
 * Measurements::skipped, not thrown.
 */
Measurements measureDevice(const ProbeOptions& options);

} // namespace orrery::profile

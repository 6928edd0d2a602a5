#pragma once

#include "workload/job.h"
#include "workload/model_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orrery::gui {

/** What the job-mix dialog asks for: `count` jobs of one model, arriving by a pattern. */
struct JobMix
{
    enum class Arrival { AllAtStart, Uniform, Poisson };

    std::string model; ///< library name (ignored when customModel is set)
    std::optional<workload::ModelSpec> customModel;
    int batch = 8;
    int count = 10;
    double iterations = 1000;
    Arrival arrival = Arrival::Poisson;
    double ratePerHour = 30; ///< Uniform and Poisson
    double startS = 0;       ///< first arrival
    std::string user;
    std::uint64_t seed = 1;
    std::string idPrefix = "mix";
};

/**
 * The serverless jobs of a mix, ids `<prefix>NNN` not colliding with `existing`.
 * Deterministic for a given seed.
 */
std::vector<workload::Job> generateJobs(const JobMix& mix, const std::vector<workload::Job>& existing);

} // namespace orrery::gui

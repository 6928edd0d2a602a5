#include "models/job_mix.h"

#include <fmt/format.h>

#include <random>
#include <unordered_set>

namespace orrery::gui {

std::vector<workload::Job> generateJobs(const JobMix& mix, const std::vector<workload::Job>& existing)
{
    std::unordered_set<std::string> used;
    for (const auto& j : existing)
        used.insert(j.id);
    std::mt19937_64 rng(mix.seed);
    std::exponential_distribution<double> gap(mix.ratePerHour > 0 ? mix.ratePerHour / 3600.0 : 1.0);
    std::vector<workload::Job> jobs;
    jobs.reserve(static_cast<std::size_t>(std::max(0, mix.count)));
    double t = mix.startS;
    int serial = 0;
    for (int i = 0; i < mix.count; ++i) {
        workload::Job j;
        do {
            j.id = fmt::format("{}{:03}", mix.idPrefix, serial++);
        } while (used.count(j.id));
        used.insert(j.id);
        j.kind = workload::JobKind::Serverless;
        j.model = mix.customModel ? mix.customModel->name : mix.model;
        j.config.globalBatch = mix.batch;
        j.iterations = mix.iterations;
        j.user = mix.user;
        switch (mix.arrival) {
        case JobMix::Arrival::AllAtStart:
            j.arrivalS = mix.startS;
            break;
        case JobMix::Arrival::Uniform:
            j.arrivalS = mix.startS + (mix.ratePerHour > 0 ? i * 3600.0 / mix.ratePerHour : 0.0);
            break;
        case JobMix::Arrival::Poisson:
            if (i > 0)
                t += gap(rng);
            j.arrivalS = t;
            break;
        }
        jobs.push_back(std::move(j));
    }
    return jobs;
}

} // namespace orrery::gui

#include "workload/generator.h"

#include "io/error.h"
#include "util/portable_random.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace orrery::workload {

double referenceIterationsPerS(const ModelSpec& model, int globalBatch, int seq)
{
    const double tokens = static_cast<double>(globalBatch) * (seq > 0 ? seq : model.seq);
    // 6 FLOPs per parameter a token runs through (an MoE token runs only its top-k experts).
    return kReferenceFlopsPerS / (6.0 * static_cast<double>(model.activeParamCount()) * tokens);
}

std::vector<Job> generateJobs(const GeneratorSpec& spec, std::uint64_t seed, const ModelLibrary& models,
                              const DurationDistribution& durations)
{
    if (spec.mix.empty())
        throw Error("a generator needs at least one mix entry");
    std::vector<double> cumulative;
    double total = 0;
    for (const auto& e : spec.mix)
        cumulative.push_back(total += e.weight);
    // Resolve each serverless entry's model once, not per job.
    std::vector<const ModelSpec*> entryModel;
    for (const auto& e : spec.mix)
        entryModel.push_back(e.model.empty() ? nullptr : &models.at(e.model));

    util::PortableRandom rng(seed);
    const double meanGapS = spec.ratePerHour > 0 ? 3600.0 / spec.ratePerHour : 0;
    std::vector<Job> jobs;
    jobs.reserve(static_cast<std::size_t>(std::max(spec.jobs, 0)));
    double t = 0;
    for (int i = 0; i < spec.jobs; ++i) {
        // A fixed number of draws per job, in a fixed order, keeps job k's values
        // independent of the mix entries chosen before it.
        const double gapU = rng.uniform();
        const double entryU = rng.uniform();
        const double durationU = rng.uniform();
        const double choiceU = rng.uniform();
        if (i > 0 && meanGapS > 0)
            t += util::PortableRandom::exponential(meanGapS, gapU);
        const auto e = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), entryU * total) -
                                                cumulative.begin());
        const std::size_t entry = std::min(e, spec.mix.size() - 1);
        const MixEntry& m = spec.mix[entry];
        const double duration = std::clamp(durations.quantile(durationU), spec.minDurationS, spec.maxDurationS);

        Job job;
        job.id = "g" + std::to_string(i);
        job.arrivalS = t;
        if (const ModelSpec* model = entryModel[entry]) {
            job.kind = JobKind::Serverless;
            job.model = model->name;
            const std::size_t k = std::min(static_cast<std::size_t>(choiceU * static_cast<double>(m.batches.size())),
                                           m.batches.size() - 1);
            job.config.globalBatch = m.batches[k];
            job.iterations =
                std::max(1.0, std::ceil(duration * referenceIterationsPerS(*model, job.config.globalBatch)));
        } else {
            job.kind = JobKind::Fixed;
            const std::size_t k =
                std::min(static_cast<std::size_t>(choiceU * static_cast<double>(m.gpus.size())), m.gpus.size() - 1);
            job.gpus = m.gpus[k];
            job.durationS = duration;
        }
        jobs.push_back(std::move(job));
    }
    return jobs;
}

} // namespace orrery::workload

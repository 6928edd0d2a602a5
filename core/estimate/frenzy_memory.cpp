#include "estimate/frenzy_memory.h"

#include "estimate/model_terms.h"

namespace orrery::estimate {

double frenzyParamCount(const workload::ModelSpec& model)
{
    const double h = model.hidden;
    return double(model.vocab) * h + model.layers * (12 * h * h + 13 * h);
}

namespace {

/** Bytes of the two terms, before any d division of the activations beyond b = B / d. */
struct FrenzyTerms
{
    double staticBytes = 0;
    double activationBytes = 0;
};

FrenzyTerms frenzyTerms(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                        const Parallelism& par, MemoryMode mode)
{
    const double t = par.tp, d = par.dp;
    const double s = config.seq > 0 ? config.seq : model.seq;
    const double b = config.microBatch > 0 ? config.microBatch : config.globalBatch / d;
    const double h = model.hidden, l = model.layers, a = model.heads;
    FrenzyTerms terms;
    terms.staticBytes = 20.0 * frenzyParamCount(model) / (t * par.pp);
    terms.activationBytes = s * b * h * l * (10.0 + 24.0 / t + 5.0 * a * s / (h * t));
    if (mode == MemoryMode::FrenzyLiteral)
        terms.activationBytes /= d;
    return terms;
}

} // namespace

double frenzyRequiredBytes(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                           const Parallelism& par, MemoryMode mode)
{
    const FrenzyTerms terms = frenzyTerms(model, config, par, mode);
    return terms.staticBytes + terms.activationBytes;
}

namespace detail {

MemoryBreakdown frenzyBreakdown(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                const Parallelism& par, MemoryMode mode)
{
    const FrenzyTerms terms = frenzyTerms(model, config, par, mode);
    // The paper gives one static figure, 20 B per parameter (MT-NLG, Smith et al. 2022): half weights 2,
    // half gradients 2 + fp32 gradients 4, fp32 master weights 4 + Adam moments 8. Itemised that way.
    MemoryBreakdown m;
    m.weightsGiB = terms.staticBytes * (2.0 / 20.0) / kGiB;
    m.gradientsGiB = terms.staticBytes * (6.0 / 20.0) / kGiB;
    m.optimizerGiB = terms.staticBytes * (12.0 / 20.0) / kGiB;
    m.activationsGiB = terms.activationBytes / kGiB;
    return m;
}

} // namespace detail

} // namespace orrery::estimate

#include "estimate/model_terms.h"
#include "estimate/operator_time.h"

#include "io/error.h"

#include <fmt/format.h>

namespace orrery::estimate {

using namespace detail;

LayerProfile profileLayers(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                           const hardware::GpuType& gpu, int tp)
{
    if (tp < 1)
        throw Error("", "tp", fmt::format("tp must be >= 1 (got {})", tp));
    LayerProfile profile;
    profile.seq = config.seq > 0 ? config.seq : model.seq;
    profile.microBatch = config.microBatch > 0 ? config.microBatch : 1;
    const double s = profile.seq, b = profile.microBatch, h = model.hidden, V = model.vocab;
    const double tokens = s * b;
    const double e = elementBytes(config.precision);
    const StateBytes bytes = stateBytes(config);
    const double perParam = bytes.weights + bytes.gradients + bytes.optimizer;
    const KernelRates rates = kernelRates(gpu, config.precision);
    const FrameworkProfile& framework = frameworkProfile(config.framework);
    const bool full = config.recompute == workload::Recompute::Full;
    const double allReduceS = ringAllReduceS(e * tokens * h, tp, gpu.intraLink);
    const bool dropout = hasDropout(model);
    const bool sp = config.sequenceParallel && tp > 1;

    LayerCost embedding;
    embedding.name = "embedding";
    embedding.parameterCount = V * h / tp + double(model.positions) * h;
    embedding.stateBytes = embedding.parameterCount * perParam;
    embedding.activationBytes = dropout ? tokens * h / (sp ? tp : 1) : 0.0;
    embedding.outputBytes = e * tokens * h;
    const PassTimes embeddingTime = embeddingPassTimes(model, config, s, b, tp, rates, framework);
    // The host bound is spread over the passes in proportion to their GPU time.
    const auto scaled = [](const PassTimes& t, double gpu) { return t.gpuS() > 0 ? gpu * t.wallS() / t.gpuS() : 0.0; };
    embedding.forwardS = scaled(embeddingTime, embeddingTime.forwardS) +
                         (tp > 1 ? allReduceS : 0.0); // vocab-parallel lookup ends in an all-reduce
    embedding.backwardS = scaled(embeddingTime, embeddingTime.backwardS);
    profile.layers.push_back(embedding);

    // An MoE layer here holds all its experts (no expert parallelism: Espresso places whole layers); its MLP's
    // tensor-parallel collectives carry the k routed copies of the tokens (docs/models/moe.md).
    const double layerFwd = tokens * layerForwardFlopsPerToken(model, s);
    const PassTimes layerTime = layerPassTimes(model, config, s, b, tp, rates, framework);
    const bool anyMoe = model.isMoe();
    const double moeFwd = anyMoe ? tokens * layerForwardFlopsPerToken(model, s, true) : 0.0;
    const PassTimes moeTime = anyMoe ? layerPassTimes(model, config, s, b, tp, rates, framework, true, 1) : PassTimes{};
    const double moeAllReduceS = (1 + (anyMoe ? routedTokenFactor(model) : 1.0)) / 2 * allReduceS;
    for (int i = 0; i < model.layers; ++i) {
        const bool moe = model.isMoeLayer(i);
        const PassTimes& time = moe ? moeTime : layerTime;
        const double collectiveS = moe ? moeAllReduceS : allReduceS;
        LayerCost layer;
        layer.name = fmt::format("layer{}", i);
        layer.flopsForward = (moe ? moeFwd : layerFwd) / tp;
        layer.forwardS = scaled(time, time.forwardS) + 2 * collectiveS;
        layer.backwardS = scaled(time, time.backwardS + time.recomputeS) + (full ? 4 : 2) * collectiveS;
        layer.parameterCount =
            moe ? moeLayerSharedParamsPerGpu(model, tp) + double(model.experts) * expertParamsPerGpu(model, tp)
                : layerParamsPerGpu(model, tp);
        layer.stateBytes = layer.parameterCount * perParam;
        layer.activationBytes = layerActivationBytes(model, config, s, b, tp, moe);
        layer.outputBytes = e * tokens * h;
        profile.layers.push_back(layer);
    }

    LayerCost head;
    head.name = "head";
    const double headFwd = tokens * headForwardFlopsPerToken(model);
    head.flopsForward = headFwd / tp;
    const PassTimes headTime = headPassTimes(model, config, s, b, tp, rates, framework);
    head.forwardS = scaled(headTime, headTime.forwardS);
    head.backwardS = scaled(headTime, headTime.backwardS);
    // With tied embeddings the head reuses the embedding matrix; listed here as the copy a separate
    // last stage needs (count it once when the head shares a stage with the embedding).
    head.parameterCount = V * h / tp + (model.bias ? 2 : 1) * h;
    head.stateBytes = head.parameterCount * perParam;
    head.activationBytes = 2 * e * tokens * h / (sp ? tp : 1) + 4 * tokens * V / tp;
    head.outputBytes = 0;
    profile.layers.push_back(head);
    return profile;
}

} // namespace orrery::estimate

#include "estimate/model_terms.h"

#include "estimate/operator_time.h"
#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace orrery::estimate::detail {

using workload::Optimizer;
using workload::Precision;
using workload::Recompute;

namespace {

/** Optimizer moments in fp32 bytes per parameter (halved for pure-half training, except the 8-bit ones). */
double momentBytes(Optimizer optimizer)
{
    switch (optimizer) {
    case Optimizer::Adam:
    case Optimizer::AdamW:
        return 8.0; // two fp32 moments
    case Optimizer::SGD:
        return 4.0; // momentum
    case Optimizer::Adam8bit:
        return 2.0; // two 8-bit block-quantised moments (Dettmers et al. 2022); block scales negligible
    case Optimizer::Adafactor:
        return 0.0; // factored second moment: r + c values per r x c matrix, no first moment (Shazeer & Stern 2018)
    }
    return 8.0;
}

} // namespace

StateBytes stateBytes(Precision precision, Optimizer optimizer, bool fp32Grads)
{
    // Mixed precision (Micikevicius et al. 2018; ZeRO, Rajbhandari et al. 2020, sec. 3.1):
    // half weights 2 + half gradients 2 + fp32 master copy 4 + optimizer moments.
    const double moments = momentBytes(optimizer);
    if (precision == Precision::FP32)
        return {4.0, 4.0, moments};
    // Megatron-Core bf16 keeps the gradient buffer in fp32 (its README: "bf16 param, fp32 grads: 18" bytes
    // per parameter without the distributed optimizer, 6 + 12/d with it).
    return {2.0, fp32Grads ? 4.0 : 2.0, 4.0 + moments};
}

bool pureHalfStates(const workload::TrainingConfig& config)
{
    if (config.precision == Precision::FP32 || config.autocast)
        return false;
    // litgpt's bf16 default is "bf16-true": the model is cast to bf16 and the optimizer runs on it.
    return config.pureHalf || (config.framework == workload::Framework::LitGpt && config.precision == Precision::BF16);
}

StateBytes stateBytes(const workload::TrainingConfig& config)
{
    if (pureHalfStates(config)) {
        // No fp32 master: weights, gradients and the moments in the compute precision (8-bit moments stay 8-bit).
        const double moments =
            config.optimizer == Optimizer::Adam8bit ? momentBytes(config.optimizer) : momentBytes(config.optimizer) / 2;
        return {2.0, 2.0, moments};
    }
    // Autocast trains fp32 parameters: the states are those of fp32 training (16 B with Adam, as mixed precision).
    const bool amp = config.autocast && config.precision != Precision::FP32;
    return stateBytes(amp ? Precision::FP32 : config.precision, config.optimizer, config.fp32Grads);
}

double elementBytes(Precision precision)
{
    return precision == Precision::FP32 ? 4.0 : 2.0;
}

BatchShape batchShape(const workload::ModelSpec& model, const workload::TrainingConfig& config, int dp)
{
    BatchShape shape;
    shape.seq = config.seq > 0 ? config.seq : model.seq;
    const int perReplica = std::max(1, (config.globalBatch + dp - 1) / std::max(1, dp));
    shape.microBatch = config.microBatch > 0 ? std::min(config.microBatch, perReplica) : perReplica;
    shape.microBatches = std::max(1, (perReplica + shape.microBatch - 1) / shape.microBatch);
    return shape;
}

namespace {

double kvWidth(const workload::ModelSpec& m)
{
    return double(m.kvHeads) * m.headDim();
}

/** Parameters of a layer that tensor parallelism splits (Megatron: column- and row-parallel matrices, column biases).
 */
double shardedLayerParams(const workload::ModelSpec& m)
{
    const double h = m.hidden;
    const double kv = kvWidth(m);
    const double f = m.ffnHidden;
    double sharded = 2 * h * h + 2 * h * kv + (m.gatedMlp ? 3 : 2) * h * f;
    if (m.bias)
        sharded += h + 2 * kv + f; // qkv and fc1 biases are split with their columns
    return sharded;
}

} // namespace

double layerParamsPerGpu(const workload::ModelSpec& model, int tp)
{
    const double sharded = shardedLayerParams(model);
    const double replicated = double(model.paramsPerLayer()) - sharded;
    return sharded / tp + replicated;
}

void checkVirtualStages(const workload::ModelSpec& model, const workload::TrainingConfig& config, int pp,
                        int microBatches)
{
    const int v = config.virtualStages;
    const auto bad = [](const std::string& what) { throw Error("", "virtual_stages", what); };
    if (v < 1)
        bad(fmt::format("expected a positive integer, got {}", v));
    if (v == 1)
        return;
    if (pp < 2)
        bad(fmt::format("{} virtual stages need a pipeline (pp >= 2, got {})", v, pp));
    if (model.layers % (pp * v) != 0)
        bad(fmt::format("the model's {} layers do not split into pp x virtual stages = {} x {} equal chunks",
                        model.layers, pp, v));
    if (microBatches % pp != 0)
        bad(fmt::format("the interleaved schedule needs a number of micro-batches divisible by pp = {} (got {})", pp,
                        microBatches));
}

bool canInterleave(const workload::ModelSpec& model, const workload::TrainingConfig& config, int pp, int microBatches)
{
    const int v = config.virtualStages;
    return v == 1 || (v > 1 && pp >= 2 && model.layers % (pp * v) == 0 && microBatches % pp == 0);
}

int effectiveVirtualStages(const workload::ModelSpec& model, const workload::TrainingConfig& config, int pp,
                           int microBatches)
{
    return canInterleave(model, config, pp, microBatches) ? config.virtualStages : 1;
}

void checkExpertParallelism(const workload::ModelSpec& model, const Parallelism& par)
{
    const auto bad = [](const std::string& what) { throw Error("", "ep", what); };
    if (par.ep < 1)
        bad(fmt::format("expected a positive integer, got {}", par.ep));
    if (par.ep == 1)
        return;
    if (!model.isMoe())
        bad(fmt::format("expert parallelism ({}) needs a mixture-of-experts model; '{}' is dense", par.ep, model.name));
    if (model.experts % par.ep != 0)
        bad(fmt::format("ep ({}) must divide the model's {} experts", par.ep, model.experts));
    if (par.dp % par.ep != 0)
        bad(fmt::format("ep ({}) must divide dp ({}): the experts are split over ranks of the data-parallel group",
                        par.ep, par.dp));
}

void checkContextParallelism(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                             const Parallelism& par)
{
    const auto bad = [](const std::string& what) { throw Error("", "cp", what); };
    if (par.cp < 1)
        bad(fmt::format("expected a positive integer, got {}", par.cp));
    if (par.cp == 1)
        return;
    if (!config.flashAttention)
        bad(fmt::format("context parallelism ({}) runs ring attention on flash attention: set flash_attn", par.cp));
    const int seq = config.seq > 0 ? config.seq : model.seq;
    if (seq % (2 * par.cp) != 0)
        bad(fmt::format("the sequence ({}) must split into 2 x cp = {} equal chunks", seq, 2 * par.cp));
}

bool hasDropout(const workload::ModelSpec& model)
{
    // LLaMA-style models and MPT (llm-foundry: attn/resid dropout 0) train without dropout.
    return model.family != "llama" && model.family != "mpt";
}

bool eagerRmsNorm(const workload::ModelSpec& model, const workload::TrainingConfig& config)
{
    return model.family == "llama" && frameworkProfile(config.framework).eagerLlamaOps;
}

int layersOnStage(int layers, int pp, int stage)
{
    return layers / pp + (stage < layers % pp ? 1 : 0);
}

int firstLayerOfStage(int layers, int pp, int stage)
{
    return stage * (layers / pp) + std::min(stage, layers % pp);
}

int moeLayersOnStage(const workload::ModelSpec& model, int pp, int stage)
{
    if (!model.isMoe())
        return 0;
    const int first = firstLayerOfStage(model.layers, pp, stage);
    const int last = first + layersOnStage(model.layers, pp, stage); // exclusive
    const int n = model.moeLayerInterval;
    // Layers i with i % n == 0 in [first, last).
    return (last + n - 1) / n - (first + n - 1) / n;
}

double moeLayerSharedParamsPerGpu(const workload::ModelSpec& model, int tp)
{
    const double h = model.hidden, f = model.ffnHidden;
    // The dense layer less its MLP (its matrices and fc1 bias split by tp, fc2 bias replicated), plus the router.
    const double mlpSharded = (model.gatedMlp ? 3 : 2) * h * f + (model.bias ? f : 0);
    const double mlpReplicated = model.bias ? h : 0;
    return layerParamsPerGpu(model, tp) - mlpSharded / tp - mlpReplicated + h * model.experts;
}

double expertParamsPerGpu(const workload::ModelSpec& model, int tp)
{
    const double h = model.hidden, f = model.expertFfn();
    const double sharded = (model.gatedMlp ? 3 : 2) * h * f + (model.bias ? f : 0);
    return sharded / tp + (model.bias ? h : 0);
}

double routedTokenFactor(const workload::ModelSpec& model)
{
    return model.capacityFactor > 0 ? model.topK * model.capacityFactor : double(model.topK);
}

StageParams stageParams(const workload::ModelSpec& model, int tp, int pp, int stage, int ep)
{
    const double h = model.hidden;
    const int moe = moeLayersOnStage(model, pp, stage);
    StageParams out;
    double& params = out.dense;
    params = (layersOnStage(model.layers, pp, stage) - moe) * layerParamsPerGpu(model, tp);
    if (moe > 0) {
        params += moe * moeLayerSharedParamsPerGpu(model, tp);
        out.experts = moe * double(model.experts) / ep * expertParamsPerGpu(model, tp);
    }
    if (stage == 0)
        params += double(model.vocab) * h / tp + double(model.positions) * h; // vocab-parallel embedding
    if (stage == pp - 1) {
        params += (model.bias ? 2 : 1) * h; // final norm
        // An untied head is its own matrix; a tied one needs a copy on the last stage when pp > 1 (Megatron).
        if (!model.tiedEmbeddings || pp > 1)
            params += double(model.vocab) * h / tp;
    }
    return out;
}

double stageLayerParamsPerGpu(const workload::ModelSpec& model, int tp, int pp, int stage, int ep)
{
    const int moe = moeLayersOnStage(model, pp, stage);
    double params = (layersOnStage(model.layers, pp, stage) - moe) * layerParamsPerGpu(model, tp);
    if (moe > 0)
        params +=
            moe * (moeLayerSharedParamsPerGpu(model, tp) + double(model.experts) / ep * expertParamsPerGpu(model, tp));
    return params;
}

double stageParamsPerGpu(const workload::ModelSpec& model, int tp, int pp, int stage)
{
    return stageParams(model, tp, pp, stage, 1).total();
}

double layerActivationBytes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                            double microBatch, int tp, bool moe)
{
    // Korthikanti et al. 2022, sec. 4.1: per layer sbh(34 + 5as/h) bytes in half precision; with tensor
    // parallelism the 24sbh of QKV/projection/MLP tensors and the 5as^2b of attention split, the 10sbh
    // of norm inputs and dropout masks do not, unless sequence parallelism splits them too (sec. 4.2.2).
    // Generalised: element size e, K/V of kv heads, MLP width f, gated MLP, no dropout for LLaMA-style models.
    const double e = elementBytes(config.precision);
    const double s = seq, b = microBatch, h = model.hidden, a = model.heads;
    // An MoE layer's experts see each token k times (k x capacity factor when padded): their MLP activations
    // are those of a dense MLP of width k f_e (docs/models/moe.md).
    const double f = moe ? routedTokenFactor(model) * model.expertFfn() : model.ffnHidden;
    const double g = double(model.kvHeads) / model.heads;
    const double sbh = s * b * h;
    const bool dropout = hasDropout(model);
    const bool sp = config.sequenceParallel && tp > 1;
    // Megatron-Core's MoE layer also keeps the router's fp32 logits and probabilities (E per token, split by
    // sequence parallelism), the permuted expert input (k tokens per token, gathered over the tp group before the
    // expert GEMMs, so not split) and the expert output that the combine weights by the probabilities.
    const double router = moe ? 2 * 4 * s * b * model.experts / (sp ? tp : 1) : 0.0;
    const double routed = moe ? 2 * elementBytes(config.precision) * routedTokenFactor(model) * sbh : 0.0;

    const bool amp = config.autocast && config.precision != Precision::FP32;
    if (config.recompute == Recompute::Full) {
        // Only each layer's input is kept (Korthikanti sec. 5: 2sbh per layer, split by t with SP); under autocast
        // that input is the fp32 residual stream.
        return (amp ? 4 : e) * sbh / (sp ? tp : 1);
    }
    if (moe && config.recompute != Recompute::SelectiveOp)
        return layerActivationBytes(model, config, seq, microBatch, tp, false) +
               (f - model.ffnHidden) * (model.gatedMlp ? 4 : 2) * e * s * b / tp + router + routed;
    if (config.recompute == Recompute::SelectiveOp) {
        // torchtitan's op-level policy saves the outputs of the attention kernel (with its fp32 log-sum-exp)
        // and of every second matmul; everything else is re-run from the layer input, which is kept.
        const double matmulOutputs =
            e * sbh * (1 + 2 * g) + e * sbh + (model.gatedMlp ? 2 : 1) * e * s * b * f + e * sbh;
        const double sharded = 0.5 * matmulOutputs + e * sbh + 4 * a * s * b;
        return sharded / tp + e * sbh / (sp ? tp : 1) + router + routed;
    }

    // Norm inputs (2), QKV input, MLP input; two dropout masks of one byte. Under autocast the norm
    // inputs sit on the fp32 residual stream.
    double replicated = (amp ? 2 * 4 + 2 * e : 4 * e) * sbh + (dropout ? 2 * sbh : 0);
    const FrameworkProfile& profile = frameworkProfile(config.framework);
    // Eager RMSNorm (x.float(), scaled by the reciprocal root, cast back, times the weight) keeps for backward an
    // fp32 tensor beside the input and output a fused norm keeps: the upcast input (from half) or the fp32
    // normalised value (under autocast or fp32, where the upcast is a no-op). 4 bytes per element, each norm.
    if (eagerRmsNorm(model, config))
        replicated += 2 * 4 * sbh;
    // Under autocast the norm's fp32 output is cast to half by each linear that reads it: separate gate and up
    // projections (unfused gated MLPs) cast and keep it twice.
    if (amp && model.gatedMlp && !profile.fusedKernels)
        replicated += e * sbh;
    // Q, K, V (K and V of kv heads), attention context (input of the output projection).
    double sharded = e * sbh * (1 + 2 * g) + e * sbh;
    // Eager rotary embedding writes rotated copies of q and k, which attention keeps; the qkv output stays alive
    // too, through the view of v.
    if (model.positions == 0 && model.family != "mpt" && !profile.fusedKernels && profile.eagerLlamaOps)
        sharded += e * sbh * (1 + g);
    // MLP: fc1 output + activation output; gated: gate, up, activation(gate) and their product.
    sharded += (model.gatedMlp ? 4 : 2) * e * s * b * f;
    const bool keepScores = config.recompute == Recompute::None && !config.flashAttention;
    if (keepScores) {
        // Softmax output (e a s^2 b); with dropout its mask (a s^2 b) and output (e a s^2 b). Autocast runs
        // softmax in fp32 and keeps the half copy that the attention x V product casts its input to.
        if (amp)
            sharded += (4 + (dropout ? 1 : 0) + e) * a * s * s * b;
        else
            sharded += (dropout ? 2 * e + 1 : e) * a * s * s * b;
    } else if (config.flashAttention) {
        // Flash attention keeps only the fp32 log-sum-exp per row (Dao et al. 2022).
        sharded += 4 * a * s * b;
    }
    return sharded / tp + replicated / (sp ? tp : 1);
}

namespace {

/** Weight-matrix multiply-adds per token of one layer: an MoE layer's router and its top-k experts (padding to
 * the capacity is work the hardware does but not model FLOPs, and is left to the time model). */
double layerMatrixMacsPerToken(const workload::ModelSpec& model, bool moe)
{
    const double h = model.hidden;
    const double mlpWidth = moe ? double(model.topK) * model.expertFfn() : double(model.ffnHidden);
    return 2 * h * h + 2 * h * kvWidth(model) + (model.gatedMlp ? 3 : 2) * h * mlpWidth +
           (moe ? h * model.experts : 0.0);
}

} // namespace

double layerForwardFlopsPerToken(const workload::ModelSpec& model, double seq, bool moe)
{
    // 2 FLOPs per multiply-add of every weight matrix, plus Q K^T and attention x V: 2 * 2 * s * h
    // (Narayanan et al. 2021, appendix; the causal mask is not discounted, as there).
    return 2 * layerMatrixMacsPerToken(model, moe) + 4 * seq * model.hidden;
}

double layerRecomputeFlopsPerToken(const workload::ModelSpec& model, double seq, Recompute recompute, bool moe)
{
    switch (recompute) {
    case Recompute::None:
        return 0;
    case Recompute::Selective:
        return 4 * seq * model.hidden; // only the attention core is re-executed (Korthikanti sec. 5)
    case Recompute::Full:
        return layerForwardFlopsPerToken(model, seq, moe);
    case Recompute::SelectiveOp:
        // Every second matmul is re-run (half the weight-matrix FLOPs); the attention output is saved.
        return 0.5 * 2 * layerMatrixMacsPerToken(model, moe);
    }
    return 0;
}

double headForwardFlopsPerToken(const workload::ModelSpec& model)
{
    return 2.0 * model.hidden * model.vocab;
}

double ringAllReduceS(double bytes, int n, const hardware::Link& link)
{
    if (n <= 1 || bytes <= 0)
        return 0;
    const double steps = 2.0 * (n - 1);
    return steps / n * bytes / (link.bandwidthGBps * 1e9) + steps * link.latencyUs * 1e-6;
}

double allToAllS(double bytes, int n, int ranksPerNode, const hardware::Link& intraNode,
                 const hardware::Link& interNode)
{
    if (n <= 1 || bytes <= 0)
        return 0;
    const int local = std::clamp(ranksPerNode, 1, n);
    const double share = bytes / n;
    const double intraS = (local - 1) * share / (intraNode.bandwidthGBps * 1e9);
    const double interS = (n - local) * share / (interNode.bandwidthGBps * 1e9);
    const double latencyS = (local - 1) * intraNode.latencyUs * 1e-6 + (n - local) * interNode.latencyUs * 1e-6;
    return std::max(intraS, interS) + latencyS;
}

double transferS(double bytes, const hardware::Link& link)
{
    if (bytes <= 0)
        return 0;
    return bytes / (link.bandwidthGBps * 1e9) + link.latencyUs * 1e-6;
}

} // namespace orrery::estimate::detail

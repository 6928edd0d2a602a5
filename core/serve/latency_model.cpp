#include "serve/latency_model.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "serve/stage_partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <numeric>

namespace orrery::serve {

namespace {

constexpr double kElementBytes = 2; // fp16 inference

workload::TrainingConfig inferenceConfig(const ServingModel& model, int batch)
{
    workload::TrainingConfig config;
    config.globalBatch = batch;
    config.microBatch = batch;
    config.seq = model.spec.seq;
    config.precision = workload::Precision::FP16;
    config.pureHalf = true;
    return config;
}

estimate::LayerProfile rawProfile(const ServingModel& model, const hardware::GpuType& gpu, int intra, int batch = 1)
{
    return estimate::profileLayers(model.computeSpec(), inferenceConfig(model, batch), gpu, intra);
}

double sumForward(const estimate::LayerProfile& p)
{
    double s = 0;
    for (const auto& l : p.layers)
        s += l.forwardS;
    return s;
}

double transferS(double bytes, const hardware::Link& link)
{
    return bytes / (link.bandwidthGBps * 1e9) + link.latencyUs * 1e-6;
}

} // namespace

double calibrationFactor(const ServingModel& model, const LatencyOptions& options)
{
    if (!options.calibrate || model.paperLatencyMs <= 0)
        return 1.0;
    const hardware::GpuType& gpu = options.calibrationGpu
                                       ? *options.calibrationGpu
                                       : hardware::GpuCatalog::builtin().at(ServingLibrary::builtin().calibrationGpu());
    const double estimated = sumForward(rawProfile(model, gpu, 1));
    return estimated > 0 ? model.paperLatencyMs * 1e-3 / estimated : 1.0;
}

std::vector<double> layerLatencies(const ServingModel& model, const hardware::GpuType& gpu, int intra,
                                   const LatencyOptions& options)
{
    const double factor = calibrationFactor(model, options);
    std::vector<double> out;
    for (const auto& l : rawProfile(model, gpu, intra).layers)
        out.push_back(l.forwardS * factor);
    return out;
}

double memoryBudget(const hardware::GpuType& gpu, const LatencyOptions& options)
{
    return options.memoryBudgetBytes > 0 ? options.memoryBudgetBytes : gpu.memoryBytes();
}

ModelProfile profileModel(const ServingModel& model, const hardware::GpuType& gpu, const ParallelConfig& config,
                          const LatencyOptions& options)
{
    if (config.intra < 1 || config.stages < 1)
        throw Error("", "config", fmt::format("parallel configuration {} needs positive degrees", config.label()));
    if (config.intra > options.gpusPerNode)
        throw Error("", "config",
                    fmt::format("intra-op degree {} exceeds the {} GPUs of a node", config.intra, options.gpusPerNode));
    const estimate::LayerProfile raw = rawProfile(model, gpu, config.intra);
    const double factor = calibrationFactor(model, options);
    std::vector<double> lat;
    for (const auto& l : raw.layers)
        lat.push_back(l.forwardS * factor);
    const StagePartition part =
        options.autoPartition ? partitionStages(lat, config.stages) : equalLayerStages(lat, config.stages);

    ModelProfile p;
    p.config = config;
    p.firstLayer = part.firstLayer;
    p.stageS = part.stageLatency;
    p.maxStageS = part.maxStageLatency;
    const int K = static_cast<int>(lat.size());
    // Scale parameter bytes so the whole model weighs what Table 1 says (the calibration point for memory).
    const double totalParams = model.paramCount();
    const double bytesPerParam = model.weightBytes() / totalParams;
    const double moeExtraPerLayer =
        model.isMoe() ? (model.experts - model.topK) * (2.0 * model.spec.hidden * model.spec.ffnHidden) +
                            double(model.spec.hidden) * model.experts
                      : 0.0;
    for (int s = 0; s < config.stages; ++s) {
        const int begin = part.firstLayer[s];
        const int end = s + 1 < config.stages ? part.firstLayer[s + 1] : K;
        double params = 0;
        for (int i = begin; i < end; ++i) {
            params += raw.layers[i].parameterCount;
            if (i > 0 && i + 1 < K) // a transformer layer: the experts the compute spec folds away
                params += moeExtraPerLayer / config.intra;
        }
        // A tied head shares the embedding's matrix when both sit on one stage.
        if (begin == 0 && end == K && model.spec.tiedEmbeddings)
            params -= double(model.spec.vocab) * model.spec.hidden / config.intra;
        p.weightBytesPerGpu = std::max(p.weightBytesPerGpu, params * bytesPerParam);
        if (s + 1 < config.stages) {
            const int lastGpuHere = (s + 1) * config.intra - 1, firstGpuNext = (s + 1) * config.intra;
            const bool sameNode = lastGpuHere / options.gpusPerNode == firstGpuNext / options.gpusPerNode;
            // Each intra-op rank sends its slice of the boundary activation, all in parallel.
            const double bytes = raw.layers[end - 1].outputBytes / config.intra;
            p.commS.push_back(transferS(bytes, sameNode ? gpu.intraLink : options.interNode));
        }
    }
    const double seq = model.spec.seq, h = model.spec.hidden;
    const double ffn = model.computeSpec().ffnHidden;
    p.workspaceBytes = kElementBytes * seq * (4 * h + ffn / config.intra) +
                       kElementBytes * (double(model.spec.heads) / config.intra) * seq * seq;
    p.latencyS =
        std::accumulate(p.stageS.begin(), p.stageS.end(), 0.0) + std::accumulate(p.commS.begin(), p.commS.end(), 0.0);
    // [CHOICE] One slope for the whole model (not per stage): calibration scales both batch sizes alike, so the
    // ratio is the estimator's own.
    const double one = sumForward(raw), two = sumForward(rawProfile(model, gpu, config.intra, 2));
    p.batchSlope = one > 0 ? std::clamp(two / one - 1, 0.0, 1.0) : 1.0;
    return p;
}

int minimalStages(const ServingModel& model, const hardware::GpuType& gpu, const LatencyOptions& options, int maxGpus)
{
    const double budget = memoryBudget(gpu, options);
    const int layers = model.spec.layers + 2;
    for (int s = 1; s <= std::min(maxGpus, layers); ++s)
        if (profileModel(model, gpu, {s, 1}, options).memoryPerGpuBytes() <= budget)
            return s;
    return 0;
}

} // namespace orrery::serve

#pragma once

// A model as AlpaServe serves it: a transformer (dense BERT or GShard-style MoE), forward pass only, one
// query at a time, with the latency and size the paper measured as a calibration point (docs/serving.md).

#include "workload/model_spec.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace orrery::serve {

struct ServingModel
{
    std::string name;
    /** The transformer; for an MoE model its ffnHidden is one expert's inner size. */
    workload::ModelSpec spec;
    int experts = 0; ///< 0: dense; otherwise every layer's MLP is `experts` experts behind a gate
    int topK = 2;    ///< experts each token visits (GShard: top-2)
    /** Table 1: one query of spec.seq tokens on one V100 (BERT-104B: its minimal inter-op degree); 0 = none. */
    double paperLatencyMs = 0;
    double paperSizeGB = 0; ///< Table 1's size (fp16 weights); 0 = none

    bool isMoe() const { return experts > 0; }
    /** Parameters from the architecture (experts counted once each, plus the gates). */
    double paramCount() const;
    /** fp16 weights: Table 1's size when given (the calibration point), else 2 bytes per parameter. */
    double weightBytes() const;
    /**
     * The dense transformer with the same forward FLOPs per token as this model: an MoE layer's top-k experts
     * run as one MLP of k times the expert size (the estimator's operator terms have no MoE kernels).
     */
    workload::ModelSpec computeSpec() const;
};

/** The serving model library: `data/serving_models.json` (format `orrery-serving-models`), or a user file. */
class ServingLibrary
{
public:
    static const ServingLibrary& builtin();
    /** Parses the format; errors name `file` and the JSON path. */
    static ServingLibrary fromJson(const nlohmann::json& doc, const std::string& file);
    static ServingLibrary fromFile(const std::string& path);

    const std::vector<ServingModel>& models() const { return m_models; }
    const ServingModel* find(const std::string& name) const; ///< case-insensitive
    /** Throws orrery::Error with a "did you mean" suggestion. */
    const ServingModel& at(const std::string& name) const;
    /** The GPU type the paper latencies were measured on (catalog name). */
    const std::string& calibrationGpu() const { return m_calibrationGpu; }

private:
    std::vector<ServingModel> m_models;
    std::string m_calibrationGpu = "v100-16gb";
};

} // namespace orrery::serve

#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace orrery::workload {

/**
 * Transformer hyper-parameters. Parameter counts are derived, never typed in:
 * embeddings (vocab + learned positions), per layer attention with grouped KV
 * heads, a plain or gated (SwiGLU) MLP, norms, and an untied output head.
 */
struct ModelSpec
{
    std::string name;
    std::string family;         ///< gpt2, bert, gpt3, llama, vit...
    int vocab = 0;              ///< V (for ViT: pixels per patch, the patch projection's input)
    int hidden = 0;             ///< h
    int layers = 0;             ///< l
    int heads = 0;              ///< a
    int kvHeads = 0;            ///< grouped-query attention; == heads for multi-head attention
    int ffnHidden = 0;          ///< MLP inner size (4h for GPT-2)
    bool gatedMlp = false;      ///< SwiGLU: three h x ffn matrices instead of two
    bool tiedEmbeddings = true; ///< output head shares the input embedding
    bool bias = true;           ///< linear-layer biases and LayerNorm (false: RMSNorm, no biases)
    int positions = 0;          ///< learned absolute position embeddings (0 for rotary)
    int seq = 1024;             ///< default sequence length
    double publishedParams = 0; ///< the size its authors publish, for checks
    std::string source;

    // Mixture of experts (docs/models/moe.md). A layer is an MoE layer when the model has more than one
    // expert and the layer's index i satisfies i % moeLayerInterval == 0 (Megatron-Core's --moe-layer-freq);
    // its MLP is replaced by a router (h x E) and `experts` MLPs of width expertFfnHidden, of which each
    // token runs topK.
    int experts = 1;          ///< E: routed experts per MoE layer; 1 = a dense model
    int topK = 1;             ///< k: experts each token is routed to
    int expertFfnHidden = 0;  ///< each expert's MLP inner size (the model's ffnHidden when 0)
    int moeLayerInterval = 1; ///< every n-th layer is an MoE layer (DeepSpeed-MoE's expert interval: 2)
    /** 0: dropless routing (Megatron-Core's default); > 0: each expert takes at most cf * k * T / E tokens and
     *  is padded to that capacity (GShard, Switch, DeepSpeed-MoE). */
    double capacityFactor = 0;

    int headDim() const { return hidden / heads; }
    std::int64_t embeddingParams() const;
    std::int64_t paramsPerLayer() const;
    std::int64_t headParams() const; ///< 0 when tied
    std::int64_t paramCount() const;

    bool isMoe() const { return experts > 1; }
    bool isMoeLayer(int layer) const { return isMoe() && layer % moeLayerInterval == 0; }
    int moeLayerCount() const; ///< layers whose MLP is a mixture of experts
    int expertFfn() const { return expertFfnHidden > 0 ? expertFfnHidden : ffnHidden; }
    std::int64_t expertParams() const;      ///< one expert's MLP (matrices and biases)
    std::int64_t paramsPerMoeLayer() const; ///< attention, norms, router and every expert
    /** Parameters one token runs through: every dense weight and the top-k experts of each MoE layer. */
    std::int64_t activeParamCount() const;

    bool operator==(const ModelSpec&) const = default;
};

/** Reads a model object (library entry, scenario `models[]`, or a model file) at `path`. */
ModelSpec modelSpecFromJson(const nlohmann::json& value, const std::string& path);
nlohmann::json modelSpecToJson(const ModelSpec& model);
/** Human size: `124M`, `6.7B`. */
std::string formatParams(double params);

} // namespace orrery::workload

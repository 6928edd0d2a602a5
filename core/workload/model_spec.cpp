#include "workload/model_spec.h"

#include "io/json_reader.h"
#include "io/limits.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace orrery::workload {

std::int64_t ModelSpec::embeddingParams() const
{
    return std::int64_t(vocab) * hidden + std::int64_t(positions) * hidden;
}

std::int64_t ModelSpec::paramsPerLayer() const
{
    const std::int64_t h = hidden;
    const std::int64_t kv = std::int64_t(kvHeads) * headDim();
    const std::int64_t f = ffnHidden;
    std::int64_t attention = 2 * h * h + 2 * h * kv; // q, o; k, v
    std::int64_t mlp = (gatedMlp ? 3 : 2) * h * f;
    std::int64_t norms = 2 * h; // two norms, weight only (RMSNorm)
    if (bias) {
        attention += 2 * h + 2 * kv;
        mlp += f + h;
        norms += 2 * h; // LayerNorm biases
    }
    return attention + mlp + norms;
}

int ModelSpec::moeLayerCount() const
{
    if (!isMoe())
        return 0;
    return (layers + moeLayerInterval - 1) / moeLayerInterval; // layers 0, n, 2n, ...
}

std::int64_t ModelSpec::expertParams() const
{
    const std::int64_t h = hidden, f = expertFfn();
    return (gatedMlp ? 3 : 2) * h * f + (bias ? f + h : 0);
}

std::int64_t ModelSpec::paramsPerMoeLayer() const
{
    const std::int64_t h = hidden, f = ffnHidden;
    const std::int64_t denseMlp = (gatedMlp ? 3 : 2) * h * f + (bias ? f + h : 0);
    const std::int64_t router = h * experts; // Megatron-Core's TopKRouter: one h x E weight, no bias
    return paramsPerLayer() - denseMlp + router + std::int64_t(experts) * expertParams();
}

std::int64_t ModelSpec::activeParamCount() const
{
    return paramCount() - std::int64_t(moeLayerCount()) * (experts - topK) * expertParams();
}

std::int64_t ModelSpec::headParams() const
{
    return tiedEmbeddings ? 0 : std::int64_t(vocab) * hidden;
}

std::int64_t ModelSpec::paramCount() const
{
    const std::int64_t finalNorm = (bias ? 2 : 1) * std::int64_t(hidden);
    const int moe = moeLayerCount();
    return embeddingParams() + (layers - moe) * paramsPerLayer() + moe * paramsPerMoeLayer() + finalNorm + headParams();
}

ModelSpec modelSpecFromJson(const nlohmann::json& value, const std::string& path)
{
    io::JsonObject o(value, path);
    ModelSpec m;
    m.name = o.string("name");
    m.family = o.string("family", "custom");
    m.vocab = static_cast<int>(o.integer("vocab", 1, io::limits::kMaxInt));
    m.hidden = static_cast<int>(o.integer("hidden", 1, io::limits::kMaxInt));
    m.layers = static_cast<int>(o.integer("layers", 1, io::limits::kMaxInt));
    m.heads = static_cast<int>(o.integer("heads", 1, io::limits::kMaxInt));
    m.kvHeads = static_cast<int>(o.integer("kv_heads", m.heads, 1, io::limits::kMaxInt));
    m.ffnHidden = static_cast<int>(o.integer("ffn_hidden", 4LL * m.hidden, 1, io::limits::kMaxInt));
    m.gatedMlp = o.boolean("gated_mlp", false);
    m.tiedEmbeddings = o.boolean("tied_embeddings", true);
    m.bias = o.boolean("bias", !m.gatedMlp);
    m.positions = static_cast<int>(o.integer("positions", 0, 0, io::limits::kMaxInt));
    m.seq = static_cast<int>(o.integer("seq", 1024, 1, io::limits::kMaxInt));
    m.publishedParams = o.nonNegativeNumber("published_params", 0);
    m.source = o.string("source", "");
    m.experts = static_cast<int>(o.integer("experts", 1, 1, io::limits::kMaxInt));
    m.topK = static_cast<int>(o.integer("top_k", 1, 1, io::limits::kMaxInt));
    m.expertFfnHidden = static_cast<int>(o.integer("expert_ffn_hidden", 0, 0, io::limits::kMaxInt));
    m.moeLayerInterval = static_cast<int>(o.integer("moe_layer_interval", 1, 1, io::limits::kMaxInt));
    m.capacityFactor = o.nonNegativeNumber("capacity_factor", 0);
    if (m.topK > m.experts)
        o.fail("top_k", fmt::format("top_k ({}) exceeds the number of experts ({})", m.topK, m.experts));
    if (m.hidden % m.heads != 0)
        o.fail("heads", fmt::format("hidden ({}) must be a multiple of heads ({})", m.hidden, m.heads));
    if (m.heads % m.kvHeads != 0)
        o.fail("kv_heads", fmt::format("heads ({}) must be a multiple of kv_heads ({})", m.heads, m.kvHeads));
    o.finish();
    return m;
}

nlohmann::json modelSpecToJson(const ModelSpec& m)
{
    nlohmann::json j = {{"name", m.name},
                        {"family", m.family},
                        {"vocab", m.vocab},
                        {"hidden", m.hidden},
                        {"layers", m.layers},
                        {"heads", m.heads},
                        {"kv_heads", m.kvHeads},
                        {"ffn_hidden", m.ffnHidden},
                        {"gated_mlp", m.gatedMlp},
                        {"tied_embeddings", m.tiedEmbeddings},
                        {"bias", m.bias},
                        {"positions", m.positions},
                        {"seq", m.seq}};
    if (m.isMoe()) {
        j["experts"] = m.experts;
        j["top_k"] = m.topK;
        if (m.expertFfnHidden > 0)
            j["expert_ffn_hidden"] = m.expertFfnHidden;
        if (m.moeLayerInterval != 1)
            j["moe_layer_interval"] = m.moeLayerInterval;
        if (m.capacityFactor > 0)
            j["capacity_factor"] = m.capacityFactor;
    }
    if (m.publishedParams > 0)
        j["published_params"] = m.publishedParams;
    if (!m.source.empty())
        j["source"] = m.source;
    return j;
}

std::string formatParams(double p)
{
    if (p >= 1e9)
        return fmt::format("{:.3g}B", p / 1e9);
    if (p >= 1e6)
        return fmt::format("{:.0f}M", p / 1e6);
    return fmt::format("{:.0f}K", p / 1e3);
}

} // namespace orrery::workload

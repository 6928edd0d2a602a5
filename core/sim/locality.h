#pragma once

#include "io/scenario.h"
#include "workload/job.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace orrery::sim {

/** How far an allocation spreads: one GPU, one node, nodes of one rack, or beyond (nodes without a rack). */
enum class Span : std::uint8_t { Gpu, Node, Rack, Cluster };
const char* toString(Span span);

/** A model name as locality tables key it: lower case, Gavel's " (batch size N)" cut, letters and digits only. */
std::string localityKey(const std::string& model);

/**
 * Chronus' measured placement table (`model_info.json`): per model, per total GPU count, per number of
 * nodes spanned, the speed relative to the same GPUs in one node.
 */
struct MeasuredLocality
{
    std::map<std::string, std::map<int, std::map<int, double>>> speed; ///< key -> gpus -> nodes -> relative speed

    /** Throws orrery::Error naming the file and the JSON path of a malformed entry. */
    static MeasuredLocality fromFile(const std::string& path);
    static MeasuredLocality fromJsonText(const std::string& text, const std::string& fileLabel);
};

/**
 * The locality model (docs/simulator.md, "Locality"): a rate multiplier for a job's allocation, from its
 * span and node count. Throughput sources answer for GPUs within one node, so one node (and one GPU) is
 * always 1; the model prices spreading:
 * - uniform: options.crossNodeSlowdown for any allocation over several nodes (Orrery's default);
 * - by_span: per model class, Themis' slowdowns S by span; the multiplier is S(node) / S(span);
 * - measured: Chronus' table per (model, GPUs, nodes); models it lacks keep the uniform factor.
 */
class LocalityModel
{
public:
    /** Uniform with factor 1 (no locality). */
    LocalityModel() = default;
    /** Throws orrery::Error with the options path (`options.locality.*`) on bad values or an unreadable table. */
    explicit LocalityModel(const io::ScenarioOptions& options);

    const std::string& model() const { return m_model; }
    /** A job's row in the model (its class, or its measured model), resolved once per job; -1 = none. */
    int keyOf(const workload::Job& job) const;
    /** Rate multiplier for `gpus` GPUs over `nodes` nodes at `span`, for a job of key `key`. */
    double factor(int key, int gpus, int nodes, Span span) const
    {
        if (nodes <= 1)
            return 1.0;
        if (m_kind == Kind::Uniform)
            return m_crossNode;
        return spreadFactor(key, gpus, nodes, span);
    }

    /** The built-in by_span classes: S at node, rack, cluster span (Themis; docs/simulator.md). */
    static const std::map<std::string, std::array<double, 3>>& builtinClasses();
    /** The built-in model -> class map (Themis' network- and compute-intensive models). */
    static const std::map<std::string, std::string>& builtinModelClasses();

private:
    enum class Kind { Uniform, BySpan, Measured };
    double spreadFactor(int key, int gpus, int nodes, Span span) const;

    Kind m_kind = Kind::Uniform;
    std::string m_model = "uniform";
    double m_crossNode = 1.0;
    // by_span
    std::vector<std::array<double, 3>> m_classS;
    std::map<std::string, int> m_classOfModel;
    int m_defaultClass = -1;
    // measured, one row per model
    std::vector<std::map<int, std::map<int, double>>> m_rows;
    std::map<std::string, int> m_rowOfModel;
};

} // namespace orrery::sim

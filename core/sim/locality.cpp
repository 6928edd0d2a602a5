#include "sim/locality.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "util/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace orrery::sim {

const char* toString(Span span)
{
    switch (span) {
    case Span::Gpu:
        return "gpu";
    case Span::Node:
        return "node";
    case Span::Rack:
        return "rack";
    case Span::Cluster:
        return "cluster";
    }
    return "cluster";
}

std::string localityKey(const std::string& model)
{
    std::string name = model;
    if (const auto paren = name.find(" ("); paren != std::string::npos)
        name.resize(paren); // Gavel's job types: "ResNet-50 (batch size 32)"
    std::string key;
    for (char c : name)
        if (std::isalnum(static_cast<unsigned char>(c)))
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return key;
}

namespace {

int positiveKey(const std::string& text, const std::string& fileLabel, const std::string& path)
{
    int v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 1)
        throw Error(fileLabel, path, fmt::format("expected a positive integer key, got \"{}\"", text));
    return v;
}

} // namespace

MeasuredLocality MeasuredLocality::fromFile(const std::string& path)
{
    const std::string text = util::readFile(path);
    return fromJsonText(text, util::baseName(path));
}

MeasuredLocality MeasuredLocality::fromJsonText(const std::string& text, const std::string& fileLabel)
{
    const nlohmann::json doc = io::parseJson(text, fileLabel);
    if (!doc.is_object() || doc.empty())
        throw Error(fileLabel, "", "expected an object of models, got " + io::describeJson(doc));
    MeasuredLocality out;
    for (const auto& [model, byGpus] : doc.items()) {
        if (!byGpus.is_object())
            throw Error(fileLabel, model, "expected an object of GPU counts, got " + io::describeJson(byGpus));
        const std::string key = localityKey(model);
        if (key.empty() || out.speed.count(key))
            throw Error(fileLabel, model, fmt::format("model \"{}\" is empty or listed twice", model));
        auto& row = out.speed[key];
        for (const auto& [gpus, byNodes] : byGpus.items()) {
            const std::string gpath = model + "." + gpus;
            const int g = positiveKey(gpus, fileLabel, gpath);
            if (!byNodes.is_object())
                throw Error(fileLabel, gpath, "expected an object of node counts, got " + io::describeJson(byNodes));
            for (const auto& [nodes, speed] : byNodes.items()) {
                const std::string npath = gpath + "." + nodes;
                const int n = positiveKey(nodes, fileLabel, npath);
                if (n > g)
                    throw Error(fileLabel, npath, fmt::format("{} GPUs cannot span {} nodes", g, n));
                if (!speed.is_number() || !(speed.get<double>() > 0) || !std::isfinite(speed.get<double>()))
                    throw Error(fileLabel, npath, "expected a positive relative speed, got " + io::describeJson(speed));
                row[g][n] = speed.get<double>();
            }
        }
    }
    return out;
}

const std::map<std::string, std::array<double, 3>>& LocalityModel::builtinClasses()
{
    // S at span node, rack, cluster. "network" and "compute": the Themis spec's choice 10 (slot 1.0,
    // machine 1.1, rack 1.3, cross-rack 1.6; compute 1.0, 1.0, 1.02, 1.05), without the slot level Orrery
    // does not model. "default": Themis' own starting estimates (one machine 1.0, across machines 1.1,
    // across racks 1.3; its footnote 3) for jobs of unknown sensitivity.
    static const std::map<std::string, std::array<double, 3>> classes = {
        {"network", {1.1, 1.3, 1.6}},
        {"compute", {1.0, 1.02, 1.05}},
        {"default", {1.0, 1.1, 1.3}},
    };
    return classes;
}

const std::map<std::string, std::string>& LocalityModel::builtinModelClasses()
{
    // Themis' network-intensive and compute-intensive models (spec choice 10); "lm" is Gavel's language model.
    static const std::map<std::string, std::string> map = {
        {"vgg16", "network"},       {"vgg19", "network"},     {"alexnet", "network"}, {"gnmt", "network"},
        {"transformer", "network"}, {"langmodel", "network"}, {"lm", "network"},      {"inceptionv3", "compute"},
        {"resnet50", "compute"},    {"biattflow", "compute"}, {"wavenet", "compute"}, {"deepspeech", "compute"},
    };
    return map;
}

LocalityModel::LocalityModel(const io::ScenarioOptions& options)
    : m_model(options.locality.model), m_crossNode(options.crossNodeSlowdown)
{
    const io::LocalityOptions& lo = options.locality;
    if (lo.model == "uniform")
        return;
    if (lo.model == "by_span") {
        m_kind = Kind::BySpan;
        auto classes = builtinClasses();
        for (const auto& [name, s] : lo.classes)
            classes[name] = s;
        std::map<std::string, int> classIndex;
        for (const auto& [name, s] : classes) {
            if (!(s[0] >= 1 && s[0] <= s[1] && s[1] <= s[2]) || !std::isfinite(s[2]))
                throw Error("", "options.locality.classes." + name,
                            fmt::format("expected slowdowns S >= 1 that never fall with the span (node <= rack <= "
                                        "cluster), got {}, {}, {}",
                                        s[0], s[1], s[2]));
            classIndex[name] = static_cast<int>(m_classS.size());
            m_classS.push_back(s);
        }
        auto classOf = [&](const std::string& name, const std::string& path) {
            const auto it = classIndex.find(name);
            if (it == classIndex.end()) {
                std::string names;
                for (const auto& c : classIndex)
                    names += (names.empty() ? "" : ", ") + c.first;
                throw Error("", path, fmt::format("unknown locality class \"{}\" (known: {})", name, names));
            }
            return it->second;
        };
        for (const auto& [model, cls] : builtinModelClasses())
            m_classOfModel[model] = classOf(cls, "options.locality.model_classes");
        for (const auto& [model, cls] : lo.modelClasses)
            m_classOfModel[localityKey(model)] = classOf(cls, "options.locality.model_classes." + model);
        m_defaultClass =
            classOf(lo.defaultClass.empty() ? "default" : lo.defaultClass, "options.locality.default_class");
        return;
    }
    if (lo.model == "measured") {
        m_kind = Kind::Measured;
        if (lo.table.empty())
            throw Error("", "options.locality.table", "the measured locality model needs a table (model_info.json)");
        std::string text;
        try {
            text = util::readFile(lo.table);
        } catch (const Error& e) {
            throw Error("", "options.locality.table", e.what());
        }
        MeasuredLocality table = MeasuredLocality::fromJsonText(text, util::baseName(lo.table));
        for (auto& [model, row] : table.speed) {
            m_rowOfModel[model] = static_cast<int>(m_rows.size());
            m_rows.push_back(std::move(row));
        }
        return;
    }
    throw Error("", "options.locality.model",
                fmt::format("unknown locality model \"{}\" (expected uniform, by_span or measured)", lo.model));
}

int LocalityModel::keyOf(const workload::Job& job) const
{
    if (m_kind == Kind::Uniform)
        return -1;
    const std::string& name = job.kind == workload::JobKind::Serverless ? job.model
                              : !job.arch.empty()                       ? job.arch
                                                                        : job.jobType;
    const std::string key = localityKey(name);
    if (m_kind == Kind::BySpan) {
        const auto it = m_classOfModel.find(key);
        return it == m_classOfModel.end() ? m_defaultClass : it->second;
    }
    const auto it = m_rowOfModel.find(key);
    return it == m_rowOfModel.end() ? -1 : it->second;
}

double LocalityModel::spreadFactor(int key, int gpus, int nodes, Span span) const
{
    if (m_kind == Kind::BySpan) {
        const auto& s = m_classS[static_cast<std::size_t>(key)];
        return s[0] / (span == Span::Rack ? s[1] : s[2]);
    }
    if (key < 0)
        return m_crossNode; // a model the table lacks keeps the uniform factor
    // The largest profiled count at or below `gpus` (else the smallest), then the fewest profiled nodes at or
    // above `nodes` (else the most): a conservative reading between profiled points.
    const auto& row = m_rows[static_cast<std::size_t>(key)];
    auto g = row.upper_bound(gpus);
    if (g != row.begin())
        --g;
    const auto& byNodes = g->second;
    auto n = byNodes.lower_bound(nodes);
    if (n == byNodes.end())
        --n;
    // A spread placement is never faster than a packed one: the table's one value above 1 (inception_v3,
    // 2 GPUs over 2 nodes: 1.0025) is measurement noise.
    return std::min(1.0, n->second);
}

} // namespace orrery::sim

#include "hardware/cluster_spec.h"

#include "io/error.h"
#include "io/limits.h"
#include "util/text.h"

#include <fmt/format.h>

#include <charconv>

namespace orrery::hardware {

namespace {

int positive(const std::string& text, const std::string& item)
{
    int v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 1)
        throw Error(fmt::format("cluster spec item \"{}\": expected a positive integer, got \"{}\"", item, text));
    return v;
}

} // namespace

std::vector<NodeGroup> parseClusterSpec(const std::string& spec, int defaultGpusPerNode, const GpuCatalog& catalog)
{
    std::vector<NodeGroup> groups;
    long long total = 0;
    for (const auto& raw : util::split(spec, ',')) {
        const std::string item = util::trim(raw);
        const auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0)
            throw Error(fmt::format("cluster spec item \"{}\": expected TYPE:GPUS[/GPUS_PER_NODE], e.g. v100:36 or "
                                    "a100:64/8",
                                    item));
        const std::string type = util::toLower(util::trim(item.substr(0, colon)));
        std::string counts = util::trim(item.substr(colon + 1));
        int perNode = defaultGpusPerNode;
        if (const auto slash = counts.find('/'); slash != std::string::npos) {
            perNode = positive(util::trim(counts.substr(slash + 1)), item);
            counts = util::trim(counts.substr(0, slash));
        }
        const int gpus = positive(counts, item);
        if (perNode > io::limits::kMaxGpusPerNode)
            throw Error(fmt::format("cluster spec item \"{}\": at most {} GPUs per node, got {}", item,
                                    io::limits::kMaxGpusPerNode, perNode));
        total += gpus;
        if (total > io::limits::kMaxClusterGpus)
            throw Error(fmt::format("cluster spec item \"{}\": the cluster would have {} GPUs, more than the {} a "
                                    "cluster may have",
                                    item, total, io::limits::kMaxClusterGpus));
        if (!catalog.find(type)) {
            try {
                catalog.at(type);
            } catch (const Error& e) {
                throw Error(fmt::format("cluster spec item \"{}\": {}", item, e.message()));
            }
        }
        for (const auto& g : groups)
            if (g.name == type)
                throw Error(fmt::format("cluster spec item \"{}\": GPU type \"{}\" appears twice", item, type));
        const std::string canonical = catalog.at(type).name;
        const int full = gpus / perNode;
        if (full > 0)
            groups.push_back(NodeGroup{type, canonical, full, perNode, std::nullopt});
        if (gpus % perNode)
            groups.push_back(NodeGroup{type + "-rest", canonical, 1, gpus % perNode, std::nullopt});
    }
    if (groups.empty())
        throw Error("empty cluster spec: expected TYPE:GPUS[/GPUS_PER_NODE],..., e.g. v100:36,p100:36,k80:36");
    return groups;
}

} // namespace orrery::hardware

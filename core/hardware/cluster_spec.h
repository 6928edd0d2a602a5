#pragma once

#include "hardware/cluster.h"

#include <string>
#include <vector>

namespace orrery::hardware {

/**
 * Parses a compact cluster description, `TYPE:GPUS[/GPUS_PER_NODE],...`, e.g.
 * `v100:36,p100:36,k80:36` or `a100:64/8,t4:10/2`: GPUS of each type in nodes
 * of GPUS_PER_NODE (default `defaultGpusPerNode`). When the nodes do not divide
 * the count, the remainder is one smaller node (its own group, `<type>-rest`).
 * Types resolve in `catalog` (names or aliases); group names are the types as
 * written, lower-cased. Throws orrery::Error naming the bad item.
 */
std::vector<NodeGroup> parseClusterSpec(const std::string& spec, int defaultGpusPerNode, const GpuCatalog& catalog);

} // namespace orrery::hardware

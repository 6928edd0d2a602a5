#pragma once

#include <string>

namespace orrery::hardware {

enum class LinkKind { PCIe, NVLink, InfinityFabric, Ethernet, InfiniBand };

std::string toString(LinkKind kind);
/** Parses `pcie`, `nvlink`, `infinity-fabric`, `ethernet`, `infiniband`; throws orrery::Error. */
LinkKind linkKindFromString(const std::string& text);

/** A point-to-point bandwidth figure: per-GPU, unidirectional. */
struct Link
{
    LinkKind kind = LinkKind::PCIe;
    double bandwidthGBps = 16.0;
    double latencyUs = 5.0;

    bool operator==(const Link&) const = default;
};

} // namespace orrery::hardware

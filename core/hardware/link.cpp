#include "hardware/link.h"

#include "io/error.h"

namespace orrery::hardware {

std::string toString(LinkKind kind)
{
    switch (kind) {
    case LinkKind::PCIe:
        return "pcie";
    case LinkKind::NVLink:
        return "nvlink";
    case LinkKind::InfinityFabric:
        return "infinity-fabric";
    case LinkKind::Ethernet:
        return "ethernet";
    case LinkKind::InfiniBand:
        return "infiniband";
    }
    return "pcie";
}

LinkKind linkKindFromString(const std::string& text)
{
    for (LinkKind k :
         {LinkKind::PCIe, LinkKind::NVLink, LinkKind::InfinityFabric, LinkKind::Ethernet, LinkKind::InfiniBand})
        if (toString(k) == text)
            return k;
    throw Error("expected one of pcie, nvlink, infinity-fabric, ethernet, infiniband, got \"" + text + "\"");
}

} // namespace orrery::hardware

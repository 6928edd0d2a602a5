#pragma once

namespace orrery {

/** Bytes in a GiB: memory sizes are stored in bytes and shown, and given in catalogs, in GiB. */
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace orrery

#pragma once

#include <string>

namespace orrery::store {

/** Now, as ISO 8601 UTC with milliseconds (`2025-03-01T12:34:56.789Z`): sorts as text, parses in pandas. */
std::string utcNowIso();

} // namespace orrery::store

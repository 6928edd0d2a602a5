#pragma once

#include <string>

namespace orrery::store {

/**
 * A new run's identity across stores: 32 lower-case hex digits (128 random bits). Run ids are per file, so
 * `runs merge` recognises a run it has copied before by this, whatever the files are called or where they
 * moved (docs/database.md, "Merging stores").
 */
std::string newRunUid();

} // namespace orrery::store

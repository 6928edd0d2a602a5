#pragma once

#include <cstdint>

namespace orrery::store {

class Connection;

/** `PRAGMA application_id` of an Orrery run store: "ORRY" in ASCII, so `file` and hex dumps recognise it. */
inline constexpr std::int32_t kApplicationId = 0x4f525259;

/** Number of migrations; a database at this `PRAGMA user_version` is current. */
int schemaVersion();

/**
 * Brings a database from its `user_version` up to `target` (default: the
 * current version): a new file (version 0) in one transaction, an existing
 * store one transaction per migration so a failure leaves the last complete
 * version. Stamps the application id on the first one.
 * Safe when several processes create or migrate one file at once: each
 * migration runs once, under the write lock, and the others find it done.
 */
void migrate(Connection& db, int target = -1);

} // namespace orrery::store

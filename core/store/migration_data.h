#pragma once

namespace orrery::store {

class Connection;

/**
 * The data step of the migration to schema `version`, after its SQL has run in the same transaction: rows of an
 * older layout rewritten into the new one (docs/database.md). Versions without one are left as they are.
 */
void migrateData(Connection& db, int version);

} // namespace orrery::store

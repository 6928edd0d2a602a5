#pragma once

#include "sqlite_api.h"

namespace orrery::sqlext {

struct TableSpec;

/**
 * Registers `spec` as an eponymous-only, read-only virtual table module on `db`: `SELECT ... FROM <name>`
 * reads the main schema's chunk table and yields one row per record. Returns an SQLite result code.
 */
int registerChunkTable(sqlite3* db, const TableSpec& spec);

} // namespace orrery::sqlext

// The loadable SQLite extension `orrery_sqlite` (docs/database.md, "Plain SQL over the chunks"): eponymous virtual
// tables jobs, intervals, utilization, decisions, job_events, gpus and rate_segments that read a run store's column
// chunks as one row per record.

#include "chunk_decoder.h"
#include "chunk_vtab.h"
#include "tables.h"

#include <array>

SQLITE_EXTENSION_INIT1

namespace {

int registerTables(sqlite3* db, char** error, const sqlite3_api_routines* api)
{
    SQLITE_EXTENSION_INIT2(api);
    // sqlite3_index_info::estimatedRows, which the tables set, came with SQLite 3.8.2.
    if (sqlite3_libversion_number() < 3008002) {
        *error = sqlite3_mprintf("orrery_sqlite needs SQLite 3.8.2 or later, this is %s", sqlite3_libversion());
        return SQLITE_ERROR;
    }
    using namespace orrery::sqlext;
    const std::array specs{&jobsTable(),      &intervalsTable(), &utilizationTable(), &decisionsTable(),
                           &jobEventsTable(), &gpusTable(),      &rateSegmentsTable()};
    for (const TableSpec* spec : specs) {
        if (const int rc = registerChunkTable(db, *spec); rc != SQLITE_OK) {
            *error = sqlite3_mprintf("orrery_sqlite: cannot register the %s table: %s", spec->name, sqlite3_errstr(rc));
            return rc;
        }
    }
    return SQLITE_OK;
}

} // namespace

#define ORRERY_SQLITE_EXPORT extern "C" __attribute__((visibility("default")))

/** What `.load .../orrery_sqlite` calls: SQLite derives the name from the file name. */
ORRERY_SQLITE_EXPORT int sqlite3_orrerysqlite_init(sqlite3* db, char** error, const sqlite3_api_routines* api)
{
    return registerTables(db, error, api);
}

/** The generic entry point, for loaders given no name. */
ORRERY_SQLITE_EXPORT int sqlite3_extension_init(sqlite3* db, char** error, const sqlite3_api_routines* api)
{
    return registerTables(db, error, api);
}

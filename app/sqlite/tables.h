#pragma once

namespace orrery::sqlext {

struct TableSpec;

// The virtual tables, named and shaped like the plain tables of store schemas before the chunks
// (docs/database.md, "Plain SQL over the chunks").
const TableSpec& jobsTable();
const TableSpec& intervalsTable();
const TableSpec& utilizationTable();
const TableSpec& decisionsTable();
/** Schema 6's event chunks as the plain job_events table of schema 5. */
const TableSpec& jobEventsTable();
/** Schema 7's rate segment chunks, one row per segment (there never was a plain table of them). */
const TableSpec& rateSegmentsTable();
/** Schema 11's GPU chunks as the plain gpus table of schemas 1-10. */
const TableSpec& gpusTable();

} // namespace orrery::sqlext

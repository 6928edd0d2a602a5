#pragma once

// Every file of the extension calls SQLite through the routine table the host passes to the entry point
// (sqlite3ext.h maps sqlite3_* names onto it), so the module links no SQLite of its own and uses the
// host's, whichever it is: the sqlite3 shell's, Python's or an application's.
#include <sqlite3ext.h>

SQLITE_EXTENSION_INIT3

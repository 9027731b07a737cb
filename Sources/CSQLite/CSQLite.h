// SQLite 3 from Debian's libsqlite3-dev (pkg-config `sqlite3`): the heap snapshot file format.
#ifndef CSQLITE_H
#define CSQLITE_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` (SQLite copies the bound text or blob before the call returns): the macro is a
/// cast Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif

#ifndef CHIRPER_CSQLITE_H
#define CHIRPER_CSQLITE_H
// SQLite (libsqlite3), for the quiz's store.
//
// libsqlite3 is not linked: it is loaded with dlopen by the first store that opens (CLazyLibrary.h), so a session
// without a quiz never loads it. The `sqlite3_*` functions declared by <sqlite3.h> that this program uses are
// defined by this target, each calling libsqlite3's through a pointer looked up at load time. Call
// `chirper_sqlite_load` before anything else: it reports a missing library as an error. Without the library a
// forwarder returns SQLITE_ERROR (SQLITE_CANTOPEN for sqlite3_open_v2, NULL for a pointer), and
// sqlite3_errmsg/sqlite3_errstr return the reason.
#include <sqlite3.h>
#include <stddef.h>

/// Loads libsqlite3.so.0 and looks up every `sqlite3_*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_sqlite_load(char *error, size_t size);

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: sqlite3 copies the
// bound text or blob before the call returns.
static inline int chirper_sqlite3_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}

#endif

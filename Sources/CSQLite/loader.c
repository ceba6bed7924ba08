// Loads libsqlite3 on demand (see include/CSQLite.h): the `sqlite3_*` functions the Swift code calls are this
// file's forwarders to libsqlite3's own (CLazyLibrary.h). CHIRPER_LIBSQLITE names another file to load (tests
// name a missing one).
#include "CSQLite.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library).
#define CHIRPER_SQLITE_FUNCTIONS(X) \
    X(int, sqlite3_open_v2, (const char *filename, sqlite3 **db, int flags, const char *vfs), (filename, db, flags, vfs), SQLITE_CANTOPEN) \
    X(int, sqlite3_close_v2, (sqlite3 *db), (db), SQLITE_ERROR) \
    X(int, sqlite3_busy_timeout, (sqlite3 *db, int ms), (db, ms), SQLITE_ERROR) \
    X(int, sqlite3_exec, (sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *argument, char **message), (db, sql, callback, argument, message), SQLITE_ERROR) \
    X(const char *, sqlite3_errmsg, (sqlite3 *db), (db), chirper_lazy_failure) \
    X(const char *, sqlite3_errstr, (int code), (code), chirper_lazy_failure) \
    X(int, sqlite3_prepare_v2, (sqlite3 *db, const char *sql, int bytes, sqlite3_stmt **statement, const char **tail), (db, sql, bytes, statement, tail), SQLITE_ERROR) \
    X(int, sqlite3_step, (sqlite3_stmt *statement), (statement), SQLITE_ERROR) \
    X(int, sqlite3_finalize, (sqlite3_stmt *statement), (statement), SQLITE_ERROR) \
    X(int, sqlite3_bind_double, (sqlite3_stmt *statement, int index, double value), (statement, index, value), SQLITE_ERROR) \
    X(int, sqlite3_bind_int64, (sqlite3_stmt *statement, int index, sqlite3_int64 value), (statement, index, value), SQLITE_ERROR) \
    X(int, sqlite3_bind_null, (sqlite3_stmt *statement, int index), (statement, index), SQLITE_ERROR) \
    X(int, sqlite3_bind_text, (sqlite3_stmt *statement, int index, const char *text, int bytes, void (*destructor)(void *)), (statement, index, text, bytes, destructor), SQLITE_ERROR) \
    X(int, sqlite3_column_count, (sqlite3_stmt *statement), (statement), 0) \
    X(int, sqlite3_column_type, (sqlite3_stmt *statement, int column), (statement, column), SQLITE_NULL) \
    X(double, sqlite3_column_double, (sqlite3_stmt *statement, int column), (statement, column), 0) \
    X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *statement, int column), (statement, column), 0) \
    X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *statement, int column), (statement, column), NULL)

CHIRPER_LAZY_LIBRARY(sqlite, "libsqlite3.so.0", "CHIRPER_LIBSQLITE", CHIRPER_SQLITE_FUNCTIONS, CHIRPER_LAZY_NONE,
                     CHIRPER_LAZY_NONE)

#ifndef MIGRATIONKIT_CSQLCIPHER_SHIM_H
#define MIGRATIONKIT_CSQLCIPHER_SHIM_H

// sqlite3_key and sqlite3_rekey are only declared when SQLITE_HAS_CODEC is
// defined, and SQLCipher's pkg-config file does not define it.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif

// Explicit path: the system's own <sqlite3.h> (libsqlite3-dev) must never be
// picked up, since libsqlite3 and libsqlcipher export the same symbols.
#include <sqlcipher/sqlite3.h>

// Where in its SQL the last error happened (a byte offset), or -1: SQLite 3.38 added
// sqlite3_error_offset, which SQLCipher 3.4.1's SQLite 3.15.2 lacks.
static inline int migrationkit_error_offset(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3038000
    return sqlite3_error_offset(db);
#else
    (void)db;
    return -1;
#endif
}

// sqlite3_db_config for an on/off setting (SQLITE_DBCONFIG_ENABLE_TRIGGER, …): it is
// variadic, which Swift does not import. `enable` is 1, 0, or -1 to leave it as it is;
// the setting as it then is goes to *now.
static inline int migrationkit_db_config_flag(sqlite3 *db, int op, int enable, int *now) {
    return sqlite3_db_config(db, op, enable, now);
}

#endif

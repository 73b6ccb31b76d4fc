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

#endif

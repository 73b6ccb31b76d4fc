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

// Built-in collations standing in for one an app registers (`--collation unicase=NOCASE`),
// written as SQLite defines its own (sqlite.org/datatype3.html#collation): BINARY compares
// bytes, NOCASE folds the 26 ASCII capitals first, RTRIM ignores trailing spaces. Kind 0,
// 1, 2 respectively.
static inline int migrationkit_compare_bytes(const unsigned char *a, int an, const unsigned char *b, int bn, int fold) {
    int n = an < bn ? an : bn;
    for (int i = 0; i < n; i++) {
        int x = a[i], y = b[i];
        if (fold) {
            if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
            if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        }
        if (x != y) return x - y;
    }
    return an - bn;
}

static inline int migrationkit_collate_binary(void *unused, int an, const void *a, int bn, const void *b) {
    (void)unused;
    return migrationkit_compare_bytes(a, an, b, bn, 0);
}

static inline int migrationkit_collate_nocase(void *unused, int an, const void *a, int bn, const void *b) {
    (void)unused;
    return migrationkit_compare_bytes(a, an, b, bn, 1);
}

static inline int migrationkit_collate_rtrim(void *unused, int an, const void *a, int bn, const void *b) {
    (void)unused;
    const unsigned char *x = a, *y = b;
    while (an > 0 && x[an - 1] == ' ') an--;
    while (bn > 0 && y[bn - 1] == ' ') bn--;
    return migrationkit_compare_bytes(x, an, y, bn, 0);
}

static inline int migrationkit_register_stand_in_collation(sqlite3 *db, const char *name, int kind) {
    int (*compare)(void *, int, const void *, int, const void *) =
        kind == 1 ? migrationkit_collate_nocase : kind == 2 ? migrationkit_collate_rtrim : migrationkit_collate_binary;
    return sqlite3_create_collation_v2(db, name, SQLITE_UTF8, 0, compare, 0);
}

#endif

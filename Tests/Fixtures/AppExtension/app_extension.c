/*
 * A SQLite extension standing in for what an app registers on every connection it
 * opens and no other program has: a full-text tokenizer (Signal Desktop's
 * signal_tokenizer, Thunderbird's mozporter, calibre's own), SQL functions its
 * triggers and views call (calibre's title_sort and sortconcat), and a collation.
 * The tests compile it (AppExtensionFixture) and load it with --load-extension, and
 * the sqlcipher shell loads it (.load) to write the databases that need it.
 *
 * What it registers:
 *   app_words    an FTS5 tokenizer (SQLite 3.20+, where FTS5 is built in) and an
 *                FTS3/FTS4 tokenizer: runs of ASCII letters and digits, folded to
 *                lower case; any other byte separates tokens.
 *   app_sort(x)  x without a leading "The ", "A " or "An " (calibre's title_sort).
 *   app_concat(x) an aggregate: the values joined with "&" in sorted order
 *                (calibre's sortconcat).
 *   app_nocase   a collation: ASCII letters compared without case.
 *
 * Entry points: sqlite3_appextension_init (the name SQLite derives from
 * libappextension.so) and app_extension_entry (for PATH:ENTRY). Built against the
 * linked SQLCipher's sqlite3ext.h; the parts a SQLite is too old for are left out at
 * run time (sqlite3_libversion_number), so the same file loads into SQLCipher 3.4.1.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <stdlib.h>
#include <string.h>

static int isWordByte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* ---- FTS5 tokenizer ---------------------------------------------------------- */

#if SQLITE_VERSION_NUMBER >= 3020000
typedef struct { int unused; } WordsTokenizer5;

static int words5Create(void *context, const char **arguments, int count, Fts5Tokenizer **out) {
    (void)context; (void)arguments; (void)count;
    WordsTokenizer5 *tokenizer = sqlite3_malloc(sizeof(WordsTokenizer5));
    if (!tokenizer) return SQLITE_NOMEM;
    *out = (Fts5Tokenizer *)tokenizer;
    return SQLITE_OK;
}

static void words5Delete(Fts5Tokenizer *tokenizer) {
    sqlite3_free(tokenizer);
}

static int words5Tokenize(Fts5Tokenizer *tokenizer, void *context, int flags, const char *text, int length,
                          int (*token)(void *, int, const char *, int, int, int)) {
    (void)tokenizer; (void)flags;
    char buffer[256];
    int index = 0;
    while (index < length) {
        while (index < length && !isWordByte((unsigned char)text[index])) index++;
        int start = index;
        while (index < length && isWordByte((unsigned char)text[index])) index++;
        if (index > start) {
            int size = index - start < (int)sizeof(buffer) ? index - start : (int)sizeof(buffer);
            for (int i = 0; i < size; i++) buffer[i] = lower(text[start + i]);
            int rc = token(context, 0, buffer, size, start, index);
            if (rc != SQLITE_OK) return rc;
        }
    }
    return SQLITE_OK;
}

static int registerFTS5Tokenizer(sqlite3 *db) {
    fts5_api *api = 0;
    sqlite3_stmt *statement = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) != SQLITE_OK) {
        sqlite3_finalize(statement);
        return SQLITE_OK; /* no FTS5 in this SQLite: nothing to register */
    }
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
    sqlite3_finalize(statement);
    if (!api) return SQLITE_OK;
    fts5_tokenizer tokenizer = { words5Create, words5Delete, words5Tokenize };
    return api->xCreateTokenizer(api, "app_words", 0, &tokenizer, 0);
}
#endif

/* ---- FTS3/FTS4 tokenizer (fts3_tokenizer.h's interface, version 0) ------------- */

typedef struct sqlite3_tokenizer_module sqlite3_tokenizer_module;
typedef struct sqlite3_tokenizer { const sqlite3_tokenizer_module *pModule; } sqlite3_tokenizer;
typedef struct sqlite3_tokenizer_cursor { sqlite3_tokenizer *pTokenizer; } sqlite3_tokenizer_cursor;
struct sqlite3_tokenizer_module {
    int iVersion;
    int (*xCreate)(int argc, const char *const *argv, sqlite3_tokenizer **ppTokenizer);
    int (*xDestroy)(sqlite3_tokenizer *pTokenizer);
    int (*xOpen)(sqlite3_tokenizer *pTokenizer, const char *pInput, int nBytes, sqlite3_tokenizer_cursor **ppCursor);
    int (*xClose)(sqlite3_tokenizer_cursor *pCursor);
    int (*xNext)(sqlite3_tokenizer_cursor *pCursor, const char **ppToken, int *pnBytes, int *piStartOffset, int *piEndOffset,
                 int *piPosition);
};

typedef struct {
    sqlite3_tokenizer_cursor base;
    const char *text;
    int length;
    int offset;
    int position;
    char token[256];
} WordsCursor3;

static int words3Create(int argc, const char *const *argv, sqlite3_tokenizer **out) {
    (void)argc; (void)argv;
    sqlite3_tokenizer *tokenizer = sqlite3_malloc(sizeof(sqlite3_tokenizer));
    if (!tokenizer) return SQLITE_NOMEM;
    memset(tokenizer, 0, sizeof(*tokenizer));
    *out = tokenizer;
    return SQLITE_OK;
}

static int words3Destroy(sqlite3_tokenizer *tokenizer) {
    sqlite3_free(tokenizer);
    return SQLITE_OK;
}

static int words3Open(sqlite3_tokenizer *tokenizer, const char *text, int length, sqlite3_tokenizer_cursor **out) {
    (void)tokenizer;
    WordsCursor3 *cursor = sqlite3_malloc(sizeof(WordsCursor3));
    if (!cursor) return SQLITE_NOMEM;
    memset(cursor, 0, sizeof(*cursor));
    cursor->text = text;
    cursor->length = length < 0 ? (int)strlen(text) : length;
    *out = &cursor->base;
    return SQLITE_OK;
}

static int words3Close(sqlite3_tokenizer_cursor *cursor) {
    sqlite3_free(cursor);
    return SQLITE_OK;
}

static int words3Next(sqlite3_tokenizer_cursor *base, const char **token, int *size, int *start, int *end, int *position) {
    WordsCursor3 *cursor = (WordsCursor3 *)base;
    while (cursor->offset < cursor->length && !isWordByte((unsigned char)cursor->text[cursor->offset])) cursor->offset++;
    int first = cursor->offset;
    while (cursor->offset < cursor->length && isWordByte((unsigned char)cursor->text[cursor->offset])) cursor->offset++;
    if (cursor->offset == first) return SQLITE_DONE;
    int count = cursor->offset - first < (int)sizeof(cursor->token) ? cursor->offset - first : (int)sizeof(cursor->token);
    for (int i = 0; i < count; i++) cursor->token[i] = lower(cursor->text[first + i]);
    *token = cursor->token;
    *size = count;
    *start = first;
    *end = cursor->offset;
    *position = cursor->position++;
    return SQLITE_OK;
}

static const sqlite3_tokenizer_module words3Module = { 0, words3Create, words3Destroy, words3Open, words3Close, words3Next };

/* As Thunderbird registers mozporter: fts3_tokenizer(name, pointer), allowed for this
   call only (SQLite 3.12+; earlier ones allow it always). */
static int registerFTS3Tokenizer(sqlite3 *db) {
    const sqlite3_tokenizer_module *module = &words3Module;
    int wasEnabled = 0;
    if (sqlite3_libversion_number() >= 3012000) {
        sqlite3_db_config(db, 1004 /* SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER */, -1, &wasEnabled);
        sqlite3_db_config(db, 1004, 1, 0);
    }
    sqlite3_stmt *statement = 0;
    int rc = sqlite3_prepare_v2(db, "SELECT fts3_tokenizer(?, ?)", -1, &statement, 0);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(statement, 1, "app_words", -1, SQLITE_STATIC);
        sqlite3_bind_blob(statement, 2, &module, sizeof(module), SQLITE_STATIC);
        sqlite3_step(statement);
        rc = sqlite3_finalize(statement);
    } else {
        sqlite3_finalize(statement);
        rc = SQLITE_OK; /* no FTS3 in this SQLite */
    }
    if (sqlite3_libversion_number() >= 3012000) sqlite3_db_config(db, 1004, wasEnabled, 0);
    return rc;
}

/* ---- functions and collation ----------------------------------------------------- */

static void appSort(sqlite3_context *context, int count, sqlite3_value **values) {
    (void)count;
    const char *text = (const char *)sqlite3_value_text(values[0]);
    if (!text) {
        sqlite3_result_null(context);
        return;
    }
    static const char *const articles[] = { "The ", "A ", "An " };
    for (unsigned i = 0; i < sizeof(articles) / sizeof(articles[0]); i++) {
        size_t size = strlen(articles[i]);
        if (strncmp(text, articles[i], size) == 0) {
            sqlite3_result_text(context, text + size, -1, SQLITE_TRANSIENT);
            return;
        }
    }
    sqlite3_result_text(context, text, -1, SQLITE_TRANSIENT);
}

typedef struct {
    char **values;
    int count;
} ConcatState;

static void appConcatStep(sqlite3_context *context, int count, sqlite3_value **values) {
    (void)count;
    ConcatState *state = sqlite3_aggregate_context(context, sizeof(ConcatState));
    const char *text = (const char *)sqlite3_value_text(values[0]);
    if (!state || !text) return;
    char **grown = sqlite3_realloc(state->values, (int)sizeof(char *) * (state->count + 1));
    if (!grown) return;
    state->values = grown;
    state->values[state->count++] = sqlite3_mprintf("%s", text);
}

static int compareText(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void appConcatFinal(sqlite3_context *context) {
    ConcatState *state = sqlite3_aggregate_context(context, 0);
    if (!state || state->count == 0) {
        sqlite3_result_null(context);
        return;
    }
    qsort(state->values, (size_t)state->count, sizeof(char *), compareText);
    char *joined = sqlite3_mprintf("%s", state->values[0]);
    for (int i = 1; i < state->count; i++) {
        char *next = sqlite3_mprintf("%s&%s", joined, state->values[i]);
        sqlite3_free(joined);
        joined = next;
    }
    for (int i = 0; i < state->count; i++) sqlite3_free(state->values[i]);
    sqlite3_free(state->values);
    sqlite3_result_text(context, joined, -1, sqlite3_free);
}

static int appNocase(void *context, int leftSize, const void *left, int rightSize, const void *right) {
    (void)context;
    int size = leftSize < rightSize ? leftSize : rightSize;
    for (int i = 0; i < size; i++) {
        char a = lower(((const char *)left)[i]), b = lower(((const char *)right)[i]);
        if (a != b) return a < b ? -1 : 1;
    }
    return leftSize - rightSize;
}

static int registerAll(sqlite3 *db) {
    /* Usable in the schema's triggers and views where the schema is not trusted
       (SQLITE_INNOCUOUS, SQLite 3.31+), as an app's functions are in its own process. */
    int flags = SQLITE_UTF8 | (sqlite3_libversion_number() >= 3031000 ? 0x000200000 /* SQLITE_INNOCUOUS */ : 0);
    int rc = sqlite3_create_function(db, "app_sort", 1, flags, 0, appSort, 0, 0);
    if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "app_concat", 1, flags, 0, 0, appConcatStep, appConcatFinal);
    if (rc == SQLITE_OK) rc = sqlite3_create_collation(db, "app_nocase", SQLITE_UTF8, 0, appNocase);
    if (rc == SQLITE_OK) rc = registerFTS3Tokenizer(db);
#if SQLITE_VERSION_NUMBER >= 3020000
    if (rc == SQLITE_OK && sqlite3_libversion_number() >= 3020000) rc = registerFTS5Tokenizer(db);
#endif
    return rc;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_appextension_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
    (void)error;
    SQLITE_EXTENSION_INIT2(api);
    return registerAll(db);
}

int app_extension_entry(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
    (void)error;
    SQLITE_EXTENSION_INIT2(api);
    return registerAll(db);
}

#include "LibSecretLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The soname of libsecret 1.x (Debian 12 and 13 ship 0.20 and 0.21 in libsecret-1-0). */
static const char *const library_name = "libsecret-1.so.0";

static MigrationKitLibSecret table;
static int loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Fills `table` from `library`; on a missing symbol, says which and returns 0. */
static int find_functions(void *library, char *reason, size_t capacity) {
#define MIGRATIONKIT_LIBSECRET_FIND(result, name, parameters) \
    { \
        void *address = dlsym(library, #name); \
        if (address == NULL) { \
            snprintf(reason, capacity, "%s has no function %s", library_name, #name); \
            return 0; \
        } \
        table.name = (result (*) parameters)address; \
    }
    MIGRATIONKIT_LIBSECRET_FUNCTIONS(MIGRATIONKIT_LIBSECRET_FIND)
#undef MIGRATIONKIT_LIBSECRET_FIND
    return 1;
}

const MigrationKitLibSecret *migrationkit_libsecret_load(char *reason, size_t capacity) {
    pthread_mutex_lock(&lock);
    if (!loaded) {
        /* RTLD_LOCAL: GLib's symbols stay out of the process's global scope. The
         * library is never unloaded (GLib cannot be), so a failure is the only path
         * that closes it. */
        void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            const char *error = dlerror();
            snprintf(reason, capacity, "%s", error != NULL ? error : library_name);
        } else if (find_functions(library, reason, capacity)) {
            loaded = 1;
        } else {
            dlclose(library);
        }
    }
    pthread_mutex_unlock(&lock);
    return loaded ? &table : NULL;
}

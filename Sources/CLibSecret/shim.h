#ifndef MIGRATIONKIT_CLIBSECRET_SHIM_H
#define MIGRATIONKIT_CLIBSECRET_SHIM_H

// libsecret's public header. Its variadic calls (secret_password_store_sync and
// friends) are not imported into Swift; MigrationKitKeys uses the *v_sync variants
// that take a GHashTable of attributes instead. It also brings in GLib and GIO
// (GError, GHashTable, g_bus_get_sync), which MigrationKitKeys calls directly.
#include <libsecret/secret.h>

#endif

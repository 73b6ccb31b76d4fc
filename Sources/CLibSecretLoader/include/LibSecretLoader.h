#ifndef MIGRATIONKIT_LIBSECRET_LOADER_H
#define MIGRATIONKIT_LIBSECRET_LOADER_H

/* libsecret, loaded when the Secret Service is first used rather than when the process
 * starts. Linking it would load GLib, GIO, GObject and what they need (thirteen
 * libraries) into every run of every command, most of which never touch a keyring
 * (what that costs at start-up is measured in docs/performance.md).
 *
 * Why the part of libsecret's and GLib's interface used here is declared below rather
 * than taken from their headers: those headers are found through pkg-config, and SwiftPM
 * adds a pkg-config module's libraries to every link that depends on it, ahead of any
 * flag that could drop them (`--as-needed`). The declarations are checked against the
 * real headers, type by type, by the test-only target CLibSecretInterfaceCheck: a
 * difference is a compile error of `swift build --build-tests`.
 *
 * Both ABIs are stable: GLib 2.x and libsecret-1 keep their sonames for as long as
 * the functions below exist unchanged. secret_password_searchv_sync needs libsecret 0.19
 * or later; the Debian package recommends 0.19.1 (scripts/debian/control): a machine
 * without it runs every other key source. Only libsecret's stable interface is used
 * (nothing of SECRET_API_SUBJECT_TO_CHANGE's). */

#include <stddef.h>

/* Only the table's pointers are marked never-null (the loader fills every one); what the
 * functions take and return keeps C's unspecified nullability, as in GLib's headers. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"

/* The enumerations used, each reduced to the values used: X(enumeration, constant,
 * value), with GLib's and libsecret's names and values (checked). */
#define MIGRATIONKIT_LIBSECRET_CONSTANTS(X) \
    X(GBusType, G_BUS_TYPE_SESSION, 2) \
    X(GDBusError, G_DBUS_ERROR_SERVICE_UNKNOWN, 2) \
    X(GDBusError, G_DBUS_ERROR_NAME_HAS_NO_OWNER, 3) \
    X(GDBusError, G_DBUS_ERROR_NO_REPLY, 4) \
    X(GDBusError, G_DBUS_ERROR_TIMEOUT, 12) \
    X(GDBusError, G_DBUS_ERROR_TIMED_OUT, 20) \
    X(GDBusError, G_DBUS_ERROR_SPAWN_EXEC_FAILED, 23) \
    X(GDBusError, G_DBUS_ERROR_SPAWN_FORK_FAILED, 24) \
    X(GDBusError, G_DBUS_ERROR_SPAWN_CHILD_EXITED, 25) \
    X(GDBusError, G_DBUS_ERROR_SPAWN_CHILD_SIGNALED, 26) \
    X(GDBusError, G_DBUS_ERROR_SPAWN_FAILED, 27) \
    X(GDBusError, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND, 31) \
    X(GIOErrorEnum, G_IO_ERROR_TIMED_OUT, 24) \
    X(GDBusCallFlags, G_DBUS_CALL_FLAGS_NONE, 0) \
    X(SecretError, SECRET_ERROR_IS_LOCKED, 2) \
    X(SecretError, SECRET_ERROR_NO_SUCH_OBJECT, 3) \
    X(SecretSchemaFlags, SECRET_SCHEMA_DONT_MATCH_NAME, 2) \
    X(SecretSearchFlags, SECRET_SEARCH_ALL, 2) \
    X(SecretSearchFlags, SECRET_SEARCH_UNLOCK, 4) \
    X(SecretSearchFlags, SECRET_SEARCH_LOAD_SECRETS, 8) \
    X(SecretItemCreateFlags, SECRET_ITEM_CREATE_NONE, 0) \
    X(SecretCollectionFlags, SECRET_COLLECTION_NONE, 0) \
    X(SecretServiceFlags, SECRET_SERVICE_OPEN_SESSION, 2)

/* GError's and GList's fields, in order (their layout is checked). */
#define MIGRATIONKIT_GERROR_FIELDS \
    GQuark domain; \
    gint code; \
    gchar *message;
#define MIGRATIONKIT_GLIST_FIELDS \
    gpointer data; \
    GList *next; \
    GList *prev;

/* GLib's basic types, as glibconfig.h and gtypes.h define them on Linux, and the
 * enumerations used, as the integer type C gives them (checked). */
#define MIGRATIONKIT_GLIB_TYPES(X) \
    X(gchar, char) \
    X(gint, int) \
    X(gboolean, int) \
    X(guint, unsigned int) \
    X(guint32, unsigned int) \
    X(gsize, unsigned long) \
    X(gssize, signed long) \
    X(gpointer, void *) \
    X(gconstpointer, const void *) \
    X(GQuark, unsigned int) \
    X(GType, unsigned long) \
    X(GHashFunc, unsigned int (*)(const void *)) \
    X(GEqualFunc, int (*)(const void *, const void *)) \
    X(GDestroyNotify, void (*)(void *)) \
    X(GBusType, int) \
    X(GDBusError, unsigned int) \
    X(GIOErrorEnum, unsigned int) \
    X(GDBusCallFlags, unsigned int) \
    X(SecretError, unsigned int) \
    X(SecretSchemaFlags, unsigned int) \
    X(SecretSearchFlags, unsigned int) \
    X(SecretItemCreateFlags, unsigned int) \
    X(SecretCollectionFlags, unsigned int) \
    X(SecretServiceFlags, unsigned int)

/* The callbacks, whose parameters are types used only through pointers (declared first). */
#define MIGRATIONKIT_GLIB_CALLBACK_TYPES(X) \
    X(GAsyncReadyCallback, void (*)(GObject *, GAsyncResult *, void *)) \
    X(GSourceFunc, int (*)(void *))

#ifndef MIGRATIONKIT_LIBSECRET_SYSTEM_HEADERS
#define MIGRATIONKIT_GLIB_TYPEDEF(name, ...) typedef __typeof__(__VA_ARGS__) name;
MIGRATIONKIT_GLIB_TYPES(MIGRATIONKIT_GLIB_TYPEDEF)

/* Used only through pointers. */
typedef struct _GObject GObject;
typedef struct _GAsyncResult GAsyncResult;
typedef struct _GMainContext GMainContext;
typedef struct _GSource GSource;
typedef struct _GHashTable GHashTable;
typedef struct _GCancellable GCancellable;
typedef struct _GDBusConnection GDBusConnection;
typedef struct _GDBusProxy GDBusProxy;
typedef struct _GVariant GVariant;
typedef struct _GVariantType GVariantType;
typedef struct _GTypeInstance GTypeInstance;
typedef struct _SecretSchema SecretSchema;
typedef struct _SecretValue SecretValue;
typedef struct _SecretItem SecretItem;
typedef struct _SecretCollection SecretCollection;
typedef struct _SecretService SecretService;

MIGRATIONKIT_GLIB_CALLBACK_TYPES(MIGRATIONKIT_GLIB_TYPEDEF)
#undef MIGRATIONKIT_GLIB_TYPEDEF

typedef struct _GError GError;
struct _GError { MIGRATIONKIT_GERROR_FIELDS };
typedef struct _GList GList;
struct _GList { MIGRATIONKIT_GLIST_FIELDS };

/* The constants of the enumerations used. */
#define MIGRATIONKIT_CONSTANT(enumeration, name, value) static const enumeration name = value;
MIGRATIONKIT_LIBSECRET_CONSTANTS(MIGRATIONKIT_CONSTANT)
#undef MIGRATIONKIT_CONSTANT
#endif

/* The functions, each as its header declares it: X(return type, name, parameters). */
#define MIGRATIONKIT_LIBSECRET_FUNCTIONS(X) \
    X(GDBusConnection *, g_bus_get_sync, (GBusType bus_type, GCancellable *cancellable, GError **error)) \
    X(GVariant *, g_dbus_connection_call_sync, (GDBusConnection *connection, const gchar *bus_name, const gchar *object_path, const gchar *interface_name, const gchar *method_name, GVariant *parameters, const GVariantType *reply_type, GDBusCallFlags flags, gint timeout_msec, GCancellable *cancellable, GError **error)) \
    X(const gchar *, g_dbus_proxy_get_object_path, (GDBusProxy *proxy)) \
    X(GQuark, g_dbus_error_quark, (void)) \
    X(gchar *, g_dbus_error_get_remote_error, (const GError *error)) \
    X(gboolean, g_dbus_error_strip_remote_error, (GError *error)) \
    X(GCancellable *, g_cancellable_new, (void)) \
    X(void, g_cancellable_cancel, (GCancellable *cancellable)) \
    X(gboolean, g_main_context_iteration, (GMainContext *context, gboolean may_block)) \
    X(GMainContext *, g_main_context_new, (void)) \
    X(void, g_main_context_pop_thread_default, (GMainContext *context)) \
    X(void, g_main_context_push_thread_default, (GMainContext *context)) \
    X(void, g_main_context_unref, (GMainContext *context)) \
    X(gpointer, g_object_ref, (gpointer object)) \
    X(guint, g_source_attach, (GSource *source, GMainContext *context)) \
    X(void, g_source_destroy, (GSource *source)) \
    X(void, g_source_set_callback, (GSource *source, GSourceFunc func, gpointer data, GDestroyNotify notify)) \
    X(void, g_source_unref, (GSource *source)) \
    X(GSource *, g_timeout_source_new, (guint interval)) \
    X(void, g_error_free, (GError *error)) \
    X(void, g_free, (gpointer mem)) \
    X(gboolean, g_hash_table_insert, (GHashTable *hash_table, gpointer key, gpointer value)) \
    X(GHashTable *, g_hash_table_new_full, (GHashFunc hash_func, GEqualFunc key_equal_func, GDestroyNotify key_destroy_func, GDestroyNotify value_destroy_func)) \
    X(void, g_hash_table_unref, (GHashTable *hash_table)) \
    X(GQuark, g_io_error_quark, (void)) \
    X(GList *, g_list_append, (GList *list, gpointer data)) \
    X(void, g_list_free, (GList *list)) \
    X(void, g_list_free_full, (GList *list, GDestroyNotify free_func)) \
    X(guint, g_list_length, (GList *list)) \
    X(void, g_object_unref, (gpointer object)) \
    X(const gchar *, g_quark_to_string, (GQuark quark)) \
    X(gboolean, g_str_equal, (gconstpointer v1, gconstpointer v2)) \
    X(guint, g_str_hash, (gconstpointer v)) \
    X(gchar *, g_strdup, (const gchar *str)) \
    X(gboolean, g_type_check_instance_is_a, (GTypeInstance *instance, GType iface_type)) \
    X(gboolean, g_variant_get_boolean, (GVariant *value)) \
    X(GVariant *, g_variant_get_child_value, (GVariant *value, gsize index_)) \
    X(const gchar *, g_variant_get_string, (GVariant *value, gsize *length)) \
    X(const gchar *, g_variant_get_type_string, (GVariant *value)) \
    X(GVariant *, g_variant_get_variant, (GVariant *value)) \
    X(gsize, g_variant_n_children, (GVariant *value)) \
    X(GVariant *, g_variant_new_string, (const gchar *string)) \
    X(GVariant *, g_variant_new_tuple, (GVariant *const *children, gsize n_children)) \
    X(void, g_variant_unref, (GVariant *value)) \
    X(void, secret_collection_for_alias, (SecretService *service, const gchar *alias, SecretCollectionFlags flags, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(SecretCollection *, secret_collection_for_alias_finish, (GAsyncResult *result, GError **error)) \
    X(GQuark, secret_error_get_quark, (void)) \
    X(void, secret_item_create, (SecretCollection *collection, const SecretSchema *schema, GHashTable *attributes, const gchar *label, SecretValue *value, SecretItemCreateFlags flags, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(SecretItem *, secret_item_create_finish, (GAsyncResult *result, GError **error)) \
    X(void, secret_item_delete, (SecretItem *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(gboolean, secret_item_delete_finish, (SecretItem *self, GAsyncResult *result, GError **error)) \
    X(gboolean, secret_item_get_locked, (SecretItem *self)) \
    X(SecretValue *, secret_item_get_secret, (SecretItem *self)) \
    X(GType, secret_item_get_type, (void)) \
    X(void, secret_password_clearv, (const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(gboolean, secret_password_clear_finish, (GAsyncResult *result, GError **error)) \
    X(void, secret_password_searchv, (const SecretSchema *schema, GHashTable *attributes, SecretSearchFlags flags, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(GList *, secret_password_search_finish, (GAsyncResult *result, GError **error)) \
    X(SecretSchema *, secret_schema_newv, (const gchar *name, SecretSchemaFlags flags, GHashTable *attribute_names_and_types)) \
    X(void, secret_schema_unref, (SecretSchema *schema)) \
    X(void, secret_service_get, (SecretServiceFlags flags, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(SecretService *, secret_service_get_finish, (GAsyncResult *result, GError **error)) \
    X(void, secret_service_unlock, (SecretService *service, GList *objects, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)) \
    X(gint, secret_service_unlock_finish, (SecretService *service, GAsyncResult *result, GList **unlocked, GError **error)) \
    X(const gchar *, secret_value_get, (SecretValue *value, gsize *length)) \
    X(SecretValue *, secret_value_new, (const gchar *secret, gssize length, const gchar *content_type)) \
    X(void, secret_value_unref, (gpointer value))

/* One pointer per function, named as the function is. */
typedef struct MigrationKitLibSecret {
#define MIGRATIONKIT_LIBSECRET_FIELD(result, name, parameters) result (*_Nonnull name) parameters;
    MIGRATIONKIT_LIBSECRET_FUNCTIONS(MIGRATIONKIT_LIBSECRET_FIELD)
#undef MIGRATIONKIT_LIBSECRET_FIELD
} MigrationKitLibSecret;

/* Loads libsecret-1.so.0 (and through it GLib) once per process and finds every
 * function of the list; later calls return the same table. NULL when the library or a
 * function could not be found: then `reason`, of `capacity` bytes, holds the dynamic
 * loader's one-line explanation, and a later call tries again. Safe on any thread. */
const MigrationKitLibSecret *_Nullable migrationkit_libsecret_load(char *_Nonnull reason, size_t capacity);
#pragma clang diagnostic pop

#endif

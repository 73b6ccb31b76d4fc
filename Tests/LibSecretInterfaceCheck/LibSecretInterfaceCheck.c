/* Checks CLibSecretLoader's declarations against libsecret's and GLib's own headers, at
 * compile time: a difference in a type, a constant, a structure's layout or a function's
 * signature is an error of `swift build --build-tests`. Nothing here runs. The headers
 * come through pkg-config (CLibSecret), which is why this is a test-only target: it links
 * libsecret, and the tool must not. */

#include <stddef.h>
#include <libsecret/secret.h>

#define MIGRATIONKIT_LIBSECRET_SYSTEM_HEADERS 1
#include <LibSecretLoader.h>

#define CHECK_TYPE(name, ...) \
    _Static_assert(__builtin_types_compatible_p(name, __VA_ARGS__), #name " is not " #__VA_ARGS__ " in GLib's headers");
MIGRATIONKIT_GLIB_TYPES(CHECK_TYPE)
MIGRATIONKIT_GLIB_CALLBACK_TYPES(CHECK_TYPE)

#define CHECK_CONSTANT(enumeration, name, value) _Static_assert(name == value, #name " is not " #value " in GLib's or libsecret's headers");
MIGRATIONKIT_LIBSECRET_CONSTANTS(CHECK_CONSTANT)

#define CHECK_FUNCTION(result, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result (*) parameters), \
                   #name " is declared differently in libsecret's or GLib's headers");
MIGRATIONKIT_LIBSECRET_FUNCTIONS(CHECK_FUNCTION)

struct migrationkit_gerror { MIGRATIONKIT_GERROR_FIELDS };
_Static_assert(sizeof(struct migrationkit_gerror) == sizeof(GError), "GError's size differs");
_Static_assert(offsetof(struct migrationkit_gerror, domain) == offsetof(GError, domain), "GError.domain moved");
_Static_assert(offsetof(struct migrationkit_gerror, code) == offsetof(GError, code), "GError.code moved");
_Static_assert(offsetof(struct migrationkit_gerror, message) == offsetof(GError, message), "GError.message moved");

struct migrationkit_glist { MIGRATIONKIT_GLIST_FIELDS };
_Static_assert(sizeof(struct migrationkit_glist) == sizeof(GList), "GList's size differs");
_Static_assert(offsetof(struct migrationkit_glist, data) == offsetof(GList, data), "GList.data moved");
_Static_assert(offsetof(struct migrationkit_glist, next) == offsetof(GList, next), "GList.next moved");
_Static_assert(offsetof(struct migrationkit_glist, prev) == offsetof(GList, prev), "GList.prev moved");

#ifndef MIGRATIONKIT_CLIBSECRET_SHIM_H
#define MIGRATIONKIT_CLIBSECRET_SHIM_H

// libsecret's public header, with GLib's and GIO's, for CLibSecretInterfaceCheck
// alone: it checks CLibSecretLoader's own declarations of the functions and types
// MigrationKitKeys uses against these. Nothing the tool links imports this module,
// because SwiftPM would link libsecret into it (see CLibSecretLoader).
#include <libsecret/secret.h>

#endif

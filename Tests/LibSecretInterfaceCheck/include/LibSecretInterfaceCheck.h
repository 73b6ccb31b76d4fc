#ifndef MIGRATIONKIT_LIBSECRET_INTERFACE_CHECK_H
#define MIGRATIONKIT_LIBSECRET_INTERFACE_CHECK_H
/* Nothing to call: LibSecretInterfaceCheck.c is a compile-time check. */
#endif

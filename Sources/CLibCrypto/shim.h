#ifndef MIGRATIONKIT_CLIBCRYPTO_SHIM_H
#define MIGRATIONKIT_CLIBCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/sha.h>

// SHA-256 of `count` bytes at `bytes` into the 32 bytes at `digest`. OpenSSL's one-shot
// SHA256() (not deprecated in OpenSSL 3, unlike SHA256_Init and friends), with plain
// pointer types for Swift.
static inline void migrationkit_sha256(const void *bytes, size_t count, unsigned char *digest) {
    SHA256((const unsigned char *)bytes, count, digest);
}

// SHA-384 of `count` bytes at `bytes` into the 48 bytes at `digest`: the checksum sqlx
// records for a migration, which adopting a database sqlx migrated compares.
static inline void migrationkit_sha384(const void *bytes, size_t count, unsigned char *digest) {
    SHA384((const unsigned char *)bytes, count, digest);
}

#endif

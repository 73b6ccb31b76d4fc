#ifndef MIGRATIONKIT_CLIBCRYPTO_SHIM_H
#define MIGRATIONKIT_CLIBCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/evp.h>
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

// PBKDF2 of `password` with `salt`, `iterations` rounds of HMAC with SHA-1 (`digest`
// 1), SHA-256 (256) or SHA-512 (512), into the `length` bytes at `out`: SQLCipher's own
// key derivation, for a passphrase SQLCipher would take for a raw key. 1 on success.
static inline int migrationkit_pbkdf2(const void *password, size_t passwordLength, const unsigned char *salt, size_t saltLength,
                                      int iterations, int digest, unsigned char *out, size_t length) {
    const EVP_MD *md = digest == 512 ? EVP_sha512() : digest == 256 ? EVP_sha256() : EVP_sha1();
    return PKCS5_PBKDF2_HMAC((const char *)password, (int)passwordLength, salt, (int)saltLength, iterations, md, (int)length, out);
}

#endif

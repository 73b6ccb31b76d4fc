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

// MD5 of `count` bytes at `bytes` into the 16 bytes at `digest`: what Liquibase's
// changeset checksums are made of. MD5 is in OpenSSL 3's default provider.
static inline void migrationkit_md5(const void *bytes, size_t count, unsigned char *digest) {
    EVP_Digest(bytes, count, digest, NULL, EVP_md5(), NULL);
}

// A SHA-256 fed in pieces and read part-way (Atlas's `atlas.sum` chain): started, added
// to, read (from a copy, so that more can be added), ended. NULL or 0: out of memory.
static inline EVP_MD_CTX *migrationkit_sha256_start(void) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context != NULL && EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return context;
}

static inline int migrationkit_digest_add(EVP_MD_CTX *context, const void *bytes, size_t count) {
    return EVP_DigestUpdate(context, bytes, count);
}

static inline int migrationkit_digest_read(const EVP_MD_CTX *context, unsigned char *digest) {
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    int done = copy != NULL && EVP_MD_CTX_copy_ex(copy, context) == 1 && EVP_DigestFinal_ex(copy, digest, NULL) == 1;
    EVP_MD_CTX_free(copy);
    return done;
}

static inline void migrationkit_digest_end(EVP_MD_CTX *context) {
    EVP_MD_CTX_free(context);
}

#endif

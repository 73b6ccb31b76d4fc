/*
 * kdfcount.so: counts key derivations, independently of MigrationKit's own code.
 *
 * Preloaded (LD_PRELOAD) into `migrationkit` or the `sqlcipher` shell, it interposes
 * OpenSSL's PBKDF2 entry points, which libsqlcipher calls through the PLT:
 *
 *   PKCS5_PBKDF2_HMAC_SHA1  (SQLCipher 3.x: PBKDF2-HMAC-SHA1)
 *   PKCS5_PBKDF2_HMAC       (SQLCipher 4.x: PBKDF2 with a chosen digest)
 *
 * Each call is counted as a real key derivation when its iteration count is at least
 * KDF_MIN_ITERATIONS (SQLCipher 3's default is 64,000), and as a "fast" derivation
 * otherwise: SQLCipher also derives its per-page HMAC key from the derived key with
 * 2 iterations, which costs microseconds. Then the real OpenSSL function runs.
 *
 * At exit, one line "pid=<pid> kdf=<real> fast=<fast>" is appended to the file named
 * by KDFCOUNT_FILE (nothing is written when it is unset). Only counts are recorded:
 * passwords, salts and derived keys are never looked at beyond passing them on.
 *
 * Build: gcc -O2 -shared -fPIC -o kdfcount.so kdfcount.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define KDF_MIN_ITERATIONS 1000

typedef int (*pbkdf2_sha1_fn)(const char *, int, const unsigned char *, int, int, int, unsigned char *);
typedef int (*pbkdf2_fn)(const char *, int, const unsigned char *, int, int, const void *, int, unsigned char *);

static atomic_ulong kdf_calls;
static atomic_ulong fast_calls;
/* OpenSSL's PKCS5_PBKDF2_HMAC_SHA1 may call PKCS5_PBKDF2_HMAC through the PLT, which
 * would reach the interposer again: only the outermost call of a thread counts. */
static _Thread_local int depth;

static void *real_symbol(const char *name) {
    /* libsqlcipher references the versioned symbol (name@OPENSSL_3.0.0). */
    void *symbol = dlvsym(RTLD_NEXT, name, "OPENSSL_3.0.0");
    if (symbol == NULL) symbol = dlsym(RTLD_NEXT, name);
    if (symbol == NULL) {
        static const char message[] = "kdfcount: the real PBKDF2 function was not found\n";
        (void)!write(2, message, sizeof message - 1);
        abort();
    }
    return symbol;
}

static void count(int iterations) {
    if (iterations >= KDF_MIN_ITERATIONS) {
        atomic_fetch_add(&kdf_calls, 1);
    } else {
        atomic_fetch_add(&fast_calls, 1);
    }
}

int PKCS5_PBKDF2_HMAC_SHA1(const char *pass, int passlen, const unsigned char *salt, int saltlen,
                           int iter, int keylen, unsigned char *out) {
    static pbkdf2_sha1_fn real;
    if (real == NULL) real = (pbkdf2_sha1_fn)real_symbol("PKCS5_PBKDF2_HMAC_SHA1");
    if (depth++ == 0) count(iter);
    int result = real(pass, passlen, salt, saltlen, iter, keylen, out);
    depth--;
    return result;
}

int PKCS5_PBKDF2_HMAC(const char *pass, int passlen, const unsigned char *salt, int saltlen,
                      int iter, const void *digest, int keylen, unsigned char *out) {
    static pbkdf2_fn real;
    if (real == NULL) real = (pbkdf2_fn)real_symbol("PKCS5_PBKDF2_HMAC");
    if (depth++ == 0) count(iter);
    int result = real(pass, passlen, salt, saltlen, iter, digest, keylen, out);
    depth--;
    return result;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("KDFCOUNT_FILE");
    if (path == NULL || *path == '\0') return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return;
    char line[96];
    int length = snprintf(line, sizeof line, "pid=%ld kdf=%lu fast=%lu\n", (long)getpid(),
                          atomic_load(&kdf_calls), atomic_load(&fast_calls));
    if (length > 0) (void)!write(fd, line, (size_t)length);  /* one write: O_APPEND keeps lines whole */
    close(fd);
}

import MigrationKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// SQLCipher keeps the HMAC salt mask for the whole process, not per connection, and a
/// connection uses it when it derives its keys (at its first read). An early SQLCipher
/// 2.0 file (`LegacyPageHMAC.sqlcipher2Beta`) needs it zero, every other file SQLCipher's
/// default (0x3a). So every key derivation runs under this guard: the ordinary ones
/// side by side, one with the zero mask alone, which puts the default back before it
/// lets the others in. Without it, a fleet's or an app's other threads opening
/// databases at that moment would read them as a wrong key, or write an export that
/// no later open reads.
enum SaltMaskGuard {
    // Initialized once, then used only through pthread calls, which are thread-safe.
    private nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_rwlock_t> = {
        let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
        return lock
    }()

    /// Runs `derive`, which derives a connection's keys (its first read after the key,
    /// a rekey, a copy's first write), with the salt mask `settings` need.
    ///
    /// - Parameter database: the connection whose pragma sets the mask back afterwards.
    static func deriving<T>(_ settings: CipherSettings, on database: SQLCipherDatabase, _ derive: () throws -> T) rethrows -> T {
        guard settings.legacyPageHMAC == .sqlcipher2Beta else {
            pthread_rwlock_rdlock(lock)
            defer { pthread_rwlock_unlock(lock) }
            return try derive()
        }
        pthread_rwlock_wrlock(lock)
        try? database.execute(sql: "PRAGMA cipher_hmac_salt_mask = \"x'00'\"")
        defer {
            try? database.execute(sql: "PRAGMA cipher_hmac_salt_mask = \"x'3a'\"")
            pthread_rwlock_unlock(lock)
        }
        return try derive()
    }
}

/// Applies `CipherSettings` right after the key, refusing what the linked library
/// cannot do instead of letting SQLCipher ignore an unknown pragma in silence.
enum CipherSettingsApplier {
    /// - Parameter schema: "main", or an attached database's name (settings for a
    ///   database written by `sqlcipher_export`).
    static func apply(_ settings: CipherSettings, to database: SQLCipherDatabase, schema: String = "main") throws {
        let prefix = schema == "main" ? "" : quoteIdentifier(schema) + "."
        guard !settings.isDefault else { return }
        let library = SQLCipherLibrary.cipherVersionString ?? "unknown"
        let version = SQLCipherLibrary.cipherVersion ?? SQLCipherVersion(major: 0, minor: 0, patch: 0)

        if let compatibility = settings.compatibility {
            guard (1...4).contains(compatibility) else {
                throw unsupported("Cipher compatibility must be 1, 2, 3 or 4, not \(compatibility).")
            }
            if version.major >= 4 {
                guard version >= SQLCipherVersion(major: 4, minor: 0, patch: 1) else {
                    throw unsupported("The linked SQLCipher \(library) has no cipher_compatibility (it arrived in 4.0.1); upgrade SQLCipher.")
                }
                try database.execute(sql: "PRAGMA \(prefix)cipher_compatibility = \(compatibility)")
            } else if compatibility > version.major {
                throw unsupported(
                    "The linked SQLCipher \(library) cannot use SQLCipher \(compatibility)'s format (it has no SHA-512 "
                        + "and no cipher_compatibility); use a build linked against SQLCipher \(compatibility), or keep the database in SQLCipher \(version.major)'s format.")
            }
            // A 3.x library asked for compatibility 3 (or lower, whose defaults 3.x can
            // be set to by hand) already writes its native format: nothing to set for 3.
            else if compatibility < version.major {
                try applyLegacyDefaults(compatibility: compatibility, to: database, prefix: prefix)
            }
        }
        if let iterations = settings.kdfIterations {
            guard iterations >= 1 else { throw unsupported("The KDF iteration count must be at least 1, not \(iterations).") }
            try database.execute(sql: "PRAGMA \(prefix)kdf_iter = \(iterations)")
            try confirm(database, pragma: prefix + "kdf_iter", expected: iterations, library: library)
        }
        if let pageSize = settings.pageSize {
            guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
                throw unsupported("The cipher page size must be a power of two from 512 to 65536, not \(pageSize).")
            }
            try database.execute(sql: "PRAGMA \(prefix)cipher_page_size = \(pageSize)")
            try confirm(database, pragma: prefix + "cipher_page_size", expected: pageSize, library: library)
        }
    }

    /// SQLCipher 1 and 2 defaults as 3.x can express them by hand (4,000 iterations,
    /// 1024-byte pages; 1.x has no HMAC).
    private static func applyLegacyDefaults(compatibility: Int, to database: SQLCipherDatabase, prefix: String) throws {
        try database.execute(sql: "PRAGMA \(prefix)kdf_iter = 4000")
        if compatibility == 1 { try database.execute(sql: "PRAGMA \(prefix)cipher_use_hmac = OFF") }
    }

    /// Reads a setting back: SQLCipher ignores pragmas it does not know, so only a
    /// read-back proves the setting took effect.
    private static func confirm(_ database: SQLCipherDatabase, pragma: String, expected: Int, library: String) throws {
        let actual = try database.fetchValue(sql: "PRAGMA \(pragma)")
        let number = actual?.int ?? actual?.string.flatMap { Int($0) }
        guard number == expected else {
            throw unsupported("The linked SQLCipher \(library) did not accept \(pragma) = \(expected); it cannot open databases with this setting.")
        }
    }

    private static func unsupported(_ message: String) -> SQLCipherError {
        SQLCipherError(kind: .unsupportedCipherSetting, message: message)
    }
}

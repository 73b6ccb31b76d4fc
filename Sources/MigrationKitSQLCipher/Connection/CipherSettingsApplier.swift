import MigrationKit

/// Checks and applies `CipherSettings`, refusing what the linked library cannot do
/// instead of letting SQLCipher ignore an unknown pragma in silence.
enum CipherSettingsApplier {
    /// Throws when the settings cannot work with the linked library or with each other
    /// (the core's rules: `CipherSettings.refusal(for:)`). Pure: called before any file is
    /// opened or created, so a setting that cannot work never leaves a file behind.
    static func validate(_ settings: CipherSettings, library: SQLCipherVersion? = SQLCipherLibrary.cipherVersion) throws {
        guard !settings.isDefault, let refusal = settings.refusal(for: library ?? SQLCipherVersion(major: 0, minor: 0, patch: 0)) else { return }
        throw unsupported(refusal.description)
    }

    /// Applies the settings right after the key, before anything reads the file.
    ///
    /// - Parameter schema: "main", or an attached database's name (settings for a
    ///   database written by `sqlcipher_export`).
    static func apply(_ settings: CipherSettings, to database: SQLCipherDatabase, schema: String = "main") throws {
        guard !settings.isDefault else { return }
        try validate(settings)
        let prefix = schema == "main" ? "" : quoteIdentifier(schema) + "."
        let library = SQLCipherLibrary.cipherVersion
        let major = library?.major ?? 0
        let hasFormatFour = SQLCipherFeature.formatFour.isAvailable(in: library)
        if let compatibility = settings.compatibility {
            if SQLCipherFeature.compatibility.isAvailable(in: library) {
                try database.execute(sql: "PRAGMA \(prefix)cipher_compatibility = \(compatibility)")
            } else if compatibility < major, let defaults = CipherFormat(version: compatibility)?.parameters {
                // SQLCipher 1 and 2 defaults as 3.x can express them by hand (their
                // iterations; 1.x has no HMAC). Compatibility 3 on 3.x is the native format.
                try database.execute(sql: "PRAGMA \(prefix)kdf_iter = \(defaults.kdfIterations)")
                if !defaults.usesHMAC { try database.execute(sql: "PRAGMA \(prefix)cipher_use_hmac = OFF") }
            }
        }
        if let iterations = settings.kdfIterations {
            try set(prefix + "kdf_iter", to: String(iterations), in: database)
        }
        if let pageSize = settings.pageSize {
            try set(prefix + "cipher_page_size", to: String(pageSize), in: database)
        }
        // On 3.x only SHA-1 passes validation, which is what 3.x always uses.
        if hasFormatFour {
            if let algorithm = settings.kdfAlgorithm?.uppercased() {
                try set(prefix + "cipher_kdf_algorithm", to: algorithm, in: database)
            }
            if let algorithm = settings.hmacAlgorithm?.uppercased() {
                try set(prefix + "cipher_hmac_algorithm", to: algorithm, in: database)
            }
            if let header = settings.plaintextHeaderSize {
                try set(prefix + "cipher_plaintext_header_size", to: String(header), in: database)
            }
            if let hex = settings.saltHex {
                try database.execute(sql: "PRAGMA \(prefix)cipher_salt = \"x'\(hex)'\"")
                try confirm(database, pragma: prefix + "cipher_salt", expected: hex)
            }
        }
        // Both versions know it; 3.x has HMAC_SHA1 alone, which its pages then lack.
        if let usesHMAC = settings.usesHMAC {
            try set(prefix + "cipher_use_hmac", to: usesHMAC ? "1" : "0", in: database)
        }
        // Both versions read these, 4.x with a deprecation notice in its (silenced) log.
        for pragma in settings.legacyPageHMAC?.pragmas ?? [] {
            try database.execute(sql: "PRAGMA \(prefix)\(pragma.name) = \(pragma.value)")
            try confirm(database, pragma: prefix + pragma.name, expected: pragma.reported)
        }
    }

    private static func set(_ pragma: String, to value: String, in database: SQLCipherDatabase) throws {
        try database.execute(sql: "PRAGMA \(pragma) = \(value)")
        try confirm(database, pragma: pragma, expected: value)
    }

    /// Reads a setting back: SQLCipher ignores pragmas it does not know, so only a
    /// read-back proves the setting took effect.
    private static func confirm(_ database: SQLCipherDatabase, pragma: String, expected: String) throws {
        let actual = try database.fetchValue(sql: "PRAGMA \(pragma)")
        let text = actual?.string ?? actual?.int.map(String.init)
        guard text?.lowercased() == expected.lowercased() else {
            let library = SQLCipherLibrary.cipherVersionString ?? "unknown"
            throw unsupported("The linked SQLCipher \(library) did not accept \(pragma) = \(expected); it cannot open databases with this setting.")
        }
    }

    private static func unsupported(_ message: String) -> SQLCipherError {
        SQLCipherError(kind: .unsupportedCipherSetting, message: message)
    }
}


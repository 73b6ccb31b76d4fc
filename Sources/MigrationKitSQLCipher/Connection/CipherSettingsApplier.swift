import MigrationKit

/// Checks and applies `CipherSettings`, refusing what the linked library cannot do
/// instead of letting SQLCipher ignore an unknown pragma in silence.
enum CipherSettingsApplier {
    /// Throws when the settings cannot work with the linked library or with each other.
    /// Pure: called before any file is opened or created, so a setting that cannot work
    /// never leaves a file behind.
    static func validate(_ settings: CipherSettings, library: SQLCipherVersion? = SQLCipherLibrary.cipherVersion) throws {
        guard !settings.isDefault else { return }
        let name = SQLCipherLibrary.cipherVersionString ?? "unknown"
        let major = library?.major ?? 0
        if let compatibility = settings.compatibility {
            guard (1...4).contains(compatibility) else {
                throw unsupported("Cipher compatibility must be 1, 2, 3 or 4, not \(compatibility).")
            }
            if compatibility > major {
                throw unsupported(
                    "The linked SQLCipher \(name) cannot use SQLCipher \(compatibility)'s format (it has no SHA-512 "
                        + "and no cipher_compatibility); use a build linked against SQLCipher \(compatibility), or keep the database in SQLCipher \(major)'s format.")
            }
            if major >= 4, let library, library < SQLCipherVersion(major: 4, minor: 0, patch: 1) {
                throw unsupported("The linked SQLCipher \(name) has no cipher_compatibility (it arrived in 4.0.1); upgrade SQLCipher.")
            }
        }
        if let iterations = settings.kdfIterations, iterations < 1 {
            throw unsupported("The KDF iteration count must be at least 1, not \(iterations).")
        }
        if let pageSize = settings.pageSize {
            guard CipherParameters.pageSizes.contains(pageSize) else {
                throw unsupported("The cipher page size must be a power of two from 1024 to 65536, not \(pageSize) (SQLCipher keeps up to 80 bytes of each page for its IV and HMAC, and SQLite needs 480 bytes left).")
            }
        }
        let native = CipherFormat.sqlcipher3.parameters
        try validateAlgorithm(settings.kdfAlgorithm, among: CipherParameters.kdfAlgorithms, native: native?.kdfAlgorithm ?? "", what: "KDF algorithm", major: major, name: name)
        try validateAlgorithm(settings.hmacAlgorithm, among: CipherParameters.hmacAlgorithms, native: native?.hmacAlgorithm ?? "", what: "HMAC algorithm", major: major, name: name)
        if let header = settings.plaintextHeaderSize, header != 0 {
            guard major >= 4 else {
                throw unsupported("The linked SQLCipher \(name) has no plaintext header (it arrived in 4.0); use a build linked against SQLCipher 4.")
            }
            let pageSize = settings.pageSize ?? (settings.compatibility.flatMap(CipherFormat.init(version:)) ?? .sqlcipher4).pageSize ?? 4096
            guard header > 0, CipherParameters.isPlaintextHeaderSize(header, forPageSize: pageSize) else {
                throw unsupported("The plaintext header size must be a multiple of 16 smaller than the page size (\(pageSize)), not \(header).")
            }
            guard settings.salt != nil else {
                throw unsupported("A database with a plaintext header cannot store its salt, so the salt must be given with it (16 bytes, as 32 hex digits); SQLCipher reports it as PRAGMA cipher_salt when the database is created.")
            }
        }
        if let salt = settings.salt {
            guard major >= 4 else {
                throw unsupported("The linked SQLCipher \(name) cannot set a salt (cipher_salt arrived in 4.0); use a build linked against SQLCipher 4.")
            }
            guard salt.count == CipherParameters.saltLength else {
                throw unsupported("The salt must be 16 bytes (32 hex digits), not \(salt.count).")
            }
        }
    }

    /// Applies the settings right after the key, before anything reads the file.
    ///
    /// - Parameter schema: "main", or an attached database's name (settings for a
    ///   database written by `sqlcipher_export`).
    static func apply(_ settings: CipherSettings, to database: SQLCipherDatabase, schema: String = "main") throws {
        guard !settings.isDefault else { return }
        try validate(settings)
        let prefix = schema == "main" ? "" : quoteIdentifier(schema) + "."
        let major = SQLCipherLibrary.cipherVersion?.major ?? 0
        if let compatibility = settings.compatibility {
            if major >= 4 {
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
        if major >= 4 {
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

    private static func validateAlgorithm(_ value: String?, among known: [String], native: String, what: String, major: Int, name: String) throws {
        guard let value else { return }
        let upper = value.uppercased()
        guard known.contains(upper) else {
            throw unsupported("The \(what) must be one of \(known.joined(separator: ", ")), not \(value).")
        }
        if major < 4, upper != native {
            throw unsupported("The linked SQLCipher \(name) has only \(native) as its \(what); use a build linked against SQLCipher 4 for \(upper).")
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


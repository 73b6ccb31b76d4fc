import MigrationKit

/// Facts about the linked library, read once per process.
public enum SQLCipherLibrary {
    /// The SQLite version SQLCipher is built on, e.g. "3.15.2".
    package static let sqliteVersion: String = SQLCipherDatabase.libraryVersion.text

    /// The SQLite version, to test for features (`SQLiteVersion.pragmaFunctions`, …).
    static let sqlite = SQLiteVersion(sqliteVersion) ?? SQLiteVersion(3, 0, 0)

    /// `PRAGMA quick_check(TABLE)`: one table and its indexes.
    static var hasTableQuickCheck: Bool { sqlite >= .tableQuickCheck }

    /// `PRAGMA cipher_version` as the library reports it ("3.4.1", "4.6.1 community"),
    /// or nil when the linked library is plain SQLite. Read from a private in-memory
    /// connection, so it costs no key derivation.
    package static let cipherVersionString: String? = {
        guard let version = inMemoryValue("PRAGMA cipher_version"), !version.isEmpty else { return nil }
        return version
    }()

    /// `PRAGMA compile_options` of the linked library (`ENABLE_FTS5`, …), read from a
    /// private in-memory connection: which optional features this build has.
    package static let compileOptions: Set<String> = {
        guard let database = try? SQLCipherDatabase.inMemory(),
              let options = try? database.fetchStrings(sql: "PRAGMA compile_options") else { return [] }
        // "MAX_ATTACHED=10" counts as MAX_ATTACHED.
        return Set(options.map { String($0.split(separator: "=").first ?? "") })
    }()

    /// The parsed SQLCipher version, or nil when the library is not SQLCipher.
    package static let cipherVersion: SQLCipherVersion? = cipherVersionString.flatMap(SQLCipherVersion.init(parsing:))

    /// The settings the linked library gives a database when none are set: its
    /// `cipher_default_*` pragmas, asked rather than assumed, since a distribution may
    /// build SQLCipher with other defaults. Nil before SQLCipher 4, which has no pragma
    /// for its (fixed, SHA-1) algorithms. `cipher` and `provider` are left unset: they
    /// need a keyed connection.
    static let defaultCipherSettings: EffectiveCipherSettings? = {
        guard SQLCipherFeature.formatFour.isAvailable(in: cipherVersion) else { return nil }
        // The cipher_default_* values are the process's, whichever connection asks.
        func value(_ pragma: String) -> String? { inMemoryValue("PRAGMA \(pragma)") }
        guard let pageSize = value("cipher_default_page_size").flatMap({ Int($0) }),
              let kdfIterations = value("cipher_default_kdf_iter").flatMap({ Int($0) }),
              let kdfAlgorithm = value("cipher_default_kdf_algorithm"),
              let hmacAlgorithm = value("cipher_default_hmac_algorithm"),
              let usesHMAC = value("cipher_default_use_hmac")
        else { return nil }
        return EffectiveCipherSettings(
            pageSize: pageSize, kdfIterations: kdfIterations, usesHMAC: usesHMAC == "1",
            kdfAlgorithm: kdfAlgorithm.uppercased(), hmacAlgorithm: hmacAlgorithm.uppercased(),
            cipher: nil, provider: nil,
            plaintextHeaderSize: value("cipher_default_plaintext_header_size").flatMap { Int($0) } ?? 0)
    }()

    /// The page size the linked library gives a new encrypted database when none is set
    /// (`PRAGMA cipher_default_page_size`, which SQLCipher 3 has too): 1024 on SQLCipher
    /// 3's defaults, 4096 on 4's.
    static let defaultPageSize: Int = inMemoryValue("PRAGMA cipher_default_page_size").flatMap { Int($0) }
        ?? (SQLCipherFeature.formatFour.isAvailable(in: cipherVersion) ? 4096 : 1024)

    /// Whether the library has `PRAGMA cipher_integrity_check` (`SQLCipherFeature`).
    static var hasCipherIntegrityCheck: Bool {
        SQLCipherFeature.integrityCheck.isAvailable(in: cipherVersion)
    }

    /// SQLCipher 4.5.1+ logs to standard error by default (timestamped `ERROR CORE` lines
    /// on every wrong key). Keying a connection sets the process-wide level back to WARN,
    /// so it is switched off after every key, and the log's destination is pointed at
    /// /dev/null once per process, which keying leaves alone: no library line reaches
    /// the user even while another thread is keying. Errors reach the caller as
    /// `SQLCipherError`s instead.
    static func silenceLog(on database: SQLCipherDatabase) throws {
        guard silenceLogDestination() else { return }
        try database.execute(sql: "PRAGMA cipher_log_level = NONE")
    }

    /// Sends SQLCipher's log to /dev/null, once per process, before the first key is
    /// derived: keying itself can log (with memory security on and a small
    /// `RLIMIT_MEMLOCK`, an "ERROR MEMORY sqlcipher_mlock" line per allocation), and
    /// keying resets the log level, but never the destination. False where the library
    /// has no such setting (before 4.5.1).
    @discardableResult
    static func silenceLogDestination() -> Bool {
        guard SQLCipherFeature.logSettings.isAvailable(in: cipherVersion) else { return false }
        return logDestinationSilenced
    }

    private static let logDestinationSilenced: Bool = {
        guard let database = try? SQLCipherDatabase.inMemory() else { return false }
        return (try? database.execute(sql: "PRAGMA cipher_log = '/dev/null'")) != nil
    }()

    /// Whether SQLCipher's memory security is on in this process:
    /// `PRAGMA cipher_memory_security`, SQLCipher 4's own protection of everything it
    /// allocates (pages, plaintext rows, key schedules are wiped when freed and locked
    /// while they live). Off by default since SQLCipher 4.5.0 for its cost; the
    /// `migrationkit` tool turns it on (see `enableMemorySecurity()`). Nil when the
    /// linked library has no such switch (SQLCipher 3.x).
    package static var memorySecurity: Bool? {
        guard hasMemorySecuritySwitch else { return nil }
        return inMemoryValue("PRAGMA cipher_memory_security") == "1"
    }

    /// Turns SQLCipher's memory security on for the rest of the process, for every
    /// connection, open or not: SQLCipher offers it only process-wide, and once on it
    /// cannot be turned off again. Returns whether it is on; false on SQLCipher 3.x,
    /// which has no such switch. Connections opened with
    /// `SQLCipherConfiguration.memorySecurity` call it before they key.
    @discardableResult
    package static func enableMemorySecurity() -> Bool {
        memorySecurityEnabled
    }

    /// Once per process: the switch is one-way.
    private static let memorySecurityEnabled: Bool = {
        guard hasMemorySecuritySwitch else { return false }
        silenceLogDestination()
        _ = inMemoryValue("PRAGMA cipher_memory_security = ON")
        return memorySecurity == true
    }()

    /// `cipher_memory_security` is a runtime switch from SQLCipher 4.0 on.
    private static var hasMemorySecuritySwitch: Bool {
        SQLCipherFeature.formatFour.isAvailable(in: cipherVersion)
    }

    /// The first column of the first row of `sql` on a private in-memory connection
    /// (no key derivation), or nil when it gives no row or fails.
    private static func inMemoryValue(_ sql: String) -> String? {
        guard let database = try? SQLCipherDatabase.inMemory() else { return nil }
        return try? database.fetchString(sql: sql)
    }

    /// A one-line description for status output: "SQLCipher 3.4.1 (SQLite 3.15.2)".
    public static var summary: String {
        "SQLCipher \(cipherVersionString ?? "unavailable") (SQLite \(sqliteVersion))"
    }
}

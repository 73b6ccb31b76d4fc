/// How `SQLCipherWriter` opens a database.
public struct SQLCipherConfiguration: Sendable {
    /// Create the file when it does not exist (mode 0600). When false, a missing file
    /// is an error, which is what a command-line tool wants for a mistyped path.
    public var createIfMissing: Bool = true
    /// Open read-only: writes fail, and the file is never modified.
    public var readOnly: Bool = false
    /// How long to wait for another connection's lock before failing with `.busy`.
    public var busyTimeout: Duration = .seconds(5)
    /// Enforce foreign keys (`PRAGMA foreign_keys = ON`), as GRDB does by default.
    public var foreignKeysEnabled: Bool = true
    /// Cipher parameters applied right after the key, for databases not made with the
    /// linked SQLCipher's defaults.
    public var cipher: CipherSettings = CipherSettings()

    public init() {}
}

/// SQLCipher parameters that must match the ones a database was created with.
///
/// Every setting is optional: nil means the linked library's default. A setting the
/// linked library cannot honour is refused when the database is opened, with the
/// library version named, because SQLCipher silently ignores pragmas it does not know.
public struct CipherSettings: Hashable, Sendable {
    /// `PRAGMA cipher_compatibility` (SQLCipher 4.0.1+): 3 reads and writes files in
    /// SQLCipher 3's format, 4 in SQLCipher 4's.
    public var compatibility: Int?
    /// `PRAGMA kdf_iter`: PBKDF2 iterations (64,000 by default in 3.x, 256,000 in 4.x).
    public var kdfIterations: Int?
    /// `PRAGMA cipher_page_size`: 1024 by default in 3.x, 4096 in 4.x.
    public var pageSize: Int?

    public init(compatibility: Int? = nil, kdfIterations: Int? = nil, pageSize: Int? = nil) {
        self.compatibility = compatibility
        self.kdfIterations = kdfIterations
        self.pageSize = pageSize
    }

    public var isDefault: Bool { compatibility == nil && kdfIterations == nil && pageSize == nil }
}

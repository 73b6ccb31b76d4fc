/// How `SQLCipherWriter` opens a database.
public struct SQLCipherConfiguration: Sendable {
    /// Create the file when it does not exist (mode 0600). When false, a missing file
    /// is an error, which is what a command-line tool wants for a mistyped path.
    public var createIfMissing: Bool = true
    /// Open read-only: writes fail, and the file is never modified.
    public var readOnly: Bool = false
    /// How long to wait for another connection's lock before failing with `.busy`.
    public var busyTimeout: Duration = .seconds(5)
    /// For a reader (`status`, `verify`): when another process is changing the database
    /// (it holds the write lock and MigrationKit's change lock, as a long migration
    /// does), fail with `.busy` after a moment instead of waiting out `busyTimeout`, so
    /// the reader can say at once who is changing it. Off by default.
    public var givesWayToChanges: Bool = false
    /// Enforce foreign keys (`PRAGMA foreign_keys = ON`), as GRDB does by default.
    public var foreignKeysEnabled: Bool = true
    /// Cipher parameters applied right after the key, for databases not made with the
    /// linked SQLCipher's defaults. When every setting is nil, an existing database is
    /// opened in whichever known format its key decrypts (see `CipherFormat`).
    public var cipher: CipherSettings = CipherSettings()
    /// Turn on SQLCipher's memory security before keying (SQLCipher 4.x; see
    /// `SQLCipherLibrary.enableMemorySecurity()`). Process-wide and one-way, so off by
    /// default for a library inside an app; the `migrationkit` tool turns it on.
    public var memorySecurity: Bool = false

    /// The default options: create a missing file, read and write, wait up to five
    /// seconds for a lock, enforce foreign keys, no cipher settings, memory security off.
    public init() {}
}

/// SQLCipher parameters that must match the ones a database was created with.
///
/// Every setting is optional: nil means the linked library's default. A setting the
/// linked library cannot honour is refused before any file is opened or created, with
/// the library version named, because SQLCipher silently ignores pragmas it does not
/// know.
public struct CipherSettings: Hashable, Sendable {
    /// `PRAGMA cipher_compatibility` (SQLCipher 4.0.1+): the defaults of SQLCipher 1, 2,
    /// 3 or 4. SQLCipher 3.x reaches 1, 2 and 3 by setting their defaults by hand.
    public var compatibility: Int?
    /// `PRAGMA kdf_iter`: PBKDF2 iterations (64,000 by default in 3.x, 256,000 in 4.x).
    public var kdfIterations: Int?
    /// `PRAGMA cipher_page_size`: 1024 by default in 3.x, 4096 in 4.x.
    public var pageSize: Int?
    /// `PRAGMA cipher_kdf_algorithm` (4.x): `PBKDF2_HMAC_SHA1`, `_SHA256` or `_SHA512`.
    public var kdfAlgorithm: String?
    /// `PRAGMA cipher_hmac_algorithm` (4.x): `HMAC_SHA1`, `HMAC_SHA256` or `HMAC_SHA512`.
    public var hmacAlgorithm: String?
    /// `PRAGMA cipher_plaintext_header_size` (4.x): bytes of page 1 left unencrypted
    /// (a multiple of 16). Such a file cannot hold its salt, so `salt` must be given.
    public var plaintextHeaderSize: Int?
    /// `PRAGMA cipher_salt` (4.x): the 16-byte salt, for files with a plaintext header.
    /// Not a secret: SQLCipher otherwise stores it in the clear at the start of the file.
    public var salt: [UInt8]?

    /// Settings with the values given; each one left nil is the linked library's default.
    public init(compatibility: Int? = nil, kdfIterations: Int? = nil, pageSize: Int? = nil,
                kdfAlgorithm: String? = nil, hmacAlgorithm: String? = nil,
                plaintextHeaderSize: Int? = nil, salt: [UInt8]? = nil) {
        self.compatibility = compatibility
        self.kdfIterations = kdfIterations
        self.pageSize = pageSize
        self.kdfAlgorithm = kdfAlgorithm
        self.hmacAlgorithm = hmacAlgorithm
        self.plaintextHeaderSize = plaintextHeaderSize
        self.salt = salt
    }

    /// Whether no setting is given, so opening uses the linked library's defaults or
    /// detects an existing database's format.
    public var isDefault: Bool { self == CipherSettings() }

    /// The KDF algorithms SQLCipher 4 offers.
    public static let kdfAlgorithms = ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"]
    /// The HMAC algorithms SQLCipher 4 offers.
    public static let hmacAlgorithms = ["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512"]
}

/// The known SQLCipher file formats: each major version's defaults. A database in any
/// of them opens without cipher options; anything else is `custom` and needs its
/// settings given.
public enum CipherFormat: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// PBKDF2-HMAC-SHA512 × 256,000, 4096-byte pages, HMAC-SHA512.
    case sqlcipher4
    /// PBKDF2-HMAC-SHA1 × 64,000, 1024-byte pages, HMAC-SHA1.
    case sqlcipher3
    /// PBKDF2-HMAC-SHA1 × 4,000, 1024-byte pages, HMAC-SHA1.
    case sqlcipher2
    /// PBKDF2-HMAC-SHA1 × 4,000, 1024-byte pages, no HMAC.
    case sqlcipher1
    /// Settings that match no version's defaults.
    case custom
    /// Not encrypted.
    case plaintext

    /// The major version whose defaults this format is, if any.
    public var version: Int? {
        switch self {
        case .sqlcipher4: return 4
        case .sqlcipher3: return 3
        case .sqlcipher2: return 2
        case .sqlcipher1: return 1
        case .custom, .plaintext: return nil
        }
    }

    /// The format of SQLCipher `version`'s defaults (1 to 4), or nil for any other number.
    public init?(version: Int) {
        switch version {
        case 4: self = .sqlcipher4
        case 3: self = .sqlcipher3
        case 2: self = .sqlcipher2
        case 1: self = .sqlcipher1
        default: return nil
        }
    }

    /// "SQLCipher 3 defaults", "custom settings", "plaintext".
    public var description: String {
        if let version { return "SQLCipher \(version) defaults" }
        return self == .custom ? "custom settings" : "plaintext"
    }

    /// The page size of this format's files: a file whose size is not a multiple of it
    /// cannot be in this format, which saves a key derivation when detecting.
    var pageSize: Int? {
        switch self {
        case .sqlcipher4: return 4096
        case .sqlcipher3, .sqlcipher2, .sqlcipher1: return 1024
        case .custom, .plaintext: return nil
        }
    }

    /// The formats the linked library can read with no settings given, its own first:
    /// on 4.x, 4 then 3, 2, 1 (through `cipher_compatibility`); on 3.x, 3 then 2, 1.
    static func readable(byLibraryMajor major: Int) -> [CipherFormat] {
        (1...max(1, min(major, 4))).reversed().compactMap { CipherFormat(version: $0) }
    }
}

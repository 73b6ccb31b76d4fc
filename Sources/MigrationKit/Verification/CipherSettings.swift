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
    package var kdfIterations: Int?
    /// `PRAGMA cipher_page_size`: 1024 by default in 3.x, 4096 in 4.x.
    package var pageSize: Int?
    /// `PRAGMA cipher_kdf_algorithm` (4.x): `PBKDF2_HMAC_SHA1`, `_SHA256` or `_SHA512`.
    package var kdfAlgorithm: String?
    /// `PRAGMA cipher_hmac_algorithm` (4.x): `HMAC_SHA1`, `HMAC_SHA256` or `HMAC_SHA512`.
    package var hmacAlgorithm: String?
    /// `PRAGMA cipher_plaintext_header_size` (4.x): bytes of page 1 left unencrypted
    /// (a multiple of 16). Such a file cannot hold its salt, so `salt` must be given.
    package var plaintextHeaderSize: Int?
    /// `PRAGMA cipher_salt` (4.x): the 16-byte salt, for files with a plaintext header.
    /// Not a secret: SQLCipher otherwise stores it in the clear at the start of the file.
    public var salt: [UInt8]?
    /// `PRAGMA cipher_use_hmac`: false for a database whose pages carry no HMAC (an app
    /// that turned them off for speed; SQLCipher 1's format has none). Its pages are laid
    /// out differently, so it reads only when told.
    package var usesHMAC: Bool?
    /// How an early SQLCipher 2.0 file authenticates its pages, with SQLCipher 2's
    /// defaults (format detection finds it; nil for every other file).
    package var legacyPageHMAC: LegacyPageHMAC?

    /// Settings with the values given; each one left nil is the linked library's default.
    public init(compatibility: Int? = nil, kdfIterations: Int? = nil, pageSize: Int? = nil,
                kdfAlgorithm: String? = nil, hmacAlgorithm: String? = nil,
                plaintextHeaderSize: Int? = nil, salt: [UInt8]? = nil, usesHMAC: Bool? = nil,
                legacyPageHMAC: LegacyPageHMAC? = nil) {
        self.compatibility = compatibility
        self.kdfIterations = kdfIterations
        self.pageSize = pageSize
        self.kdfAlgorithm = kdfAlgorithm
        self.hmacAlgorithm = hmacAlgorithm
        self.plaintextHeaderSize = plaintextHeaderSize
        self.salt = salt
        self.usesHMAC = usesHMAC
        self.legacyPageHMAC = legacyPageHMAC
    }

    /// Whether no setting is given, so opening uses the linked library's defaults or
    /// detects an existing database's format.
    package var isDefault: Bool { self == CipherSettings() }

    /// Whether a connection in these settings authenticates each page by its HMAC
    /// (`CipherFormat.authenticatesPages`): false with page HMACs off, given or by
    /// SQLCipher 1's defaults.
    package var authenticatesPages: Bool {
        usesHMAC ?? compatibility.flatMap(CipherFormat.init(version:))?.authenticatesPages ?? true
    }

    /// The salt as 32 hex digits, as `PRAGMA cipher_salt` answers and `--cipher-salt`
    /// takes it. Not a secret.
    package var saltHex: String? {
        salt.map { $0.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    }

    /// What an app runs after its key to open a database in these settings, in the
    /// order SQLCipher wants them ("PRAGMA cipher_page_size = 16384"); none for defaults.
    package var pragmas: [String] {
        var lines: [String] = []
        if let compatibility { lines.append("PRAGMA cipher_compatibility = \(compatibility)") }
        if let kdfIterations { lines.append("PRAGMA kdf_iter = \(kdfIterations)") }
        if let pageSize { lines.append("PRAGMA cipher_page_size = \(pageSize)") }
        if let kdfAlgorithm { lines.append("PRAGMA cipher_kdf_algorithm = \(kdfAlgorithm.uppercased())") }
        if let hmacAlgorithm { lines.append("PRAGMA cipher_hmac_algorithm = \(hmacAlgorithm.uppercased())") }
        if let usesHMAC { lines.append("PRAGMA cipher_use_hmac = \(usesHMAC ? "ON" : "OFF")") }
        if let plaintextHeaderSize { lines.append("PRAGMA cipher_plaintext_header_size = \(plaintextHeaderSize)") }
        if let saltHex { lines.append("PRAGMA cipher_salt = \"x'\(saltHex)'\"") }
        if let legacyPageHMAC { lines += legacyPageHMAC.pragmas.map { "PRAGMA \($0.name) = \($0.value)" } }
        return lines
    }
}


/// One of the settings a SQLCipher database is made with, by name: what a sentence asks
/// for when a file opens in none of the formats tried (`Remedy.giveCipherSettings`), each
/// program naming it as it takes it (an option, a field of `CipherSettings`).
public enum CipherSetting: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `CipherSettings.compatibility`.
    case compatibility
    /// `CipherSettings.pageSize`.
    case pageSize
    /// `CipherSettings.kdfIterations`.
    case kdfIterations
    /// `CipherSettings.kdfAlgorithm`.
    case kdfAlgorithm
    /// `CipherSettings.hmacAlgorithm`.
    case hmacAlgorithm
    /// `CipherSettings.usesHMAC`.
    case usesHMAC
    /// `CipherSettings.plaintextHeaderSize` with `CipherSettings.salt`.
    case plaintextHeader
    /// `CipherSettings.salt`.
    case salt

    /// "page size", "KDF iterations", …
    public var description: String {
        switch self {
        case .compatibility: return "compatibility"
        case .pageSize: return "page size"
        case .kdfIterations: return "KDF iterations"
        case .kdfAlgorithm: return "KDF algorithm"
        case .hmacAlgorithm: return "HMAC algorithm"
        case .usesHMAC: return "page HMACs off"
        case .plaintextHeader: return "a plaintext header with its salt"
        case .salt: return "salt"
        }
    }

    /// The settings that could still explain a file that opens in no format detection
    /// tried: not the compatibility (each format's defaults were tried), not a plaintext
    /// header (such a file starts with SQLite's plaintext header and is told apart by
    /// it), no KDF setting for a raw key (SQLCipher uses it as it is), and none the
    /// linked library cannot set (SQLCipher 3 has one KDF and one HMAC algorithm).
    static func couldExplainUnreadable(library: SQLCipherVersion?, rawKey: Bool) -> [CipherSetting] {
        let four = library.map(SQLCipherFeature.formatFour.isAvailable(in:)) ?? true
        return [
            .pageSize,
            rawKey ? nil : .kdfIterations,
            rawKey || !four ? nil : .kdfAlgorithm,
            four ? .hmacAlgorithm : nil,
            .usesHMAC,
        ].compactMap { $0 }
    }
}

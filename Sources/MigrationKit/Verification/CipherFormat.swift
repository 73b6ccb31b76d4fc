import Foundation

/// The known SQLCipher file formats: each major version's defaults. A database in any of
/// them opens without cipher options; anything else is `custom` and needs its settings
/// given. In the core because every layer over SQLCipher names them: the SQLCipher
/// connection, and a GRDB built on SQLCipher (`Configuration.useKey(_:format:)`).
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
    package var pageSize: Int? {
        switch self {
        case .sqlcipher4: return 4096
        case .sqlcipher3, .sqlcipher2, .sqlcipher1: return 1024
        case .custom, .plaintext: return nil
        }
    }

    /// The formats the linked library can read with no settings given, its own first:
    /// on 4.x, 4 then 3, 2, 1 (through `cipher_compatibility`); on 3.x, 3 then 2, 1.
    package static func readable(byLibraryMajor major: Int) -> [CipherFormat] {
        (1...max(1, min(major, 4))).reversed().compactMap { CipherFormat(version: $0) }
    }
}

/// What SQLCipher added in which release, for the rules that depend on the linked
/// library: one table, as `SQLFeature` is for SQLite, instead of a version written where
/// each rule is. SQLCipher ignores a pragma it does not know and answers nothing, which
/// reads as success: whatever uses one of these asks here first.
///
/// Versions from SQLCipher's CHANGELOG.md.
public struct SQLCipherFeature: Hashable, Sendable, CustomStringConvertible {
    /// The pragmas or settings it brought, as sentences name them.
    public let name: String
    /// The first release that has it.
    public let addedIn: SQLCipherVersion

    /// 4.0.0: SQLCipher 4's format (SHA-512), `cipher_kdf_algorithm`,
    /// `cipher_hmac_algorithm`, `cipher_plaintext_header_size`, `cipher_salt`, and
    /// `cipher_memory_security` as a switch at run time.
    public static let formatFour = SQLCipherFeature(name: "SQLCipher 4's format and its algorithm, plaintext header and salt settings",
                                                    addedIn: SQLCipherVersion(major: 4, minor: 0, patch: 0))
    /// 4.0.1: `cipher_compatibility`, which reads and writes older versions' formats.
    public static let compatibility = SQLCipherFeature(name: "cipher_compatibility", addedIn: SQLCipherVersion(major: 4, minor: 0, patch: 1))
    /// 4.2.0: `cipher_integrity_check`, every page's HMAC checked.
    public static let integrityCheck = SQLCipherFeature(name: "cipher_integrity_check", addedIn: SQLCipherVersion(major: 4, minor: 2, patch: 0))
    /// 4.5.1: `cipher_log` and `cipher_log_level`, where SQLCipher's own log goes.
    public static let logSettings = SQLCipherFeature(name: "cipher_log and cipher_log_level", addedIn: SQLCipherVersion(major: 4, minor: 5, patch: 1))

    /// Whether a library of `version` has it (nil: no SQLCipher, or an unknown one).
    public func isAvailable(in version: SQLCipherVersion?) -> Bool {
        version.map { $0 >= addedIn } ?? false
    }

    /// "cipher_integrity_check (SQLCipher 4.2.0)".
    public var description: String { "\(name) (SQLCipher \(addedIn))" }
}

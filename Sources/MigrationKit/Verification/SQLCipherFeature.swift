/// What SQLCipher added in which release, for the rules that depend on the linked
/// library: one table, as `SQLFeature` is for SQLite, instead of a version written where
/// each rule is. SQLCipher ignores a pragma it does not know and answers nothing, which
/// reads as success: whatever uses one of these asks here first.
///
/// Versions from SQLCipher's CHANGELOG.md.
package struct SQLCipherFeature: Hashable, Sendable, CustomStringConvertible {
    /// The pragmas or settings it brought, as sentences name them.
    package let name: String
    /// The first release that has it.
    let addedIn: SQLCipherVersion

    /// 4.0.0: SQLCipher 4's format (SHA-512), `cipher_kdf_algorithm`,
    /// `cipher_hmac_algorithm`, `cipher_plaintext_header_size`, `cipher_salt`, and
    /// `cipher_memory_security` as a switch at run time.
    package static let formatFour = SQLCipherFeature(name: "SQLCipher 4's format and its algorithm, plaintext header and salt settings",
                                                    addedIn: SQLCipherVersion(major: 4, minor: 0, patch: 0))
    /// 4.0.1: `cipher_compatibility`, which reads and writes older versions' formats.
    package static let compatibility = SQLCipherFeature(name: "cipher_compatibility", addedIn: SQLCipherVersion(major: 4, minor: 0, patch: 1))
    /// 4.2.0: `cipher_integrity_check`, every page's HMAC checked.
    package static let integrityCheck = SQLCipherFeature(name: "cipher_integrity_check", addedIn: SQLCipherVersion(major: 4, minor: 2, patch: 0))
    /// 4.5.1: `cipher_log` and `cipher_log_level`, where SQLCipher's own log goes.
    package static let logSettings = SQLCipherFeature(name: "cipher_log and cipher_log_level", addedIn: SQLCipherVersion(major: 4, minor: 5, patch: 1))
    /// 4.7.0: "Expands keyspec/raw key format to accept key, HMAC key, and salt": a raw
    /// key of 160 hex digits, `x'<key><HMAC key><salt>'`. Earlier versions read that
    /// text as a passphrase, so a key in it never reaches one (`neededForRawKey`).
    static let rawKeyWithHMACKey = SQLCipherFeature(name: "raw keys with their HMAC key and salt (x' and 160 hex digits)",
                                                           addedIn: SQLCipherVersion(major: 4, minor: 7, patch: 0))

    /// What a raw key of `hexDigits` hex digits (`x'…'`) needs of the library, or nil when
    /// every SQLCipher reads it as a raw key (64 digits, the key; 96, with its salt).
    package static func neededForRawKey(hexDigits: Int) -> SQLCipherFeature? {
        hexDigits == 160 ? rawKeyWithHMACKey : nil
    }

    /// Why a raw key of `hexDigits` hex digits is not handed to a library of `version`,
    /// or nil when that library reads it as a raw key: the middle of the sentence that
    /// refuses it, "x' and 160 hex digits, which the linked SQLCipher 4.6.1 reads as a
    /// passphrase …; open the database with SQLCipher 4.7.0 or later".
    package static func rawKeyRefusal(hexDigits: Int, library version: SQLCipherVersion?) -> String? {
        guard let feature = neededForRawKey(hexDigits: hexDigits), !feature.isAvailable(in: version) else { return nil }
        let linked = version.map { "the linked SQLCipher \($0)" } ?? "the linked SQLCipher"
        return "x' and \(hexDigits) hex digits, which \(linked) reads as a passphrase and SQLCipher \(feature.addedIn) and later as a raw key with its HMAC key and salt, so it was not used; open the database with SQLCipher \(feature.addedIn) or later"
    }

    /// Why a raw key of `hexDigits` hex digits, which a library of `version` reads as a
    /// passphrase, did not open a database read so: the middle of the sentence, "x' and
    /// 160 hex digits, which the linked SQLCipher 4.6.1 reads as a passphrase, and as one
    /// it does not open this database; …". Nil where the library reads it as a raw key.
    package static func rawKeyAsPassphraseFailure(hexDigits: Int, library version: SQLCipherVersion?) -> String? {
        guard let feature = neededForRawKey(hexDigits: hexDigits), !feature.isAvailable(in: version) else { return nil }
        let linked = version.map { "the linked SQLCipher \($0)" } ?? "the linked SQLCipher"
        return "x' and \(hexDigits) hex digits, which \(linked) reads as a passphrase (as every SQLCipher before \(feature.addedIn) did), and as one it does not open this database; if it is a raw key with its HMAC key and salt, open the database with SQLCipher \(feature.addedIn) or later"
    }

    /// Whether a library of `version` has it (nil: no SQLCipher, or an unknown one).
    package func isAvailable(in version: SQLCipherVersion?) -> Bool {
        version.map { $0 >= addedIn } ?? false
    }

    /// "cipher_integrity_check (SQLCipher 4.2.0)".
    package var description: String { "\(name) (SQLCipher \(addedIn))" }
}

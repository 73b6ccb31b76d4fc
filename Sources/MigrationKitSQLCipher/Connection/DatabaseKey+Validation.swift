@_exported import MigrationKitSecrets
import MigrationKit

// `import MigrationKitSQLCipher` keeps giving apps `DatabaseKey` and `SecretBytes`,
// which live in the C-free `MigrationKitSecrets` (re-exported above).

/// Checking a key before it reaches SQLCipher, so an unusable key is refused
/// (`SQLCipherError.Kind.invalidKey`) before any file is opened with it.
extension DatabaseKey {
    /// Throws when the key cannot be used: an empty passphrase (SQLCipher would treat
    /// it as "no encryption" and write a plaintext file), a raw key of the wrong length,
    /// or one in a form the linked SQLCipher would read as a passphrase
    /// (`SQLCipherFeature.rawKeyRefusal`), which would key the file with another key than
    /// the one given. For a key that keys a new database or a copy; one that opens a
    /// database already keyed is checked by `validateForOpening()`.
    func validate() throws {
        try validateForOpening()
        if let form = rawKeyForm, let refusal = SQLCipherFeature.rawKeyRefusal(hexDigits: form.hexDigits, library: SQLCipherLibrary.cipherVersion) {
            throw SQLCipherError(kind: .invalidKey, message: "The key is \(refusal).")
        }
    }

    /// `validate()` for a key that opens a database already keyed: a raw key of a form the
    /// linked SQLCipher reads as a passphrase is tried as that passphrase, which is what a
    /// file keyed with its text before SQLCipher 4.7 opens with (`SQLCipherOpener`).
    func validateForOpening() throws {
        if let reason = unusableReason { throw SQLCipherError(kind: .invalidKey, message: reason) }
    }
}

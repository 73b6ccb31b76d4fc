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
    /// the one given.
    ///
    /// A passphrase whose bytes the linked SQLCipher would read as a raw key is refused
    /// too: as a new key it would key the file with another key than the passphrase's
    /// (`PassphraseDerivation`; `validateForOpening()` takes it).
    package func validate() throws {
        try validateForOpening()
        if let form = passphraseRawKeyForm, SQLCipherFeature.readsAsRawKey(hexDigits: form.hexDigits, library: SQLCipherLibrary.cipherVersion) {
            throw PassphraseDerivation.notForANewDatabase(form)
        }
    }

    /// `validate()` for a key that opens a database already keyed: a passphrase SQLCipher
    /// would read as a raw key opens it, its key derived by MigrationKit.
    package func validateForOpening() throws {
        if let reason = unusableReason { throw SQLCipherError(kind: .invalidKey, message: reason) }
        if let form = rawKeyForm, let refusal = SQLCipherFeature.rawKeyRefusal(hexDigits: form.hexDigits, library: SQLCipherLibrary.cipherVersion) {
            throw SQLCipherError(kind: .invalidKey, message: "The key is \(refusal).")
        }
    }
}

@_exported import MigrationKitSecrets

// `import MigrationKitSQLCipher` keeps giving apps `DatabaseKey` and `SecretBytes`,
// which live in the C-free `MigrationKitSecrets` (re-exported above).

/// Checking a key before it reaches SQLCipher, so an unusable key is refused
/// (`SQLCipherError.Kind.invalidKey`) before any file is opened with it.
extension DatabaseKey {
    /// Throws when the key cannot be used: an empty passphrase (SQLCipher would treat
    /// it as "no encryption" and write a plaintext file) or a raw key of the wrong length.
    public func validate() throws {
        if let reason = unusableReason { throw SQLCipherError(kind: .invalidKey, message: reason) }
    }
}

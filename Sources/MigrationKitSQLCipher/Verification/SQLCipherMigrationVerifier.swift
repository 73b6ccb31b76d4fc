import MigrationKit

/// The checks run after every migrate and rollback of an SQLCipher database, and by
/// `migrationkit verify`: the core's `MigrationVerifier`, under the name this module's
/// runner gives it.
public typealias SQLCipherMigrationVerifier = MigrationVerifier

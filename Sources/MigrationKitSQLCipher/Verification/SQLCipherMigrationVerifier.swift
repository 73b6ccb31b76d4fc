import Foundation
import MigrationKit

/// The checks run after every migrate and rollback, and by `migrationkit verify`.
///
/// Two parts, each replaceable through `MigrationHostIntegration`:
/// - integrity: `PRAGMA quick_check(1)` (every page readable and well-formed; with
///   SQLCipher's per-page HMAC, a tampered or flipped byte shows up here), and on
///   SQLCipher 4.2+ `PRAGMA cipher_integrity_check`;
/// - post-migration: `PRAGMA foreign_key_check` and the required indexes.
public struct SQLCipherMigrationVerifier: Sendable {
    /// Indexes that must exist after every migration, checked in the post-migration part.
    public var requiredIndexes: [RequiredIndexSpec]

    /// A verifier that also insists on `requiredIndexes` (none by default).
    public init(requiredIndexes: [RequiredIndexSpec] = []) {
        self.requiredIndexes = requiredIndexes
    }

    /// Throws the first integrity problem found.
    public func verifyIntegrity(_ db: SQLCipherDatabase) throws {
        if let failure = integrityChecks(db).lazy.compactMap(\.failure).first { throw failure }
    }

    /// Throws if a page of the file fails its HMAC (SQLCipher 4.2+; nothing to check
    /// on older versions). For a check that must run before a transaction: within
    /// one, `integrityChecks` leaves it out.
    func verifyFileIntegrity(_ db: SQLCipherDatabase) throws {
        guard SQLCipherLibrary.hasCipherIntegrityCheck else { return }
        if let failure = DatabaseChecks.cipherIntegrityCheck(db).failure { throw failure }
    }

    /// Throws the first post-migration problem found.
    public func verifyPostMigration(_ db: SQLCipherDatabase) throws {
        try verifyPostMigration(db, foreignKeys: .strict)
    }

    /// Throws the first post-migration problem found, judging foreign-key violations
    /// as `foreignKeys` says.
    public func verifyPostMigration(_ db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification) throws {
        if let failure = postMigrationChecks(db, foreignKeys: foreignKeys).lazy.compactMap(\.failure).first { throw failure }
    }

    /// Runs both parts and throws the first problem found.
    public func verify(_ db: SQLCipherDatabase) throws {
        try verifyIntegrity(db)
        try verifyPostMigration(db)
    }

    /// Every integrity check, passed or failed. On SQLCipher 4.2+ the page HMACs are
    /// checked first, whatever quick_check then says: `cipher_integrity_check` names the
    /// damaged pages, which quick_check (it reads the b-trees) cannot.
    public func integrityChecks(_ db: SQLCipherDatabase) -> [VerificationCheck] {
        var checks: [VerificationCheck] = []
        // Not inside a transaction: the pragma reads the pages in the file, not the
        // transaction's, and names every page a large transaction has spilled or grown
        // the database by as failing its HMAC. An atomic migrate checks the file before
        // its transaction instead (`verifyFileIntegrity`).
        if SQLCipherLibrary.hasCipherIntegrityCheck && !db.isInsideTransaction {
            checks.append(DatabaseChecks.cipherIntegrityCheck(db))
        }
        checks.append(DatabaseChecks.quickCheck(db))
        return checks
    }

    /// Every post-migration check, passed or failed.
    public func postMigrationChecks(_ db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification = .strict) -> [VerificationCheck] {
        let foreignKeyChecks: [VerificationCheck]
        switch foreignKeys {
        case .checkedByTransaction: foreignKeyChecks = []
        case .strict: foreignKeyChecks = [DatabaseChecks.foreignKeyCheck(db)]
        case .tolerating(let tolerated): foreignKeyChecks = [DatabaseChecks.foreignKeyCheck(db, tolerating: tolerated)]
        }
        return foreignKeyChecks + requiredIndexes.map { DatabaseChecks.indexCheck($0, db) }
    }

    /// The integrity checks of a verification limited to what a migration changed:
    /// `quick_check` of each of `tables` (with its indexes) on SQLite 3.33+, of the
    /// whole file before. No `cipher_integrity_check`: it can only read the whole file.
    func changedTableIntegrityChecks(_ db: SQLCipherDatabase, tables: [String]) -> [VerificationCheck] {
        guard SQLCipherLibrary.hasTableQuickCheck else { return [DatabaseChecks.quickCheck(db)] }
        return tables.map { DatabaseChecks.quickCheck(db, table: $0) }
    }
}

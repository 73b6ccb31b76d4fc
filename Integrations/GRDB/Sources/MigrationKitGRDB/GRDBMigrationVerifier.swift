import GRDB
import MigrationKit

/// The checks run after every migrate and rollback over a GRDB database: `quick_check`
/// (integrity), then foreign keys and the indexes the app requires (post-migration).
/// Each failure is the `MigrationKitError` the SQLCipher verifier throws for it.
public struct GRDBMigrationVerifier: Sendable {
    /// Indexes that must exist after migrating: a query plan the app relies on.
    public var requiredIndexes: [RequiredIndexSpec]

    public init(requiredIndexes: [RequiredIndexSpec] = []) {
        self.requiredIndexes = requiredIndexes
    }

    /// `PRAGMA quick_check`: the file's structure.
    public func verifyIntegrity(_ db: Database) throws {
        let results = try String.fetchAll(db, sql: "PRAGMA quick_check")
        if results != ["ok"] {
            throw MigrationKitError.quickCheckFailed(result: results.prefix(10).joined(separator: "; "))
        }
    }

    /// `PRAGMA foreign_key_check`, then the required indexes.
    public func verifyPostMigration(_ db: Database) throws {
        let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
        if violations > 0 { throw MigrationKitError.foreignKeyViolations(count: violations) }
        for required in requiredIndexes {
            let present = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?",
                arguments: [required.table, required.index]) ?? false
            if !present { throw MigrationKitError.missingIndex(table: required.table, index: required.index) }
        }
    }

    /// Both parts.
    public func verify(_ db: Database) throws {
        try verifyIntegrity(db)
        try verifyPostMigration(db)
    }
}

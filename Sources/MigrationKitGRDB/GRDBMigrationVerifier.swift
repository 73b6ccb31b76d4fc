import GRDB
import MigrationKit

/// The checks run after every migrate and rollback over a GRDB database: `quick_check`
/// (integrity; first `cipher_integrity_check` on an encrypted connection of a GRDB built
/// on SQLCipher 4.2+, as the SQLCipher verifier does), then foreign keys and the indexes
/// the app requires (post-migration).
/// The SQL is MigrationKit's (`DatabaseChecks`), so each check, its name, its detail
/// and its `MigrationKitError` are the SQLCipher verifier's.
public struct GRDBMigrationVerifier: Sendable {
    /// Indexes that must exist after migrating: a query plan the app relies on.
    public var requiredIndexes: [RequiredIndexSpec]

    /// A verifier that also requires `requiredIndexes` (none by default).
    public init(requiredIndexes: [RequiredIndexSpec] = []) {
        self.requiredIndexes = requiredIndexes
    }

    /// `PRAGMA quick_check`: the file's structure, passed or failed. Before it, on an
    /// encrypted connection of a GRDB built on SQLCipher 4.2+, `PRAGMA
    /// cipher_integrity_check`, which names the pages whose HMAC fails; not where this
    /// connection may have written in the open transaction, since the pragma reads the
    /// file's pages, not the transaction's. A GRDB read (`read`, a pool's reader) is a
    /// read-only transaction, which has the file's pages.
    public func integrityChecks(_ db: Database) -> [VerificationCheck] {
        let pages = !Self.mayHaveWritten(db) && DatabaseChecks.checksCipherPages(db)
        return (pages ? [DatabaseChecks.cipherIntegrityCheck(db)] : []) + [DatabaseChecks.quickCheck(db)]
    }

    /// Whether the open transaction, if any, can hold writes: not in a read-only
    /// connection (a pool's reader) nor in GRDB's read-only access (`PRAGMA query_only`).
    private static func mayHaveWritten(_ db: Database) -> Bool {
        guard db.isInsideTransaction, !db.configuration.readonly else { return false }
        return (try? db.textColumn(sql: "PRAGMA query_only").first) != "1"
    }

    /// `PRAGMA foreign_key_check`, then the required indexes, passed or failed.
    /// - Parameters:
    ///   - db: the connection to check through.
    ///   - tolerated: violations that pass: the database had them before a
    ///     rollback that did not add them. None by default.
    public func postMigrationChecks(_ db: Database, tolerating tolerated: ForeignKeyViolations = ForeignKeyViolations()) -> [VerificationCheck] {
        [DatabaseChecks.foreignKeyCheck(db, tolerating: tolerated)] + requiredIndexes.map { DatabaseChecks.indexCheck($0, db) }
    }

    /// Throws the first integrity problem found.
    public func verifyIntegrity(_ db: Database) throws {
        if let failure = VerificationReport(checks: integrityChecks(db)).firstFailure { throw failure }
    }

    /// Throws the first post-migration problem found.
    public func verifyPostMigration(_ db: Database) throws {
        if let failure = VerificationReport(checks: postMigrationChecks(db)).firstFailure { throw failure }
    }

    /// Both parts.
    public func verify(_ db: Database) throws {
        try verifyIntegrity(db)
        try verifyPostMigration(db)
    }
}

extension GRDB.Database: SQLQuerying {
    public func forEachTextRow(sql: String, arguments: [String], _ body: ([String?]) throws -> Void) throws {
        let rows = try Row.fetchCursor(self, sql: sql, arguments: StatementArguments(arguments))
        while let row = try rows.next() {
            try body((0..<row.count).map { index in
                switch (row[index] as DatabaseValue).storage {
                case .string(let text): return text
                case .int64(let value): return String(value)
                case .double(let value): return String(value)
                case .null, .blob: return nil
                }
            })
        }
    }

    /// SQLite's message alone, without the code and statement GRDB adds.
    public static func message(of error: any Error) -> String {
        (error as? DatabaseError)?.message ?? String(describing: error)
    }
}

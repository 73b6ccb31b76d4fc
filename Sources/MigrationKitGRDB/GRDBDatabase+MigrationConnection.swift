import GRDB
import MigrationKit
import MigrationKitFiles

/// GRDB's `Database` as the migration engine needs it (`MigrationConnection`), for what
/// the GRDB runner does beyond GRDB's migrator (rollback, atomic and dry runs). GRDB
/// keeps SQLite's authorizer and commit hook for itself (its statement regions, its
/// transaction observers), so this layer tells the engine neither which tables a step
/// wrote (a verification limited to changes looks at the whole file) nor refuses a
/// step's COMMIT (the engine notices the ended transaction after the step).
extension GRDB.Database: MigrationConnection {
    /// As GRDB's migrator runs a step: without the app's `schemaSource`, so that a
    /// step reads the schema as SQLite has it, whatever the app tells GRDB about it.
    package func runningStep<T>(_ body: () throws -> T) throws -> T {
        try withSchemaSource(nil, execute: body)
    }

    package func inImmediateTransaction<T>(_ body: () throws -> TransactionEnd<T>) throws -> T {
        var result: T?
        try inTransaction(.immediate) {
            switch try body() {
            case .commit(let value):
                result = value
                return .commit
            case .rollBack(let value):
                result = value
                return .rollback
            }
        }
        guard let result else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "The transaction ended without a result.") }
        return result
    }

    /// Past a stop the commands ask for (`Interruption`), which their connections hear
    /// through SQLite's progress handler (`GRDBStatementStop`), as the SQLCipher
    /// connection's cleanups do.
    package func unstoppable<T>(_ body: () throws -> T) rethrows -> T {
        try Interruption.unstoppable(body)
    }

    package var sqlite: SQLiteVersion {
        (try? String.fetchOne(self, sql: "SELECT sqlite_version()")).flatMap { $0 }.flatMap(SQLiteVersion.init) ?? SQLiteVersion(3, 0, 0)
    }

    /// Not in a read-only connection (a pool's reader), nor in GRDB's read-only access
    /// (`PRAGMA query_only`).
    package var mayHaveWrittenInTransaction: Bool {
        guard isInsideTransaction, !configuration.readonly else { return false }
        return (try? textColumn(sql: "PRAGMA query_only").first) != "1"
    }
}

extension DatabaseError: DatabaseStatementError {
    public var sqliteMessage: String { message ?? "\(resultCode)" }
    public var failedStatement: String? { sql }
}

/// A statement that failed because of the file system (a full disk, an I/O error, a
/// journal that cannot be created) explains itself as SQLCipher's errors do: the
/// core's one table, so a failed step's `MigrationStepError` says the same on both.
extension DatabaseError: ExplainableError {
    package var explanation: FailureExplanation? {
        // No statement: the open itself failed, and GRDB's message says how.
        guard sql != nil else { return nil }
        return FailureExplanation.forSQLite(resultCode: migrationKitResultCode)
    }
}

extension DatabaseError {
    /// GRDB's extended result code as the core's `SQLiteResultCode`, the shape every
    /// connection's errors leave their connection with: GRDB's own type stays inside
    /// this module and the GRDB command line.
    package var migrationKitResultCode: SQLiteResultCode {
        SQLiteResultCode(rawValue: extendedResultCode.rawValue)
    }
}

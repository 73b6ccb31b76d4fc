import MigrationKit

/// The SQLCipher connection as the migration engine needs it (`MigrationConnection`):
/// SQLite's own authorizer tells which tables a step writes, its commit hook refuses a
/// step's COMMIT, and a stop asked by a signal (`Interruption`) waits for the engine's
/// cleanups.
extension SQLCipherDatabase: MigrationConnection {
    package func inImmediateTransaction<T>(_ body: () throws -> TransactionEnd<T>) throws -> T {
        try inTransaction(.immediate, body)
    }

    package var sqlite: SQLiteVersion { SQLCipherLibrary.sqlite }

    package func runningStep<T>(_ body: () throws -> T) throws -> T {
        try forbiddingCommits(body)
    }

    package static func isRefusedCommit(_ error: any Error) -> Bool {
        (error as? SQLCipherError)?.resultCode == .SQLITE_CONSTRAINT_COMMITHOOK
    }

    package var canRecordWrittenTables: Bool { true }

    package func unstoppable<T>(_ body: () throws -> T) rethrows -> T {
        try Interruption.unstoppable(body)
    }
}

extension SQLCipherError: DatabaseStatementError {
    public var sqliteMessage: String { message }
    public var failedStatement: String? { sql }
}

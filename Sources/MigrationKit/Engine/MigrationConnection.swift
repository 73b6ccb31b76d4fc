/// A database connection as the migration engine (`MigrationEngine`) needs it: the
/// statements MigrationKit itself runs (`BookkeepingExecuting`), SQL a database stored
/// (`SQLFileExecuting`: a newer step's down, `MigrationDowngradeTable`), its transactions,
/// and what the layer can tell of what a step did.
///
/// SQLCipher's connection and GRDB's `Database` conform: the engine is written once, and
/// a connection only runs SQL and names its own errors. A conforming connection is used
/// only inside the writer that handed it out, one call at a time, like GRDB's
/// `Database`; a class, whose identity the engine keeps track of during a run.
package protocol MigrationConnection: BookkeepingExecuting, SQLFileExecuting, AnyObject {
    /// Whether a transaction is open.
    var isInsideTransaction: Bool { get }

    /// Whether the open transaction, if any, may hold writes not yet in the file, which
    /// a check that reads the file's pages (`cipher_integrity_check`) would misjudge.
    var mayHaveWrittenInTransaction: Bool { get }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction and ends it as `body` says:
    /// committed, or rolled back with nothing thrown (a dry run, an attempt made again
    /// in a new transaction, `StepTransaction`). Rolled back, too, when `body` throws or
    /// when the commit fails. A layer cleans up after a rollback as it must (SQLCipher
    /// drops its cached pages).
    func inImmediateTransaction<T>(_ body: () throws -> TransactionEnd<T>) throws -> T

    /// The SQLite this connection runs on, for what it can do
    /// (`SQLiteVersion.pragmaFunctions`, …).
    var sqlite: SQLiteVersion { get }

    /// Runs a step's closure as the layer runs one: where it can, a COMMIT, END or
    /// ROLLBACK inside it fails instead of ending the engine's transaction (SQLCipher's
    /// commit hook; a layer that cannot refuse one leaves it to the engine, which
    /// notices an ended transaction afterwards); GRDB's hides the app's `schemaSource`
    /// from the step, as GRDB's migrator does.
    func runningStep<T>(_ body: () throws -> T) throws -> T

    /// Whether `error` is a commit `runningStep` refused.
    static func isRefusedCommit(_ error: any Error) -> Bool

    /// Whether `recordingWrittenTables` can tell what a step wrote. Without it, a
    /// verification limited to what changed looks at the whole file instead.
    var canRecordWrittenTables: Bool { get }

    /// Runs `body`, noting the tables of the main database its statements write (rows
    /// inserted, updated or deleted, tables and indexes created, dropped or altered), as
    /// the layer learns them (SQLite's authorizer), and whether a statement renamed a
    /// table.
    func recordingWrittenTables<T>(_ body: () throws -> T) throws -> (result: T, tables: Set<String>, renamesTable: Bool)

    /// Whether the schema this connection has loaded holds a table of this name: a
    /// lookup, where `tableExists` scans the schema table.
    func loadedSchemaHasTable(_ name: String) throws -> Bool

    /// Runs `body` to its end even when the process was asked to stop meanwhile: the
    /// cleanups after a change (foreign keys back on, a journal mode put back). A layer
    /// with no graceful stop just runs it.
    func unstoppable<T>(_ body: () throws -> T) rethrows -> T
}

/// How the body of `MigrationConnection.inImmediateTransaction` ends its transaction,
/// with what it made.
package enum TransactionEnd<Value> {
    /// Committed.
    case commit(Value)
    /// Rolled back.
    case rollBack(Value)
}

extension MigrationConnection {
    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: committed when it returns, rolled
    /// back when it throws or when the commit fails.
    package func inImmediateTransaction<T>(_ body: () throws -> T) throws -> T {
        try inImmediateTransaction { .commit(try body()) }
    }

    package var mayHaveWrittenInTransaction: Bool { isInsideTransaction }

    package func runningStep<T>(_ body: () throws -> T) throws -> T { try body() }

    package static func isRefusedCommit(_ error: any Error) -> Bool { false }

    package var canRecordWrittenTables: Bool { false }

    package func recordingWrittenTables<T>(_ body: () throws -> T) throws -> (result: T, tables: Set<String>, renamesTable: Bool) {
        (try body(), [], false)
    }

    package func loadedSchemaHasTable(_ name: String) throws -> Bool { try tableExists(name) }

    package func unstoppable<T>(_ body: () throws -> T) rethrows -> T { try body() }

    /// The first column of the first row of `sql`, as text.
    func fetchText(sql: String, arguments: [String] = []) throws -> String? {
        var value: String?
        var found = false
        try forEachTextRow(sql: sql, arguments: arguments) { row in
            if !found { value = row.first ?? nil }
            found = true
        }
        return value
    }

    /// The first column of the first row of `sql`, as an integer.
    func fetchInteger(sql: String, arguments: [String] = []) throws -> Int? {
        try fetchText(sql: sql, arguments: arguments).flatMap { Int($0) }
    }

    /// Whether foreign-key enforcement is on.
    func foreignKeysEnabled() throws -> Bool {
        try fetchInteger(sql: "PRAGMA foreign_keys") == 1
    }

    /// Turns foreign-key enforcement on or off (a no-op inside a transaction).
    func setForeignKeysEnabled(_ enabled: Bool) throws {
        try execute(BookkeepingStatement("PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")"))
    }
}

import GRDB
import MigrationKit

/// MigrationKit's bookkeeping on a GRDB connection: every statement is the core's
/// (`MigrationBookkeeping`, `MigrationLedgerTable`, `MigrationHistoryTable`), the same
/// the SQLCipher runner runs; GRDB's migrator writes its own ledger rows as it applies
/// steps, and the runner adds the history beside them.
extension GRDB.Database: BookkeepingExecuting {
    /// Runs one of the core's ledger or history statements, with its arguments bound,
    /// so both runners write the ledger and the history alike.
    ///
    /// One with arguments (a history row, a ledger row) is prepared once per connection
    /// and kept in GRDB's statement cache: a run of many steps writes one per step.
    package func execute(_ statement: BookkeepingStatement) throws {
        guard !statement.arguments.isEmpty else { return try execute(sql: statement.sql) }
        try cachedStatement(sql: statement.sql).execute(arguments: StatementArguments(statement.arguments.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): return text
            case .integer(let integer): return integer
            case .null: return nil
            }
        }))
    }
}

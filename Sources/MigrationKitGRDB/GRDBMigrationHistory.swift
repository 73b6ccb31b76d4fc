import GRDB
import MigrationKit

/// MigrationKit's bookkeeping on a GRDB connection. Every statement is the core's
/// (`MigrationBookkeeping`, `MigrationLedgerTable`, `MigrationHistoryTable`), the same
/// the SQLCipher runner runs; GRDB's migrator writes its own ledger rows as it applies
/// steps, and this adds the history beside them.
enum GRDBMigrationHistory {
    /// How long each step took, as recorded when it ran (0 for a step another tool
    /// applied), by identifier.
    static func durations(in db: Database) throws -> [String: Duration] {
        guard try db.tableExists(MigrationHistoryTable.name) else { return [:] }
        var durations: [String: Duration] = [:]
        for row in try Row.fetchAll(db, sql: MigrationHistoryTable.selectSQL) {
            durations[row[0]] = .milliseconds(row[3] as Int64? ?? 0)
        }
        return durations
    }
}

extension GRDB.Database: BookkeepingExecuting {
    /// Runs one of the core's ledger or history statements, with its arguments bound,
    /// so both runners write `grdb_migrations` and `migrationkit_history` alike.
    package func execute(_ statement: BookkeepingStatement) throws {
        try execute(sql: statement.sql, arguments: StatementArguments(statement.arguments.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): return text
            case .integer(let integer): return integer
            case .null: return nil
            }
        }))
    }
}

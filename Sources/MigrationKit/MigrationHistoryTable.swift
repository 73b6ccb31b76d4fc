/// MigrationKit's side table beside GRDB's ledger: each applied step's checksum, when
/// it was applied and how long it took. Every database layer (SQLCipher, GRDB) keeps the
/// same table, so a database carries its history from one to the other.
///
/// Its name begins with `grdb_`, the prefix GRDB keeps for its own tables
/// (`Database.isGRDBInternalTable`): GRDB's `dumpSchema()`, `dumpContent()` and
/// `DatabaseMigrator.hasSchemaChanges` then pass it over as they pass over the ledger, so
/// a database MigrationKit migrated reads to GRDB exactly as one GRDB migrated, and an
/// app that goes back to plain GRDB with `eraseDatabaseOnSchemaChange` keeps its data.
/// Earlier versions kept the same rows in `migrationkit_history` (`legacyName`), which
/// GRDB counts as the app's: readers read both, and the next write moves the old rows
/// over (`MigrationBookkeeping.moveLegacyHistory`).
package enum MigrationHistoryTable {
    package static let name = "grdb_migrationkit_history"

    /// The table earlier versions wrote, read until the next write moves it.
    package static let legacyName = "migrationkit_history"

    /// Creates the table when it is missing. Without a rowid: the identifier is the
    /// key, so each row is one entry of one b-tree (with a rowid it is two, the row and
    /// its primary key's index), one page fewer for every step's transaction to write.
    static let createSQL = """
        CREATE TABLE IF NOT EXISTS \(name) (
            identifier TEXT NOT NULL PRIMARY KEY,
            checksum TEXT,
            applied_at TEXT NOT NULL,
            duration_ms INTEGER NOT NULL
        ) WITHOUT ROWID
        """
}

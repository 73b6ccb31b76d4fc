/// MigrationKit's side table beside GRDB's ledger: each applied step's checksum, when
/// it was applied and how long it took. Every database layer (SQLCipher, GRDB) keeps the
/// same table, so a database carries its history from one to the other.
package enum MigrationHistoryTable {
    package static let name = "migrationkit_history"

    /// Creates the table when it is missing.
    package static let createSQL = """
        CREATE TABLE IF NOT EXISTS migrationkit_history (
            identifier TEXT NOT NULL PRIMARY KEY,
            checksum TEXT,
            applied_at TEXT NOT NULL,
            duration_ms INTEGER NOT NULL
        )
        """
}

import GRDB
import MigrationKit

/// The ledger (GRDB's `grdb_migrations`) and MigrationKit's side table of checksums and
/// timings (`migrationkit_history`, the same table the SQLCipher runner keeps), read and
/// written through GRDB.
enum GRDBMigrationHistory {
    static let createSQL = MigrationHistoryTable.createSQL

    /// The ledger in the order steps were recorded, and the recorded checksums.
    static func snapshot(in db: Database) throws -> LedgerSnapshot {
        let identifiers = try db.tableExists("grdb_migrations")
            ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            : []
        var checksums: [String: String] = [:]
        if try db.tableExists(MigrationHistoryTable.name) {
            for row in try Row.fetchAll(db, sql: "SELECT identifier, checksum FROM migrationkit_history WHERE checksum IS NOT NULL") {
                checksums[row[0]] = row[1]
            }
        }
        return LedgerSnapshot(identifiers: identifiers, checksums: checksums)
    }

    /// The recorded duration of each step in the side table.
    static func durations(in db: Database) throws -> [String: Duration] {
        guard try db.tableExists(MigrationHistoryTable.name) else { return [:] }
        var durations: [String: Duration] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT identifier, duration_ms FROM migrationkit_history") {
            durations[row[0]] = .milliseconds(row[1] as Int64? ?? 0)
        }
        return durations
    }

    /// Records a step just applied (in its own transaction).
    static func record(_ identifier: String, checksum: String?, duration: Duration, in db: Database) throws {
        try db.execute(sql: createSQL)
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms)
                VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)
                """,
            arguments: [identifier, checksum, milliseconds])
    }

    /// Sets the checksum of a step another tool applied, keeping any history it has.
    static func adoptChecksum(_ checksum: String, for identifier: String, in db: Database) throws {
        try db.execute(sql: createSQL)
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms)
                VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0)
                """,
            arguments: [identifier, checksum])
        try db.execute(sql: "UPDATE migrationkit_history SET checksum = ? WHERE identifier = ?", arguments: [checksum, identifier])
    }

    /// Forgets a step rolled back.
    static func forget(_ identifier: String, in db: Database) throws {
        guard try db.tableExists(MigrationHistoryTable.name) else { return }
        try db.execute(sql: "DELETE FROM migrationkit_history WHERE identifier = ?", arguments: [identifier])
    }
}

import MigrationKit

/// MigrationKit's side table beside GRDB's ledger: when each step was applied, how
/// long it took, and a checksum of what it ran, so an edited migration is noticed.
///
/// `grdb_migrations` stays exactly GRDB's; a database migrated by GRDB simply has no
/// history rows, and its checksums are adopted on the next migrate.
package enum MigrationHistory {
    package static let tableName = MigrationHistoryTable.name

    static let createSQL = MigrationHistoryTable.createSQL

    /// One row of history.
    package struct Entry: Hashable, Sendable {
        package let identifier: String
        package let checksum: String?
        /// UTC, ISO 8601 ("2026-11-21T23:15:30.123Z").
        package let appliedAt: String
        package let durationMilliseconds: Int
    }

    /// Every entry, by identifier (empty when the table does not exist).
    package static func entries(in db: SQLCipherDatabase) throws -> [String: Entry] {
        guard try db.tableExists(tableName) else { return [:] }
        var entries: [String: Entry] = [:]
        try db.forEachRow(sql: "SELECT identifier, checksum, applied_at, duration_ms FROM migrationkit_history") { row in
            let identifier = row[0].string ?? ""
            entries[identifier] = Entry(
                identifier: identifier, checksum: row[1].string,
                appliedAt: row[2].string ?? "", durationMilliseconds: row[3].int ?? 0)
        }
        return entries
    }

    /// The ledger and recorded checksums, as the planner reads them.
    static func snapshot(in db: SQLCipherDatabase) throws -> LedgerSnapshot {
        let checksums = try entries(in: db).compactMapValues(\.checksum)
        return LedgerSnapshot(identifiers: try MigrationLedger.identifiers(in: db), checksums: checksums)
    }

    static func record(_ identifier: String, checksum: String?, duration: Duration, in db: SQLCipherDatabase) throws {
        try db.execute(sql: createSQL, arguments: [])
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms)
                VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)
                """,
            arguments: [.text(identifier), checksum.map { .text($0) } ?? .null, .integer(duration.milliseconds)])
    }

    /// Sets a step's checksum, keeping its other history (or starting it, for a step
    /// GRDB applied).
    static func setChecksum(_ checksum: String, for identifier: String, in db: SQLCipherDatabase) throws {
        try db.execute(sql: createSQL, arguments: [])
        // INSERT OR IGNORE, then UPDATE: SQLite 3.15 has no UPSERT.
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms)
                VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0)
                """,
            arguments: [.text(identifier), .text(checksum)])
        try db.execute(sql: "UPDATE migrationkit_history SET checksum = ? WHERE identifier = ?", arguments: [.text(checksum), .text(identifier)])
    }

    static func delete(_ identifiers: [String], in db: SQLCipherDatabase) throws {
        guard try db.tableExists(tableName) else { return }
        for identifier in identifiers {
            try db.execute(sql: "DELETE FROM migrationkit_history WHERE identifier = ?", arguments: [.text(identifier)])
        }
    }
}

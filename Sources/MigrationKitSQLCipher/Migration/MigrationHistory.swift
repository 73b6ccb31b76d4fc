import MigrationKit

/// MigrationKit's `migrationkit_history` (`MigrationHistoryTable`), read on an SQLCipher
/// connection: each step's checksum, when it was applied and how long it took. Writes
/// go through the core's `MigrationBookkeeping`, shared with the GRDB runner.
package enum MigrationHistory {
    package static let tableName = MigrationHistoryTable.name

    /// One row of the history.
    package struct Entry: Hashable, Sendable {
        package let identifier: String
        package let checksum: String?
        /// UTC, ISO 8601 ("2026-11-21T23:15:30.123Z").
        package let appliedAt: String
        package let durationMilliseconds: Int
    }

    /// Every row, by identifier; empty when the table does not exist (reading never
    /// creates it).
    package static func entries(in db: SQLCipherDatabase) throws -> [String: Entry] {
        guard try db.tableExists(tableName) else { return [:] }
        var entries: [String: Entry] = [:]
        try db.forEachRow(sql: MigrationHistoryTable.selectSQL) { row in
            let identifier = row[0].string ?? ""
            entries[identifier] = Entry(
                identifier: identifier, checksum: row[1].string,
                appliedAt: row[2].string ?? "", durationMilliseconds: row[3].int ?? 0)
        }
        return entries
    }

    /// The ledger and the recorded checksums, for `MigrationAnalysis`.
    static func snapshot(in db: SQLCipherDatabase) throws -> LedgerSnapshot {
        try MigrationBookkeeping.snapshot(in: db)
    }
}

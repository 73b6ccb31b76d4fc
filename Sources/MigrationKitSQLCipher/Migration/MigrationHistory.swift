import MigrationKit

/// MigrationKit's history table (`MigrationHistoryTable`), read on an SQLCipher
/// connection: each step's checksum, when it was applied and how long it took. Writes
/// go through the core's `MigrationBookkeeping`, shared with the GRDB runner.
package enum MigrationHistory {
    package static let tableName = MigrationHistoryTable.name

    /// One row of the history.
    package typealias Entry = MigrationHistoryTable.Entry

    /// Every row, by identifier, from the current table and an earlier version's;
    /// empty when neither exists (reading never creates one).
    package static func entries(in db: SQLCipherDatabase) throws -> [String: Entry] {
        try MigrationBookkeeping.history(in: db)
    }

    /// The ledger and the recorded checksums, for `MigrationAnalysis`.
    static func snapshot(in db: SQLCipherDatabase) throws -> LedgerSnapshot {
        try MigrationBookkeeping.snapshot(in: db)
    }
}

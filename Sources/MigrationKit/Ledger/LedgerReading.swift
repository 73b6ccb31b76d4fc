/// The ledger as one read found it, with the connection's `PRAGMA data_version` read
/// just before it: what a command decides from before it changes anything (lint's
/// pending files, whether a backup is worth taking, the engine's first plan), read once
/// and handed to each.
///
/// The engine compares the version under the write lock before it writes, so a commit
/// by another connection since the reading makes it plan again from what the database
/// holds then. That comparison cannot see this connection's own commits: a reading is
/// not used across one (an erase makes the ledger new, and is planned afresh).
package struct LedgerReading: Sendable {
    /// The ledger's rows and recorded checksums.
    package let snapshot: LedgerSnapshot
    /// `PRAGMA data_version` on the connection that read `snapshot`, before it did.
    package let dataVersion: Int

    package init(snapshot: LedgerSnapshot, dataVersion: Int) {
        self.snapshot = snapshot
        self.dataVersion = dataVersion
    }
}

extension LedgerReading {
    /// The ledger and the connection's `data_version`, read now (in the caller's read
    /// transaction, or outside any): the version first, so that a commit landing between
    /// the two reads shows as a change.
    package static func read(in db: some SQLQuerying) throws -> LedgerReading {
        let version = try db.textColumn(sql: "PRAGMA data_version").first.flatMap { Int($0) } ?? 0
        return LedgerReading(snapshot: try MigrationBookkeeping.snapshot(in: db), dataVersion: version)
    }
}

import MigrationKit

/// GRDB's migration ledger, `grdb_migrations`, read on an SQLCipher connection. Its
/// statements are the core's (`MigrationLedgerTable`, `MigrationBookkeeping`), shared
/// with the GRDB runner.
package enum MigrationLedger {
    package static let tableName = MigrationLedgerTable.name

    /// Whether the ledger table exists (a database no migrator has touched has none).
    package static func exists(in db: SQLCipherDatabase) throws -> Bool {
        try db.tableExists(tableName)
    }

    /// Every identifier in the ledger, in the order they were recorded. Reading never
    /// creates the table, so `status` leaves an unmanaged database untouched.
    package static func identifiers(in db: SQLCipherDatabase) throws -> [String] {
        guard try exists(in: db) else { return [] }
        return try db.fetchStrings(sql: MigrationLedgerTable.selectIdentifiersSQL)
    }
}

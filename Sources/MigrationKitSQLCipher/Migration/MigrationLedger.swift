/// GRDB's migration ledger, `grdb_migrations`, exactly as GRDB creates it, so a
/// database migrated by a GRDB app continues here and the other way round.
package enum MigrationLedger {
    package static let tableName = "grdb_migrations"

    static let createSQL = "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"

    /// Whether the ledger table exists (a database no migrator has touched has none).
    package static func exists(in db: SQLCipherDatabase) throws -> Bool {
        try db.tableExists(tableName)
    }

    /// Every identifier in the ledger, in the order they were recorded. Reading never
    /// creates the table, so `status` leaves an unmanaged database untouched.
    package static func identifiers(in db: SQLCipherDatabase) throws -> [String] {
        guard try exists(in: db) else { return [] }
        return try db.fetchStrings(sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
    }

    static func createIfNeeded(in db: SQLCipherDatabase) throws {
        try db.execute(sql: createSQL, arguments: [])
    }

    static func insert(_ identifier: String, in db: SQLCipherDatabase) throws {
        try createIfNeeded(in: db)
        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [.text(identifier)])
    }

    static func delete(_ identifier: String, in db: SQLCipherDatabase) throws {
        try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [.text(identifier)])
    }
}

/// What a copy of a database must hold for it to count as the database: the schema (the
/// ledger and MigrationKit's history included), every table's row count, and the header
/// fields an app relies on that a copy does not keep by itself (`user_version`,
/// `application_id`, `auto_vacuum`). Read from the original before a copy is written and
/// from the copy after it, by every job that puts a copy in a database's place or counts
/// one as done: an export (`encrypt`, `decrypt`), `cipher-upgrade`, a fleet's `decrypt`
/// run again.
package struct DatabaseContent: Hashable, Sendable {
    let schema: [SchemaDump.Object]
    /// Row counts of every table, by name.
    package let rowCounts: [String: Int]
    package let userVersion: Int
    package let applicationID: Int
    /// 0 none, 1 full, 2 incremental: it can only be set before a file's first table
    /// exists, so an app relying on `incremental_vacuum` cannot set it again later.
    package let autoVacuum: Int

    /// The content of the database `db` reads (its `main` schema).
    package init(reading db: some SQLQuerying) throws {
        func pragma(_ name: String) throws -> Int {
            try db.textColumn(sql: "PRAGMA main.\(name)").first.flatMap { Int($0) } ?? 0
        }
        schema = try SchemaDump.objects(in: db, includingBookkeeping: true)
        rowCounts = try db.tableRowCounts()
        userVersion = try pragma("user_version")
        applicationID = try pragma("application_id")
        autoVacuum = try pragma("auto_vacuum")
    }

    /// How this content differs from `original`'s, worded to follow "has" and precede
    /// "than the original" ("another schema"); nil when it is the same.
    package func difference(from original: DatabaseContent) -> String? {
        if schema != original.schema { return "another schema" }
        if rowCounts != original.rowCounts { return "other row counts" }
        if userVersion != original.userVersion || applicationID != original.applicationID { return "another user_version or application_id" }
        if autoVacuum != original.autoVacuum { return "another auto_vacuum" }
        return nil
    }
}

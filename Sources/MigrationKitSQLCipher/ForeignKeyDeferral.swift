import MigrationKit

/// One migration transaction under sqlite.org's 12-step rules (lang_altertable.html,
/// section 7), as GRDB's deferred foreign-key mode does it:
///
/// 1. `PRAGMA foreign_keys = OFF`, outside the transaction (inside one it is a no-op).
///    Otherwise `DROP TABLE parent` while recreating it runs an implicit DELETE that
///    fires `ON DELETE CASCADE` and empties the child tables.
/// 2. `BEGIN IMMEDIATE`.
/// 3. The step and its ledger change.
/// 4. `PRAGMA foreign_key_check`: any violation fails the step, so a recreation that
///    lost parent rows cannot commit.
/// 5. `COMMIT` (or `ROLLBACK` on any error).
/// 6. `PRAGMA foreign_keys = ON` again, in every case, if it was on before.
enum ForeignKeyDeferral {
    static func inTransaction<T>(_ db: SQLCipherDatabase, _ body: () throws -> T) throws -> T {
        let wasEnabled = try db.foreignKeysEnabled()
        if wasEnabled { try db.setForeignKeysEnabled(false) }
        defer { if wasEnabled { try? db.setForeignKeysEnabled(true) } }
        return try db.inTransaction(.immediate) {
            let result = try body()
            let violations = try foreignKeyViolationCount(in: db)
            if violations > 0 { throw MigrationKitError.foreignKeyViolations(count: violations) }
            return result
        }
    }

    /// Counts `PRAGMA foreign_key_check` rows without holding them in memory.
    static func foreignKeyViolationCount(in db: SQLCipherDatabase) throws -> Int {
        var count = 0
        try db.forEachRow(sql: "PRAGMA foreign_key_check") { _ in count += 1 }
        return count
    }
}

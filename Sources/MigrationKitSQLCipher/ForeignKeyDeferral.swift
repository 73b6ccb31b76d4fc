import MigrationKit

/// One migration transaction under sqlite.org's 12-step rules (lang_altertable.html,
/// section 7), as GRDB's deferred foreign-key mode does it:
///
/// 1. `PRAGMA foreign_keys = OFF`, outside the transaction (inside one it is a no-op).
///    Otherwise `DROP TABLE parent` while recreating it runs an implicit DELETE that
///    fires `ON DELETE CASCADE` and empties the child tables.
/// 2. `BEGIN IMMEDIATE`.
/// 3. The step and its ledger change.
/// 4. `PRAGMA foreign_key_check`: violations the step added fail it, so a recreation
///    that lost parent rows cannot commit. Violations the database already had (apps
///    that never turned foreign keys on carry orphans for years) are not the step's
///    doing: they are kept, and reported, in `ForeignKeyBaseline`.
/// 5. `COMMIT` (or `ROLLBACK` on any error).
/// 6. `PRAGMA foreign_keys = ON` again, in every case, if it was on before.
enum ForeignKeyDeferral {
    /// - Parameters:
    ///   - baseline: what the run knows of the violations before this transaction;
    ///     learned and updated here.
    ///   - commit: false for a dry run: every check runs, then the transaction is
    ///     rolled back.
    static func inTransaction<T>(_ db: SQLCipherDatabase, baseline: ForeignKeyBaseline, commit: Bool = true, _ body: () throws -> T) throws -> T {
        let wasEnabled = try db.foreignKeysEnabled()
        if wasEnabled { try db.setForeignKeysEnabled(false) }
        defer { if wasEnabled { try? db.setForeignKeysEnabled(true) } }
        var kept: T?
        do {
            try db.inTransaction(.immediate) {
                kept = try checked(db, baseline: baseline, body)
                if !commit { throw DiscardTransaction() }
            }
        } catch is DiscardTransaction {}
        guard let kept else { throw DiscardTransaction() }
        return kept
    }

    /// Thrown to roll back a transaction whose checks all passed (a dry run).
    private struct DiscardTransaction: Error {}

    /// The body, then the foreign-key check, inside an open transaction.
    private static func checked<T>(_ db: SQLCipherDatabase, baseline: ForeignKeyBaseline, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "SAVEPOINT migrationkit_foreign_keys")
        var result = try body()
        // The common path: no violation at all, one pass over the foreign keys.
        guard try foreignKeyViolationCount(in: db) > 0 else {
            baseline.known = ForeignKeyViolations()
            try db.execute(sql: "RELEASE migrationkit_foreign_keys")
            return result
        }
        let after = try violations(in: db)
        let before: ForeignKeyViolations
        if let known = baseline.known {
            before = known
        } else {
            // The first violations this run has seen, with nothing known of the database
            // before: undo the body to look, then do it again (at most once per run).
            try db.execute(sql: "ROLLBACK TO migrationkit_foreign_keys")
            before = try violations(in: db)
            baseline.initial = baseline.initial ?? before
            result = try body()
        }
        let added = after.added(since: before)
        if !added.isEmpty { throw MigrationKitError.foreignKeyViolationsAdded(added) }
        baseline.known = after
        try db.execute(sql: "RELEASE migrationkit_foreign_keys")
        return result
    }

    /// Counts `PRAGMA foreign_key_check` rows without holding them in memory.
    static func foreignKeyViolationCount(in db: SQLCipherDatabase) throws -> Int {
        var count = 0
        try db.forEachRow(sql: "PRAGMA foreign_key_check") { _ in count += 1 }
        return count
    }

    /// Every violation, grouped (a few row ids per group are kept).
    static func violations(in db: SQLCipherDatabase) throws -> ForeignKeyViolations {
        var result = ForeignKeyViolations()
        try db.forEachRow(sql: "PRAGMA foreign_key_check") { row in
            result.add(table: row[0].string ?? "?", rowID: row[1].int.map(Int64.init), parent: row[2].string ?? "?", foreignKey: row[3].int ?? 0)
        }
        return result
    }
}

/// What one run knows of the database's foreign-key violations, carried from one
/// transaction to the next: after a transaction with none, the next one knows it
/// starts from none; after one with violations it did not add, the next one starts
/// from those. Only while nothing is known yet does a transaction with violations have
/// to look at the database before it (by rolling back to a savepoint).
final class ForeignKeyBaseline {
    /// The violations as of the end of the latest transaction, nil until one ran.
    var known: ForeignKeyViolations?
    /// The violations the database had before the run, when there were any.
    var initial: ForeignKeyViolations?

    init() {}

    /// What the final verification may still find without failing: what the database
    /// had before the run. Nil means nothing is known (no transaction ran this run), in
    /// which case whatever is found was there before.
    var tolerated: ForeignKeyViolations? {
        known == nil ? nil : (initial ?? ForeignKeyViolations())
    }
}

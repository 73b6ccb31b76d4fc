/// Steps 1 and 6 of a migration transaction under sqlite.org's 12-step rules
/// (`StepTransaction` has them all): foreign-key enforcement off outside the
/// transaction, and on again afterwards; and the foreign-key checks the transactions
/// and the verification make.
enum ForeignKeyDeferral {
    /// Steps 1 and 6 around `body`: foreign-key enforcement off (outside any
    /// transaction), and on again afterwards if it was on, whatever happens. A run of
    /// many transactions calls this once around all of them and hands the hold to each
    /// (`StepTransaction(…within:)`), which then runs no statement for it: no step can
    /// turn enforcement back on, since SQLite ignores the pragma inside the transaction
    /// a step runs in.
    static func withForeignKeysOff<T>(_ db: some MigrationConnection, _ body: (ForeignKeysHeldOff) throws -> T) throws -> T {
        let wasEnabled = try db.foreignKeysEnabled()
        if wasEnabled { try db.setForeignKeysEnabled(false) }
        defer {
            if wasEnabled { db.unstoppable { try? db.setForeignKeysEnabled(true) } }
        }
        return try body(ForeignKeysHeldOff(wasEnabled: wasEnabled))
    }

    /// Whether any table declares a foreign key: only then can the database hold a
    /// violation. A declaration always spells `REFERENCES`; a name that merely contains
    /// the word costs one needless check, never a wrong answer.
    static func declaresForeignKeys(_ db: some MigrationConnection) throws -> Bool {
        // instr(upper()), not LIKE: a step may have turned case_sensitive_like on.
        try db.fetchInteger(sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND instr(upper(sql), 'REFERENCES') > 0") ?? 0 > 0
    }

    /// Counts `PRAGMA foreign_key_check` rows of `tables` (nil: every table) without
    /// holding them in memory.
    static func foreignKeyViolationCount(in db: some MigrationConnection, tables: [String]? = nil) throws -> Int {
        try DatabaseChecks.foreignKeyViolationCount(in: db, tables: tables, pragmaFunctions: db.sqlite >= .pragmaFunctions)
    }

    /// Every violation of `tables` (nil: every table), grouped.
    static func violations(in db: some MigrationConnection, tables: [String]? = nil) throws -> ForeignKeyViolations {
        try DatabaseChecks.foreignKeyViolations(in: db, tables: tables, pragmaFunctions: db.sqlite >= .pragmaFunctions)
    }
}

/// What one run knows of the database's foreign-key violations, carried from one
/// transaction to the next: after a transaction with none, the next one knows it
/// starts from none; after one with violations it did not add, the next one starts
/// from those. Only while nothing is known yet does a transaction with violations have
/// to look at the database before it (by rolling the transaction back and running it
/// again, never by a savepoint: see `StepTransaction`).
final class ForeignKeyBaseline {
    /// The violations as of the end of the latest transaction, nil until one ran.
    /// When transactions check only some tables, it holds what is known of those.
    private(set) var known: ForeignKeyViolations?
    /// The tables `known` covers; nil for every table.
    private var knownTables: Set<String>? = []
    /// The violations the database had before the run, when there were any.
    var initial: ForeignKeyViolations?

    init() {}

    /// What is known of `tables` (nil: every table), or nil when something is not.
    func known(of tables: [String]?) -> ForeignKeyViolations? {
        guard let known else { return nil }
        guard let knownTables else { return tables.map { known.restricted(to: Set($0.map { $0.sqlNameFolded })) } ?? known }
        guard let tables, Set(tables.map { $0.sqlNameFolded }).isSubset(of: knownTables) else { return nil }
        return known.restricted(to: Set(tables.map { $0.sqlNameFolded }))
    }

    /// Records that `tables` (nil: every table) now have exactly `violations`.
    func learn(_ violations: ForeignKeyViolations, of tables: [String]?) {
        guard let tables else {
            known = violations
            knownTables = nil
            return
        }
        let names = Set(tables.map { $0.sqlNameFolded })
        known = (known ?? ForeignKeyViolations()).removing(names).merging(violations)
        knownTables = knownTables.map { $0.union(names) }
    }

    /// Records what `tables` held before a transaction, learned because its body met
    /// violations there: what the run had not seen of them yet is what the database had
    /// before the run.
    func learnAhead(_ violations: ForeignKeyViolations, of tables: [String]) {
        initial = (initial ?? ForeignKeyViolations()).merging(violations)
        learn(violations, of: tables)
    }

    /// Records every table's violations, learned before a transaction: what the run
    /// had not learned yet is what the database had before it.
    /// After `forget()`, what another process committed meanwhile is not what the
    /// database had before the run: `initial` is kept as it was, as a look at every
    /// table after the body keeps it (`StepTransaction`).
    func learnBeforeTransaction(_ violations: ForeignKeyViolations) {
        if changedByOthers {
            initial = initial ?? violations
        } else {
            let new = knownTables.map { violations.removing($0) } ?? ForeignKeyViolations()
            initial = (initial ?? ForeignKeyViolations()).merging(new)
        }
        known = violations
        knownTables = nil
    }

    /// Whether another process changed the database during the run (`forget()`).
    private var changedByOthers = false

    /// Forgets everything: another process changed the database.
    func forget() {
        known = nil
        knownTables = []
        changedByOthers = true
    }

    /// What the final verification may still find without failing: what the database
    /// had before the run. Nil means nothing is known (no transaction ran this run), in
    /// which case whatever is found was there before.
    var tolerated: ForeignKeyViolations? {
        known == nil ? nil : (initial ?? ForeignKeyViolations())
    }
}

extension ForeignKeyViolations {
    /// Only the groups of these tables (folded names, `sqlNameFolded`).
    func restricted(to tables: Set<String>) -> ForeignKeyViolations {
        ForeignKeyViolations(groups: groups.filter { tables.contains($0.table.sqlNameFolded) })
    }

    /// Without the groups of these tables (folded names, `sqlNameFolded`).
    func removing(_ tables: Set<String>) -> ForeignKeyViolations {
        ForeignKeyViolations(groups: groups.filter { !tables.contains($0.table.sqlNameFolded) })
    }

    /// Both sets of groups; a group in both is counted once, as `other` has it.
    func merging(_ other: ForeignKeyViolations) -> ForeignKeyViolations {
        let replaced = Set(other.groups.map { "\($0.table.sqlNameFolded)\u{0}\($0.parent.sqlNameFolded)\u{0}\($0.foreignKey)" })
        return ForeignKeyViolations(groups: groups.filter { !replaced.contains("\($0.table.sqlNameFolded)\u{0}\($0.parent.sqlNameFolded)\u{0}\($0.foreignKey)") } + other.groups)
    }
}

/// A run's hold on foreign-key enforcement (`ForeignKeyDeferral.withForeignKeysOff`),
/// handed to each transaction the run spans.
struct ForeignKeysHeldOff {
    /// Whether enforcement was on before the run held it off: a step that wants it
    /// enforced (`ForeignKeyChecks.immediate`) turns it on for its own transaction.
    let wasEnabled: Bool
}

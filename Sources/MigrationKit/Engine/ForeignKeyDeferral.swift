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
package enum ForeignKeyDeferral {
    /// Which run of a transaction's body this is. The body runs again only when it
    /// changes nothing but the database (`MigrationStep.changesOnlyTheDatabase`), and
    /// only in the rare run that meets violations it knows nothing about; a body that
    /// tells others what it does (progress, observers) does so on the first run only.
    package enum Attempt {
        case first, again
    }

    /// One migration transaction: `prepare` under the write lock, then `body`, then the
    /// foreign-key check of what `scope` names.
    ///
    /// When the check meets violations and nothing is known of what those tables held
    /// before, the whole transaction is rolled back and run again, this time learning
    /// those tables' violations before the body. It is never undone to a savepoint
    /// instead: SQLCipher (4.6.1, and 4.9 still) re-initialises page 1 from the
    /// journal's *encrypted* image when it rolls back to a savepoint, and about once in
    /// 6,000 rollbacks that ciphertext passes for a b-tree page, so that the rest of the
    /// transaction reads, and may write, sqlite_master through a garbled page
    /// (docs/how-a-migration-runs.md, "Why no savepoints").
    ///
    /// - Parameters:
    ///   - baseline: what the run knows of the violations before this transaction;
    ///     learned and updated here.
    ///   - commit: false for a dry run: every check runs, then the transaction is
    ///     rolled back.
    ///   - prepare: the work, decided under the write lock (a plan re-made when another
    ///     process moved the ledger, the ledger's bookkeeping). Runs in every attempt,
    ///     so it must not tell anyone what it does.
    ///   - changesOnlyTheDatabase: whether `body` may run a second time for `work`.
    ///     When it may not, the violations the database holds are learned before the
    ///     body (once per run, and only when some table declares a foreign key).
    ///   - scope: after the body, the tables to check (`ChangedTables.foreignKeyScope`);
    ///     nil checks every table.
    ///   - body: the steps. It returns what it did, for `scope` and the caller.
    ///   - failing: what to throw for an error of the body or of the check after it
    ///     (violations the body added are that work's failure).
    ///   - checks: `.immediate` runs the body with enforcement on, as the connection
    ///     had it before the run (a statement that breaks a foreign key fails at once),
    ///     which is only for work that rebuilds no referenced table; the check after it
    ///     still runs. `.deferred` is the 12-step procedure above.
    ///   - checking: false leaves out the check after a `.deferred` body (an app that
    ///     disabled deferred checks, as GRDB's `disablingDeferredForeignKeyChecks()`).
    ///   - heldOff: the run's hold on enforcement (`withForeignKeysOff`), when this
    ///     transaction is one of many it spans; nil holds it off around this one.
    @discardableResult
    package static func inTransaction<Work, Outcome>(
        _ db: some MigrationConnection, baseline: ForeignKeyBaseline, commit: Bool = true,
        checks: ForeignKeyChecks = .deferred, checking: Bool = true, within heldOff: ForeignKeysHeldOff? = nil,
        prepare: () throws -> Work,
        changesOnlyTheDatabase: (Work) -> Bool,
        scope: (Work, Outcome) throws -> [String]?,
        body: (Work, Attempt) throws -> Outcome,
        failing: (Work, any Error) -> any Error = { $1 }
    ) throws -> (work: Work, outcome: Outcome) {
        func transaction(_ heldOff: ForeignKeysHeldOff) throws -> (work: Work, outcome: Outcome) {
            // Outside the transaction, where the pragma takes effect.
            let enforced = checks == .immediate && heldOff.wasEnabled
            if enforced { try db.setForeignKeysEnabled(true) }
            defer { if enforced { db.unstoppable { try? db.setForeignKeysEnabled(false) } } }
            var attempt = Attempt.first
            var lookahead = Lookahead.none
            while true {
                var kept: (work: Work, outcome: Outcome)?
                do {
                    try db.inImmediateTransaction {
                        let work = try prepare()
                        let outcome: Outcome
                        do {
                            if checking || checks == .immediate {
                                outcome = try checked(db, baseline: baseline, repeatable: changesOnlyTheDatabase(work), lookahead: lookahead,
                                                      scope: { try scope(work, $0) }, body: { try body(work, attempt) })
                            } else {
                                outcome = try body(work, attempt)
                            }
                        } catch let error as BaselineNeeded {
                            throw error
                        } catch {
                            throw failing(work, error)
                        }
                        kept = (work, outcome)
                        if !commit { throw DiscardTransaction() }
                    }
                } catch is DiscardTransaction {
                } catch let needed as BaselineNeeded {
                    lookahead = lookahead.adding(needed.tables)
                    attempt = .again
                    continue
                }
                guard let kept else { throw DiscardTransaction() }
                return kept
            }
        }
        if let heldOff { return try transaction(heldOff) }
        return try withForeignKeysOff(db, transaction)
    }

    /// Steps 1 and 6 around `body`: foreign-key enforcement off (outside any
    /// transaction), and on again afterwards if it was on, whatever happens. A run of
    /// many transactions calls this once around all of them and hands the hold to each
    /// (`inTransaction(…within:…)`), which then runs no statement for it: no step can
    /// turn enforcement back on, since SQLite ignores the pragma inside the transaction
    /// a step runs in.
    package static func withForeignKeysOff<T>(_ db: some MigrationConnection, _ body: (ForeignKeysHeldOff) throws -> T) throws -> T {
        let wasEnabled = try db.foreignKeysEnabled()
        if wasEnabled { try db.setForeignKeysEnabled(false) }
        defer {
            if wasEnabled { db.unstoppable { try? db.setForeignKeysEnabled(true) } }
        }
        return try body(ForeignKeysHeldOff(wasEnabled: wasEnabled))
    }

    /// A transaction of SQL alone (bookkeeping, erasing): nothing to prepare, a body
    /// that may run again.
    package static func inTransaction<Outcome>(_ db: some MigrationConnection, baseline: ForeignKeyBaseline, scope: [String]? = nil,
                                       _ body: () throws -> Outcome) throws -> Outcome {
        try inTransaction(db, baseline: baseline, prepare: {}, changesOnlyTheDatabase: { _ in true },
                          scope: { _, _ in scope }, body: { _, _ in try body() }).outcome
    }

    /// Thrown to roll back a transaction whose checks all passed (a dry run).
    private struct DiscardTransaction: Error {}

    /// Thrown out of a transaction whose body met violations in `tables` (nil: every
    /// table) that nothing known says were there before: it is rolled back, and run
    /// again learning them first.
    private struct BaselineNeeded: Error {
        let tables: [String]?
    }

    /// Whose violations a transaction learns before its body, besides what the baseline
    /// knows: nobody's (the common path), some tables', or every table's.
    private enum Lookahead {
        case none
        case tables([String])
        case everything

        /// After one more attempt that needed `tables`. A third attempt learns every
        /// table: the tables a body writes change only when another process changed
        /// the database meanwhile, and the attempts must end.
        func adding(_ tables: [String]?) -> Lookahead {
            switch (self, tables) {
            case (.none, let tables?): return .tables(tables)
            default: return .everything
            }
        }
    }

    /// The body, then the foreign-key check, inside an open transaction.
    private static func checked<T>(_ db: some MigrationConnection, baseline: ForeignKeyBaseline, repeatable: Bool, lookahead: Lookahead,
                                   scope: (T) throws -> [String]?, body: () throws -> T) throws -> T {
        switch lookahead {
        case .everything where baseline.known(of: nil) == nil:
            baseline.learnBeforeTransaction(try declaresForeignKeys(db) ? violations(in: db) : ForeignKeyViolations())
        case .tables(let tables):
            // The tables the body wrote last time, as they are before it runs again (a
            // table it creates does not exist yet, and holds no violation).
            baseline.learnAhead(try violations(in: db, tables: tables.filter(db.tableExists)), of: tables)
        case .none where !repeatable && baseline.known(of: nil) == nil:
            // A body that must run once: learn now what it could otherwise only learn by
            // being rolled back and run again.
            baseline.learnBeforeTransaction(try declaresForeignKeys(db) ? violations(in: db) : ForeignKeyViolations())
        default:
            break
        }
        let result = try body()
        let tables = try scope(result)
        // The common path: no violation at all, one pass over the foreign keys.
        guard try foreignKeyViolationCount(in: db, tables: tables) > 0 else {
            baseline.learn(ForeignKeyViolations(), of: tables)
            return result
        }
        let after = try violations(in: db, tables: tables)
        // Only a body that changes nothing but the database can meet violations the
        // run knows nothing about (any other learned the whole database first).
        guard let before = baseline.known(of: tables) else { throw BaselineNeeded(tables: tables) }
        let added = after.added(since: before)
        if !added.isEmpty { throw MigrationKitError.foreignKeyViolationsAdded(added) }
        baseline.learn(after, of: tables)
        return result
    }

    /// Whether any table declares a foreign key: only then can the database hold a
    /// violation. A declaration always spells `REFERENCES`; a name that merely contains
    /// the word costs one needless check, never a wrong answer.
    private static func declaresForeignKeys(_ db: some MigrationConnection) throws -> Bool {
        // instr(upper()), not LIKE: a step may have turned case_sensitive_like on.
        try db.fetchInteger(sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND instr(upper(sql), 'REFERENCES') > 0") ?? 0 > 0
    }

    /// Counts `PRAGMA foreign_key_check` rows of `tables` (nil: every table) without
    /// holding them in memory.
    package static func foreignKeyViolationCount(in db: some MigrationConnection, tables: [String]? = nil) throws -> Int {
        try DatabaseChecks.foreignKeyViolationCount(in: db, tables: tables, pragmaFunctions: db.sqlite >= .pragmaFunctions)
    }

    /// Every violation of `tables` (nil: every table), grouped.
    package static func violations(in db: some MigrationConnection, tables: [String]? = nil) throws -> ForeignKeyViolations {
        try DatabaseChecks.foreignKeyViolations(in: db, tables: tables, pragmaFunctions: db.sqlite >= .pragmaFunctions)
    }
}

/// What one run knows of the database's foreign-key violations, carried from one
/// transaction to the next: after a transaction with none, the next one knows it
/// starts from none; after one with violations it did not add, the next one starts
/// from those. Only while nothing is known yet does a transaction with violations have
/// to look at the database before it (by rolling the transaction back and running it
/// again, never by a savepoint: see `ForeignKeyDeferral.inTransaction`).
package final class ForeignKeyBaseline {
    /// The violations as of the end of the latest transaction, nil until one ran.
    /// When transactions check only some tables, it holds what is known of those.
    private(set) var known: ForeignKeyViolations?
    /// The tables `known` covers; nil for every table.
    private var knownTables: Set<String>? = []
    /// The violations the database had before the run, when there were any.
    package var initial: ForeignKeyViolations?

    package init() {}

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
    /// table after the body keeps it (`ForeignKeyDeferral.checked`).
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
    package func forget() {
        known = nil
        knownTables = []
        changedByOthers = true
    }

    /// What the final verification may still find without failing: what the database
    /// had before the run. Nil means nothing is known (no transaction ran this run), in
    /// which case whatever is found was there before.
    package var tolerated: ForeignKeyViolations? {
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
package struct ForeignKeysHeldOff {
    /// Whether enforcement was on before the run held it off: a step that wants it
    /// enforced (`ForeignKeyChecks.immediate`) turns it on for its own transaction.
    let wasEnabled: Bool
}

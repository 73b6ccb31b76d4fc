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
///
/// Steps 1 and 6 are `ForeignKeyDeferral.withForeignKeysOff`, held once by a run of many
/// transactions (`heldOff`) or by `run` around this one; steps 2 to 5 are one *attempt*,
/// whose ending (`Ending`) says whether another is needed. Most transactions take one.
/// An attempt whose work, decided under the write lock, wants other enforcement than it
/// was set up with ends before its body, and the next one is set up for it (`checks`).
/// One whose check meets violations that nothing known says were there before is rolled
/// back as a whole, and the next attempt learns those tables' violations before its
/// body (`lookahead`), which then runs again (`attempt`). It is never undone to a
/// savepoint instead: SQLCipher (4.6.1, and 4.9 still) re-initialises page 1 from the
/// journal's *encrypted* image when it rolls back to a savepoint, and about once in
/// 6,000 rollbacks that ciphertext passes for a b-tree page, so that the rest of the
/// transaction reads, and may write, sqlite_master through a garbled page
/// (docs/how-a-migration-runs.md, "Why no savepoints").
struct StepTransaction<Database: MigrationConnection> {
    /// Which run of a transaction's body this is. The body runs again only when it
    /// changes nothing but the database (`MigrationStep.changesOnlyTheDatabase`), and
    /// only in the rare transaction that meets violations it knows nothing about; a body
    /// that tells others what it does (progress, observers) does so on the first run only.
    enum Attempt {
        case first, again
    }

    /// Whose violations an attempt learns before its body, besides what the baseline
    /// knows: nobody's (the common path), some tables', or every table's.
    enum Lookahead {
        case none
        case tables([String])
        case everything

        /// After one more attempt that needed `tables` (nil: every table). A third attempt
        /// learns every table: the tables a body writes change only when another process
        /// changed the database meanwhile, and the attempts must end.
        func adding(_ tables: [String]?) -> Lookahead {
            switch (self, tables) {
            case (.none, let tables?): return .tables(tables)
            default: return .everything
            }
        }
    }

    /// How the steps a transaction runs want their foreign keys handled, and whether its
    /// body may run twice: decided under the write lock, with the work (`run`'s `prepare`).
    struct Handling {
        /// `.immediate` runs the body with enforcement on, as the connection had it before
        /// the run (a statement that breaks a foreign key fails at once), which is only
        /// for work that rebuilds no referenced table; the check after it still runs.
        /// `.deferred` is the 12-step procedure above. Set outside the transaction.
        let checks: ForeignKeyChecks
        /// Whether a `.deferred` body's violations are checked before it commits: false
        /// for an app that disabled deferred checks (GRDB's `disablingDeferredForeignKeyChecks()`).
        let checksDeferred: Bool
        /// Whether the body may run a second time. When it may not, the violations the
        /// database holds are learned before the body (once per run, and only when some
        /// table declares a foreign key).
        let bodyMayRunAgain: Bool

        /// What `steps`, run in one transaction, want, with enforcement as `checks` says.
        init(running steps: some Sequence<MigrationStep<Database>>, checks: ForeignKeyChecks) {
            self.init(checks: checks, checksDeferred: steps.allSatisfy(\.checksDeferredForeignKeys),
                      bodyMayRunAgain: steps.allSatisfy(\.changesOnlyTheDatabase))
        }

        /// Each part as given: for a body that is not the steps' (nothing left to run).
        init(checks: ForeignKeyChecks, checksDeferred: Bool, bodyMayRunAgain: Bool) {
            self.checks = checks
            self.checksDeferred = checksDeferred
            self.bodyMayRunAgain = bodyMayRunAgain
        }

        /// A transaction of MigrationKit's own SQL (bookkeeping, erasing): deferred and
        /// checked, and free to run again.
        static var ownSQL: Handling { Handling(checks: .deferred, checksDeferred: true, bodyMayRunAgain: true) }

        /// Whether the body's foreign keys are checked before the transaction commits.
        var isChecked: Bool { checksDeferred || checks == .immediate }
    }

    /// A transaction's body: given which run of it this is, it runs the work and returns
    /// what it did and the tables it wrote (empty where the layer cannot tell,
    /// `MigrationConnection.canRecordWrittenTables`).
    typealias Body<Outcome> = (Attempt) throws -> Ran<Outcome>
    /// What a body returned.
    typealias Ran<Outcome> = (outcome: Outcome, changed: ChangedTables)

    /// How one attempt ended.
    private enum Ending<Outcome> {
        /// Every check passed, and the transaction committed.
        case committed(Outcome)
        /// Every check passed, and the transaction was rolled back: a dry run.
        case discarded(Outcome)
        /// Rolled back after the body: its check met violations in these tables (nil:
        /// every table) that nothing known says were there before.
        case needsBaseline([String]?)
        /// Rolled back before the body: the work prepared under the lock wants other
        /// enforcement than this attempt was set up with (another process moved the
        /// ledger, and another step comes next).
        case needsOtherChecks(ForeignKeyChecks)
    }

    private let db: Database
    /// What the run knows of the violations before this transaction; learned and updated
    /// here.
    private let baseline: ForeignKeyBaseline
    /// False for a dry run: every check runs, then the transaction is rolled back.
    private let commits: Bool
    /// Limits the check after a body to the tables it changed and those whose foreign
    /// keys point at one (`ChangedTables.foreignKeyScope`); nil checks every table.
    private let graph: ForeignKeyGraph?
    /// The run's hold on enforcement (`ForeignKeyDeferral.withForeignKeysOff`), when this
    /// transaction is one of many it spans; nil holds it off around this one.
    private let heldOff: ForeignKeysHeldOff?

    /// The enforcement the next attempt is set up with: what the caller expected, until
    /// an attempt's work wants another.
    private(set) var checks: ForeignKeyChecks
    /// Which run of the body the next attempt makes.
    private(set) var attempt = Attempt.first
    /// What the next attempt learns before its body.
    private(set) var lookahead = Lookahead.none

    /// - Parameters:
    ///   - checks: the enforcement the work is expected to want (the step the plan made
    ///     outside the lock says); an attempt whose work wants another sets up again.
    ///   - commits: false for a dry run.
    ///   - graph: for a check limited to what the body changed, the run's graph of
    ///     foreign keys; nil checks every table.
    ///   - heldOff: the run's hold on enforcement; nil holds it off around this
    ///     transaction alone.
    init(_ db: Database, baseline: ForeignKeyBaseline, checks: ForeignKeyChecks = .deferred, commits: Bool = true,
         limitedBy graph: ForeignKeyGraph? = nil, within heldOff: ForeignKeysHeldOff? = nil) {
        self.db = db
        self.baseline = baseline
        self.checks = checks
        self.commits = commits
        self.graph = graph
        self.heldOff = heldOff
    }

    /// Runs the transaction: `prepare` under the write lock, then `body`, then the
    /// foreign-key check, attempted until an attempt commits (or, for a dry run, passes
    /// every check and is rolled back).
    ///
    /// - Parameters:
    ///   - prepare: decides the work under the write lock (a plan re-made when another
    ///     process moved the ledger, the ledger's bookkeeping) and says how it wants its
    ///     foreign keys handled. Runs in every attempt, so it must not tell anyone what it
    ///     does.
    ///   - body: runs the work (`Body`). The tables it wrote limit the check when the
    ///     transaction is `limitedBy` a graph. It tells others what it does (progress,
    ///     observers) once for each piece of work: in the `.first` attempt, or, where a
    ///     later attempt may find other work (a plan re-made), once per piece it runs.
    /// - Returns: what the body returned, in the attempt that ended the transaction.
    /// - Throws: what `prepare`, `body` or the check threw (violations the body added are
    ///   `MigrationKitError.foreignKeyViolationsAdded`); the transaction is rolled back.
    @discardableResult
    mutating func run<Outcome>(prepare: () throws -> Handling, body: Body<Outcome>) throws -> Ran<Outcome> {
        guard let heldOff else {
            return try ForeignKeyDeferral.withForeignKeysOff(db) { try run(within: $0, prepare: prepare, body: body) }
        }
        return try run(within: heldOff, prepare: prepare, body: body)
    }

    private mutating func run<Outcome>(within heldOff: ForeignKeysHeldOff, prepare: () throws -> Handling,
                                       body: Body<Outcome>) throws -> Ran<Outcome> {
        while true {
            switch try attemptOnce(within: heldOff, prepare: prepare, body: body) {
            case .committed(let outcome), .discarded(let outcome):
                return outcome
            case .needsBaseline(let tables):
                lookahead = lookahead.adding(tables)
                attempt = .again
            case .needsOtherChecks(let checks):
                self.checks = checks
            }
        }
    }

    /// Steps 2 to 5, with enforcement on around them for `.immediate` checks.
    private func attemptOnce<Outcome>(within heldOff: ForeignKeysHeldOff, prepare: () throws -> Handling,
                                      body: Body<Outcome>) throws -> Ending<Ran<Outcome>> {
        // Outside the transaction, where the pragma takes effect.
        let enforced = checks == .immediate && heldOff.wasEnabled
        if enforced { try db.setForeignKeysEnabled(true) }
        defer { if enforced { db.unstoppable { try? db.setForeignKeysEnabled(false) } } }
        return try db.inImmediateTransaction { () throws -> TransactionEnd<Ending<Ran<Outcome>>> in
            let handling = try prepare()
            guard handling.checks == checks else { return .rollBack(.needsOtherChecks(handling.checks)) }
            guard handling.isChecked else { return end(with: try body(attempt)) }
            try learnBeforeBody(bodyMayRunAgain: handling.bodyMayRunAgain)
            let ran = try body(attempt)
            let tables = try graph.map { try ran.changed.foreignKeyScope(using: $0, in: db) }
            guard try checkedAfterBody(tables) else { return .rollBack(.needsBaseline(tables)) }
            return end(with: ran)
        }
    }

    /// An attempt whose checks all passed: committed, or for a dry run rolled back.
    private func end<Outcome>(with outcome: Outcome) -> TransactionEnd<Ending<Outcome>> {
        commits ? .commit(.committed(outcome)) : .rollBack(.discarded(outcome))
    }

    /// What the baseline must know before the body runs, beyond what it knows.
    /// A body that must run once learns every table first, whatever an earlier attempt
    /// learned: the work prepared under the lock may be another step than the one that
    /// attempt ran (another process moved the ledger between them), and only what is
    /// known of every table spares it a second run.
    private func learnBeforeBody(bodyMayRunAgain: Bool) throws {
        let learnsEverything: Bool
        switch lookahead {
        case .tables(let tables) where bodyMayRunAgain:
            // The tables the body wrote last time, as they are before it runs again (a
            // table it creates does not exist yet, and holds no violation).
            baseline.learnAhead(try ForeignKeyDeferral.violations(in: db, tables: tables.filter(db.tableExists)), of: tables)
            return
        case .everything:
            learnsEverything = true
        case .tables, .none:
            // A body that must run once: learn now what it could otherwise only learn by
            // being rolled back and run again.
            learnsEverything = !bodyMayRunAgain
        }
        if learnsEverything, baseline.known(of: nil) == nil {
            baseline.learnBeforeTransaction(try everyViolation())
        }
    }

    /// The foreign-key check after the body, of `tables` (nil: every table): true when it
    /// passed, false when it met violations the run knows nothing about (the attempt is
    /// then made again, learning them first).
    /// - Throws: `MigrationKitError.foreignKeyViolationsAdded` for violations the body added.
    private func checkedAfterBody(_ tables: [String]?) throws -> Bool {
        // The common path: no violation at all, one pass over the foreign keys.
        guard try ForeignKeyDeferral.foreignKeyViolationCount(in: db, tables: tables) > 0 else {
            baseline.learn(ForeignKeyViolations(), of: tables)
            return true
        }
        let after = try ForeignKeyDeferral.violations(in: db, tables: tables)
        // Only a body that changes nothing but the database can meet violations the
        // run knows nothing about (any other learned the whole database first).
        guard let before = baseline.known(of: tables) else { return false }
        let added = after.added(since: before)
        if !added.isEmpty { throw MigrationKitError.foreignKeyViolationsAdded(added) }
        baseline.learn(after, of: tables)
        return true
    }

    /// Every table's violations, looked for only when some table declares a foreign key.
    private func everyViolation() throws -> ForeignKeyViolations {
        try ForeignKeyDeferral.declaresForeignKeys(db) ? ForeignKeyDeferral.violations(in: db) : ForeignKeyViolations()
    }
}

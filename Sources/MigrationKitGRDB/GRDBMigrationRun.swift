import Foundation
import GRDB
import MigrationKit

/// One `migrate` call through GRDB's migrator, as MigrationKit's closures around the
/// steps see it (`GRDBStepBody`): which steps ran and for how long, which one failed,
/// and what the observer hears. GRDB runs the closures one after another on its writer,
/// in the call's barrier, where the closures find the call by their connection
/// (`GRDBMigrationCalls`); the caller reads the outcome once GRDB's `migrate` has
/// returned or thrown.
///
/// GRDB runs a step's closure inside the step's transaction and commits after it, so a
/// step is known to have committed when the next one starts, or when GRDB's `migrate`
/// returns: that is when the observer hears `didApply`, and what the step's duration in
/// the report includes (its ledger row, its foreign-key check and its COMMIT).
final class GRDBMigrationRun: @unchecked Sendable {
    private let lock = NSLock()
    private let observer: (@Sendable (MigrationEvent) -> Void)?
    /// The steps the call may run: those registered up to its target.
    private let candidates: ArraySlice<MigrationStep<Database>>
    private let clock = ContinuousClock()
    private var reproducedLegacyHistorySQL: String?
    private var total: Int?
    private var running: (step: MigrationStep<Database>, since: ContinuousClock.Instant)?
    private var failure: MigrationStepError?
    private var begun = false
    /// Whether the history table exists, once a step made it or the first step found
    /// it: the next steps only insert their row. (A step that made it and failed ends
    /// the call: GRDB runs no step after a failure.)
    private var historyTableExists = false
    private var report = MigrationReport()
    /// How the steps that ran had their foreign keys checked.
    private var foreignKeys = ForeignKeyChecking()
    /// Whether the verification after the run reads what it changed (else the whole file).
    private let watchesChanges: Bool
    /// What the run changes, watched from its first step on.
    private var changes: GRDBChangedTables?

    /// A call that may run `candidates`, whose verification reads the tables the run
    /// changed when `watchesChanges`.
    init(candidates: ArraySlice<MigrationStep<Database>>, watchesChanges: Bool, observer: (@Sendable (MigrationEvent) -> Void)?) {
        self.candidates = candidates
        self.watchesChanges = watchesChanges
        self.observer = observer
    }

    /// The database has an earlier version's history table, made by `legacyHistorySQL`:
    /// closures on another connection than the call's (GRDB's scratch database,
    /// compared with the call's) make it too.
    func reproducesLegacyHistory(_ legacyHistorySQL: String?) {
        lock.withLock { reproducedLegacyHistorySQL = legacyHistorySQL }
    }

    /// The `CREATE TABLE` that closures on another connection than the call's make.
    var legacyHistorySQL: String? { lock.withLock { reproducedLegacyHistorySQL } }

    /// How many steps will run, once the caller has planned the run.
    func plans(_ count: Int) {
        lock.withLock { total = count }
    }

    /// The steps whose checksums the checks before the run recorded (adopted).
    func adopted(_ identifiers: [String]) {
        lock.withLock { report.adoptedChecksums = identifiers }
    }

    /// What the verification after the run checked, in words.
    func verified(_ checks: [String]) {
        lock.withLock { report.verification = checks }
    }

    /// What the call did, once it is over.
    var outcome: MigrationReport { lock.withLock { report } }

    /// A step's closure starts, inside its transaction, and the step runs: the step
    /// before it committed, and the observer hears of this one.
    ///
    /// - Parameter checks: how the step's foreign keys are checked.
    func willRun(_ step: MigrationStep<Database>, checks: ForeignKeyChecking.Step, in db: Database) throws {
        try begin(in: db)
        let (position, total) = lock.withLock { () -> (Int, Int) in
            running = (step, clock.now)
            foreignKeys.ran(checks)
            return (report.steps.count + 1, max(self.total ?? 0, report.steps.count + 1))
        }
        observer?(.willApply(identifier: step.identifier, position: position, total: total))
    }

    /// A step's closure starts, inside its transaction, and only the ledger changes (a
    /// squash whose replaced steps are all applied): reported as a merge, not as a step
    /// applied.
    func willMerge(_ merge: LedgerMerge, in db: Database) throws {
        try begin(in: db)
        lock.withLock { report.merges.append(merge) }
    }

    /// What every closure does first: the step before it committed; the first closure
    /// also moves an earlier version's history table over (the call's first write) and
    /// counts the steps to run, when the observer wants a total and none was planned.
    private func begin(in db: Database) throws {
        if lock.withLock({ !begun }) {
            let tables = try MigrationBookkeeping.Tables(in: db)
            if tables.legacyHistory { try MigrationBookkeeping.moveLegacyHistory(in: db) }
            let counted = try observer != nil && lock.withLock({ total }) == nil ? pendingCount(in: db) : nil
            let changes = watchesChanges ? try GRDBChangedTables(watching: db) : nil
            lock.withLock {
                begun = true
                historyTableExists = tables.history || tables.legacyHistory  // the move made it
                if let counted { total = counted }
                self.changes = changes
            }
        }
        finishRunning()
    }

    /// The tables the run changed that exist now (`GRDBChangedTables`), for a
    /// verification limited to them; nil for one of the whole file.
    func changedTables(in db: Database) throws -> [String]? {
        guard watchesChanges else { return nil }
        return try lock.withLock { changes }?.tables(in: db) ?? []
    }

    /// The running step's history row, in its transaction.
    func recordHistory(of step: MigrationStep<Database>, duration: Duration, in db: Database) throws {
        if !lock.withLock({ historyTableExists }) {
            try db.execute(MigrationHistoryTable.create)
            lock.withLock { historyTableExists = true }
        }
        try db.execute(MigrationHistoryTable.record(step.identifier, checksum: step.checksum, duration: duration))
    }

    /// The running step's closure threw `error`.
    func failed(_ step: MigrationStep<Database>, _ error: any Error) {
        let attributed = MigrationEngine<Database>.stepError(step, .apply, error)
        lock.withLock { failure = attributed }
    }

    /// What GRDB's `migrate` threw, as the failure of the step that was running (its
    /// closure's error, or GRDB's foreign-key check after it), for the observer; nil when
    /// no step was running.
    func failure(after error: any Error) -> MigrationStepError? {
        lock.withLock {
            if let failure { return failure }
            guard let running else { return nil }
            return MigrationEngine<Database>.stepError(running.step, .apply, error)
        }
    }

    /// GRDB's `migrate` returned: the last step committed. What the call did, and how
    /// the steps that ran had their foreign keys checked.
    func finish() -> (report: MigrationReport, foreignKeys: ForeignKeyChecking) {
        finishRunning()
        return lock.withLock { (report, foreignKeys) }
    }

    private func finishRunning() {
        let committed = lock.withLock { () -> (String, Duration)? in
            guard let running else { return nil }
            self.running = nil
            let duration = clock.now - running.since
            report.steps.append(MigrationReport.Step(identifier: running.step.identifier, duration: duration))
            return (running.step.identifier, duration)
        }
        if let (identifier, duration) = committed { observer?(.didApply(identifier: identifier, duration: duration)) }
    }

    /// How many of the candidates GRDB's migrator runs: those whose own identifier is
    /// not in the ledger, but for squashes that only rewrite it (`GRDBStepBody.ledgerMerge`).
    private func pendingCount(in db: Database) throws -> Int {
        let ledger = Set(try String.fetchAll(db, sql: MigrationLedgerTable.selectIdentifiersSQL))
        return candidates.filter { step in
            !ledger.contains(step.identifier)
                && GRDBStepBody.ledgerMerge(of: step, appliedMerged: Set(step.merging.filter(ledger.contains))) == nil
        }.count
    }
}

/// How the foreign keys of the steps a run applied were checked, which decides what the
/// verification after it checks of them.
struct ForeignKeyChecking: Sendable {
    /// How GRDB's migrator checks one step's foreign keys.
    enum Step: Sendable {
        /// Deferred, and checked before it commits (GRDB's `checkForeignKeys()`, over
        /// the whole file, when the connection enforces foreign keys).
        case deferred
        /// Enforced while it runs: a statement that breaks one fails.
        case immediate
        /// Deferred and not checked (registered after `disablingDeferredForeignKeyChecks()`).
        case unchecked
    }

    private var anyUnchecked = false

    mutating func ran(_ step: Step) {
        anyUnchecked = anyUnchecked || step == .unchecked
    }

    /// What the verification does of foreign keys. Where the connection enforces them, a
    /// run of checked steps added no violation: an immediate step's statements could
    /// not, and GRDB's check before a deferred step commits covers the whole file (the
    /// violations a file had before are the app's, as GRDB leaves them). A step that ran
    /// unchecked (the app checks them itself), or a connection that does not enforce
    /// them (GRDB then checks nothing), leaves them to the app: not checked, and not
    /// said to be.
    ///
    /// - Parameter enforced: `PRAGMA foreign_keys`, as GRDB's migrator reads it.
    func verification(enforced: Bool) -> ForeignKeyVerification {
        anyUnchecked || !enforced ? .skipped : .checkedByTransaction
    }
}

/// What GRDB's migrator runs for one step: the step, as GRDB runs a step, with
/// MigrationKit's bookkeeping around it, in the step's transaction: its history row,
/// and what the call (`GRDBMigrationRun`) reports.
struct GRDBStepBody: Sendable {
    let step: MigrationStep<Database>
    let checks: ForeignKeyChecking.Step
    /// The calls the closure may belong to, found by its connection.
    let calls: GRDBMigrationCalls
    /// For `hasSchemaChanges` on a database that still has an earlier version's history
    /// table: its `CREATE TABLE`, made in the scratch database GRDB replays the steps
    /// into, so that GRDB's comparison (which counts it as the app's) finds it on both
    /// sides. Asked when the closure runs: a call learns it in its barrier.
    let legacyHistorySQL: @Sendable () -> String?

    func run(_ db: Database, appliedMerged: Set<String>) throws {
        let start = ContinuousClock.now
        let merge = Self.ledgerMerge(of: step, appliedMerged: appliedMerged)
        guard let run = calls.run(on: db) else {
            if let legacyHistorySQL = legacyHistorySQL(), try !db.tableExists(MigrationHistoryTable.legacyName) {
                try db.execute(sql: legacyHistorySQL)
            }
            guard merge == nil else { return }
            try Self.apply(step, in: db, appliedMerged: appliedMerged)
            try MigrationBookkeeping.recordHistory(step.identifier, checksum: step.checksum, duration: ContinuousClock.now - start, in: db)
            return
        }
        if let merge {
            try run.willMerge(merge, in: db)
            return
        }
        try run.willRun(step, checks: checks, in: db)
        do {
            try Self.apply(step, in: db, appliedMerged: appliedMerged)
            // A step that ended GRDB's transaction (its own COMMIT or ROLLBACK) fails here
            // with GRDB's own error for it (`SQLITE_ABORT`, "Transaction was aborted"), as
            // at GRDB's ledger row.
            try run.recordHistory(of: step, duration: ContinuousClock.now - start, in: db)
        } catch {
            run.failed(step, error)
            throw error
        }
    }

    /// For a squash that cannot be told which of its steps are applied (a migration
    /// file's), with all of them applied: the ledger rewrite GRDB's migrator makes, with
    /// nothing to run. Nil for every other step.
    static func ledgerMerge(of step: MigrationStep<Database>, appliedMerged: Set<String>) -> LedgerMerge? {
        guard step.applyMerged == nil, !step.merging.isEmpty, appliedMerged.count == step.merging.count else { return nil }
        return LedgerMerge(identifier: step.identifier, replaces: step.merging)
    }

    /// The step's own work, as GRDB's migrator calls it. A merged step in GRDB's form is
    /// given what it replaces that is applied. A squash that cannot be told runs when
    /// none of its steps is applied, and is refused when only some are.
    static func apply(_ step: MigrationStep<Database>, in db: Database, appliedMerged: Set<String>) throws {
        if let applyMerged = step.applyMerged {
            try applyMerged(db, appliedMerged)
            return
        }
        if !step.merging.isEmpty, !appliedMerged.isEmpty {
            throw MigrationKitError.partiallyAppliedMerge(step: step.identifier, applied: step.merging.filter(appliedMerged.contains),
                                                          missing: step.merging.filter { !appliedMerged.contains($0) })
        }
        try step.apply(db)
    }
}

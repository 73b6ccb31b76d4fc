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
///
/// The history rows are written as the SQLCipher runner writes them (`RunHistory`): the
/// call's first step's transaction records the checksum of every step GRDB's migrator
/// is going to run, its last step's transaction their times, and a call that ends
/// before its last step committed finishes them in a transaction of its own
/// (`finishHistory(in:)`). GRDB writes the ledger rows.
final class GRDBMigrationRun: @unchecked Sendable {
    private let lock = NSLock()
    private let observer: (@Sendable (MigrationEvent) -> Void)?
    /// The steps the call may run: those registered up to its target.
    private let candidates: ArraySlice<MigrationStep<Database>>
    private let clock = ContinuousClock()
    private var reproducedLegacyHistorySQL: String?
    private var total: Int?
    /// The step whose closure runs or ran last, and what its transaction recorded of the
    /// history, until it is known to have committed or not.
    private var running: (step: MigrationStep<Database>, since: ContinuousClock.Instant, recording: RunHistory.Recording?)?
    private var failure: MigrationStepError?
    private var begun = false
    /// The ledger as the checks before the run read it (`.strict`), while nothing has
    /// committed since (its `dataVersion`).
    private var ledgerRead: LedgerReading?
    /// The steps GRDB's migrator runs in this call, in order, as the ledger says at
    /// `dataVersion`: those the history writes ahead.
    private var planned: [MigrationStep<Database>] = []
    private var plannedPositions: [String: Int] = [:]
    /// `PRAGMA data_version` when the plan was made: another value in a later step's
    /// transaction means another connection committed since, and may have removed rows
    /// written ahead (`RunHistory.forgetStandingRows`).
    private var dataVersion: Int?
    private var history = RunHistory()
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

    /// How many steps will run, once the caller has planned the run from `reading`: the
    /// first step plans the history from it, unless another connection committed since.
    func plans(_ count: Int, from reading: LedgerReading) {
        lock.withLock {
            total = count
            ledgerRead = reading
        }
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
            running = (step, clock.now, nil)
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
    /// plans the steps to run (the total the observer hears, unless the checks planned
    /// them).
    private func begin(in db: Database) throws {
        if lock.withLock({ !begun }) {
            if try MigrationBookkeeping.Tables(in: db).legacyHistory { try MigrationBookkeeping.moveLegacyHistory(in: db) }
            try plan(in: db)
            let changes = watchesChanges ? try GRDBChangedTables(watching: db) : nil
            lock.withLock {
                begun = true
                if total == nil { total = planned.count }
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

    /// What the running step's transaction records of the history (`RunHistory`): the
    /// rows of every planned step in the call's first one, their times in its last one,
    /// nothing in between; the rows again when another connection committed since the
    /// call's last transaction, and a step GRDB runs out of the plan writes its own.
    ///
    /// - Parameter duration: how long the step has taken so far, as its row records it.
    func recordHistory(of step: MigrationStep<Database>, duration: Duration, in db: Database) throws {
        try plan(in: db)
        let recording = lock.withLock { () -> RunHistory.Recording in
            let later = plannedPositions[step.identifier].map { planned[($0 + 1)...] } ?? []
            return history.recording(step, followedBy: later, duration: duration)
        }
        for statement in recording.history { try db.execute(statement) }
        lock.withLock { running?.recording = recording }
    }

    /// The steps GRDB's migrator runs from here on: the candidates whose own identifier is
    /// not in the ledger, but for squashes that only rewrite it (`GRDBStepBody.ledgerMerge`).
    /// Planned again when another connection committed since they were (`PRAGMA
    /// data_version`, read under the step's write lock); from the ledger the checks read
    /// before the run while nothing has committed since, else from the ledger as it is.
    private func plan(in db: Database) throws {
        let version = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        let (plannedAt, read) = lock.withLock { (dataVersion, ledgerRead) }
        guard version != plannedAt else { return }
        let ledger = if let read, read.dataVersion == version {
            Set(read.snapshot.identifiers)
        } else {
            Set(try String.fetchAll(db, sql: MigrationLedgerTable.selectIdentifiersSQL))
        }
        let pending = candidates.filter { step in
            !ledger.contains(step.identifier)
                && GRDBStepBody.ledgerMerge(of: step, appliedMerged: Set(step.merging.filter(ledger.contains))) == nil
        }
        lock.withLock {
            if dataVersion != nil { history.forgetStandingRows() }
            dataVersion = version
            ledgerRead = nil
            self.planned = pending
            plannedPositions = Dictionary(uniqueKeysWithValues: pending.enumerated().map { ($0.element.identifier, $0.offset) })
        }
    }

    /// The running step's closure threw `error`.
    func failed(_ step: MigrationStep<Database>, _ error: any Error) {
        let attributed = MigrationEngine<Database>.stepError(step, .apply, error)
        lock.withLock { failure = attributed }
    }

    /// GRDB's `migrate` threw `error` in the call's barrier, on `db`: the running step's
    /// failure, for the observer, unless GRDB's ledger now names that step. Then GRDB
    /// failed after the step's COMMIT and before the next step's closure (the next
    /// `BEGIN IMMEDIATE`, busy), and the step counts as applied: its time is recorded and
    /// the failure is no step's. When the ledger cannot be read, no step is blamed either.
    func stopped(by error: any Error, in db: Database) -> MigrationStepError? {
        if let step = lock.withLock({ failure == nil ? running?.step : nil }) {
            let ledger = try? String.fetchAll(db, sql: MigrationLedgerTable.selectIdentifiersSQL)
            if ledger?.contains(step.identifier) == true {
                finishRunning()
            } else if ledger == nil {
                lock.withLock { running = nil }
            }
        }
        return stopped(by: error)
    }

    /// GRDB's `migrate` threw `error`: the running step's transaction was rolled back (its
    /// closure threw, or GRDB's foreign-key check or ledger row after it failed). Its
    /// failure, for the observer; nil when no step was running. Once the barrier has
    /// judged the failure on the database (`stopped(by:in:)`), its answer.
    func stopped(by error: any Error) -> MigrationStepError? {
        lock.withLock {
            if failure == nil, let running { failure = MigrationEngine<Database>.stepError(running.step, .apply, error) }
            running = nil
            return failure
        }
    }

    /// GRDB's `migrate` returned: the last step committed. What the call did, and how
    /// the steps that ran had their foreign keys checked.
    func finish() -> (report: MigrationReport, foreignKeys: ForeignKeyChecking) {
        finishRunning()
        return lock.withLock { (report, foreignKeys) }
    }

    /// GRDB's `migrate` is over (the step still running, unless it `stopped(by:)`,
    /// committed): the history rows of a call that ended before its last planned step
    /// committed, finished in a transaction of their own (`RunHistory.finishing`): the
    /// times of what it applied, and the rows written ahead for what it did not apply
    /// removed. Nothing for a call whose last step finished them. Even when the call is
    /// being stopped; what is left when this fails is harmless (rows the ledger does not
    /// name count for nothing), so its failure is not the call's.
    func finishHistory(in db: Database) {
        finishRunning()
        let statements = lock.withLock { history.finishing }
        guard !statements.isEmpty else { return }
        db.unstoppable {
            try? db.inTransaction(.immediate) {
                for statement in statements { try db.execute(statement) }
                return .commit
            }
        }
        lock.withLock { history = RunHistory() }
    }

    private func finishRunning() {
        let committed = lock.withLock { () -> (String, Duration)? in
            guard let running else { return nil }
            self.running = nil
            if let recording = running.recording { history.committed(recording) }
            let duration = clock.now - running.since
            report.steps.append(MigrationReport.Step(identifier: running.step.identifier, duration: duration))
            return (running.step.identifier, duration)
        }
        if let (identifier, duration) = committed { observer?(.didApply(identifier: identifier, duration: duration)) }
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
/// MigrationKit's bookkeeping around it, in the step's transaction: what the call
/// (`GRDBMigrationRun`) records of the history and reports; outside a call (GRDB's
/// scratch replay, an app running the runner's `migrator` itself), the step's own
/// history row.
struct GRDBStepBody: Sendable {
    /// The runner's steps, shared by every step's body (a launch builds GRDB's migrator
    /// for hundreds of them, and copying each step into its body costs more than GRDB's
    /// registration of it), and which one this is.
    let steps: [MigrationStep<Database>]
    let index: Int
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
        let step = steps[index]
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

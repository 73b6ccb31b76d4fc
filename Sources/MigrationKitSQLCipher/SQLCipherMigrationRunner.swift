import MigrationKit

/// A migration step for SQLCipher databases.
public typealias SQLCipherMigrationStep = MigrationStep<SQLCipherDatabase>

/// Applies, reports on and rolls back migration steps in an encrypted database.
///
/// The SQLCipher counterpart of GRDB's `DatabaseMigrator`, with the same ledger. Every
/// call works on one `SQLCipherWriter`, so the key is derived once per call however
/// many steps run. By default each step runs in its own `BEGIN IMMEDIATE` transaction
/// together with its ledger row, under the 12-step foreign-key rules
/// (`ForeignKeyDeferral`); a failing step rolls back alone, earlier steps stay, later
/// steps do not run. `MigrateOptions` selects one transaction for everything, or a dry
/// run. What counts as applied, pending, edited or merged is decided by
/// `MigrationAnalysis`, re-read under the write lock so concurrent processes never
/// apply a step twice. The verifier runs after every migrate and rollback.
public struct SQLCipherMigrationRunner: Sendable {
    public let registry: MigrationRegistry<SQLCipherDatabase>
    public var host: MigrationHostIntegration<SQLCipherDatabase>
    public var verifier: SQLCipherMigrationVerifier
    /// Apply a pending step even when a step registered after it is already applied.
    /// Off by default: a step slipped into the middle of a history is the classic way a
    /// database reaches a state no step expected.
    public var allowOutOfOrder = false
    /// Receives progress events (for a progress line, or a log).
    public var observer: (@Sendable (MigrationEvent) -> Void)?

    /// - Throws: `MigrationKitError.duplicateIdentifiers` or `.identifiersOutOfOrder`,
    ///   before any database is touched.
    public init(
        steps: [SQLCipherMigrationStep],
        enforceLexicographicOrder: Bool = true,
        host: MigrationHostIntegration<SQLCipherDatabase> = MigrationHostIntegration(),
        verifier: SQLCipherMigrationVerifier = SQLCipherMigrationVerifier()
    ) throws {
        self.registry = try MigrationRegistry(steps: steps, enforceLexicographicOrder: enforceLexicographicOrder)
        self.host = host
        self.verifier = verifier
    }

    // MARK: - Migrating

    /// Applies every pending step, then verifies.
    @discardableResult
    public func migrate(in writer: SQLCipherWriter, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        try migrate(in: writer, through: registry.steps.count - 1, options: options)
    }

    /// Applies pending steps up to and including `target`, then verifies.
    ///
    /// - Throws: `.unknownMigration` for an unregistered target,
    ///   `.databaseAlreadyMigratedBeyond` when a later step is applied (GRDB traps here).
    @discardableResult
    public func migrate(in writer: SQLCipherWriter, upTo target: String, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        guard let index = registry.index(of: target) else { throw MigrationKitError.unknownMigration(target) }
        return try migrate(in: writer, through: index, options: options)
    }

    private func migrate(in writer: SQLCipherWriter, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout)
        defer { lock.release() }
        let clock = ContinuousClock()
        let start = clock.now
        var report = try writer.writeWithoutTransaction { db in
            switch options.mode {
            case .perStep:
                return try migrateStepByStep(db, through: lastIndex, options: options)
            case .atomic, .dryRun:
                return try migrateAtomically(db, through: lastIndex, options: options)
            }
        }
        report.duration = clock.now - start
        return report
    }

    /// One transaction per step; the plan is made outside any lock, so a refusal
    /// (superseded, out of order, edited) writes nothing, and re-made under the lock
    /// whenever another process moved the ledger meanwhile.
    private func migrateStepByStep(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        let limited = options.verification == .changedTables
        var changed = ChangedTables()
        let graph = ForeignKeyGraph()
        // `PRAGMA data_version` changes when another connection commits, and only then:
        // read with the plan, and compared under the write lock before every step, it
        // says whether the plan still describes the database (a re-made analysis per
        // step would cost O(steps) each time, so O(n²) for a long run).
        var planVersion = try dataVersion(db)
        var analysis = try analyze(db, options: options)
        var pending = try analysis.pendingSteps(through: lastIndex, allowOutOfOrder: allowOutOfOrder)
        if analysis.needsBookkeeping(acceptModified: options.acceptModified) {
            // Only the ledger and history change here: no table of the app's to check.
            try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys, scope: { limited ? [] : nil }) {
                planVersion = try dataVersion(db)
                analysis = try analyze(db, options: options)
                report.merges = []
                report.adoptedChecksums = []
                try recordBookkeeping(analysis, options: options, in: db, report: &report)
                pending = try analysis.pendingSteps(through: lastIndex, allowOutOfOrder: allowOutOfOrder)
            }
        }
        let total = pending.count
        let clock = ContinuousClock()
        var next = pending.startIndex
        while next < pending.endIndex {
            let stepStart = clock.now
            var current: SQLCipherMigrationStep?
            var stepChanged = ChangedTables()
            let applied: SQLCipherMigrationStep? = try Self.attributingViolations(to: { current }) {
                try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys, scope: { limited ? try stepChanged.foreignKeyScope(using: graph, in: db) : nil }) {
                    // Under the write lock now: if another process committed anything since
                    // the plan was made, plan again from what the database really holds.
                    let version = try dataVersion(db)
                    if version != planVersion {
                        planVersion = version
                        foreignKeys.forget()
                        analysis = try analyze(db, options: options)
                        pending = try analysis.pendingSteps(through: lastIndex, allowOutOfOrder: allowOutOfOrder)
                        next = pending.startIndex
                    }
                    guard next < pending.endIndex else { return nil }
                    let step = pending[next]
                    current = step
                    observer?(.willApply(identifier: step.identifier, position: report.steps.count + 1, total: max(total, report.steps.count + 1)))
                    stepChanged = try apply(step, in: db, startedAt: stepStart, recordingChanges: limited)
                    return step
                }
            }
            guard let applied else { break }
            changed.add(stepChanged)
            next += 1
            let duration = clock.now - stepStart
            report.steps.append(MigrationReport.Step(identifier: applied.identifier, duration: duration))
            observer?(.didApply(identifier: applied.identifier, duration: duration))
        }
        // Limited to changes, each step's transaction has checked its foreign keys.
        report.verification = try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated), changed: limited ? (changed, graph) : nil)
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }

    /// Every pending step and the verification in one transaction; for a dry run,
    /// rolled back at the end whatever happened.
    private func migrateAtomically(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        var report = MigrationReport()
        report.isDryRun = options.mode == .dryRun
        let clock = ContinuousClock()
        var current: SQLCipherMigrationStep?
        let foreignKeys = ForeignKeyBaseline()
        // The page HMACs are checked on the file as it is, before the transaction:
        // inside it the check would read pages the transaction has not written back.
        // The pages the transaction writes are encrypted afresh, with new HMACs.
        let limited = options.verification == .changedTables
        if !limited, host.verifyIntegrity == nil { try verifier.verifyFileIntegrity(db) }
        var changed = ChangedTables()
        let graph = ForeignKeyGraph()
        try Self.attributingViolations(to: { current }) {
                try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys, commit: !report.isDryRun,
                                                     scope: { limited ? try changed.foreignKeyScope(using: graph, in: db) : nil }) {
                    // Run again from the start if the deferral had to look at the database
                    // before it (orphans it did not know of): start the report afresh too.
                    changed = ChangedTables()
                    report.steps = []
                    report.merges = []
                    report.adoptedChecksums = []
                    if report.isDryRun { report.schemaBefore = try SchemaDump.canonicalSQL(of: db) }
                    let analysis = try analyze(db, options: options)
                    try recordBookkeeping(analysis, options: options, in: db, report: &report)
                    let pending = try analysis.pendingSteps(through: lastIndex, allowOutOfOrder: allowOutOfOrder)
                    for (offset, step) in pending.enumerated() {
                        let stepStart = clock.now
                        current = step
                        observer?(.willApply(identifier: step.identifier, position: offset + 1, total: pending.count))
                        changed.add(try apply(step, in: db, startedAt: stepStart, recordingChanges: limited))
                        let duration = clock.now - stepStart
                        report.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                        observer?(.didApply(identifier: step.identifier, duration: duration))
                    }
                    current = nil
                    // Inside the transaction: foreign keys are checked by the deferral
                    // when the body returns (against what the database had before it);
                    // integrity and the rest are checked here.
                    report.verification = try runVerification(in: db, foreignKeys: .checkedByTransaction, changed: limited ? (changed, graph) : nil)
                    if report.isDryRun { report.schemaAfter = try SchemaDump.canonicalSQL(of: db) }
                }
        }
        if !limited, host.verifyIntegrity == nil, SQLCipherLibrary.hasCipherIntegrityCheck {
            report.verification.insert("cipher_integrity_check", at: 0)  // run before the transaction
        }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }

    private func dataVersion(_ db: SQLCipherDatabase) throws -> Int {
        try db.fetchInt(sql: "PRAGMA data_version") ?? 0
    }

    private func analyze(_ db: SQLCipherDatabase, options: MigrateOptions) throws -> MigrationAnalysis<SQLCipherDatabase> {
        let analysis = MigrationAnalysis(registry: registry, snapshot: try MigrationHistory.snapshot(in: db))
        try analysis.refuseUnsafeHistory(acceptModified: options.acceptModified)
        return analysis
    }

    /// Ledger rewrites for merged steps, adopted checksums (steps applied by GRDB or
    /// before checksums were kept) and deliberately accepted edits.
    private func recordBookkeeping(_ analysis: MigrationAnalysis<SQLCipherDatabase>, options: MigrateOptions, in db: SQLCipherDatabase, report: inout MigrationReport) throws {
        for merge in analysis.merges {
            for replaced in merge.replaces { try MigrationLedger.delete(replaced, in: db) }
            try MigrationHistory.delete(merge.replaces, in: db)
            try MigrationLedger.insert(merge.identifier, in: db)
            report.merges.append(merge)
        }
        for (identifier, checksum) in analysis.checksumsToAdopt.sorted(by: { $0.key < $1.key }) {
            try MigrationHistory.setChecksum(checksum, for: identifier, in: db)
            report.adoptedChecksums.append(identifier)
        }
        for identifier in analysis.modified where options.acceptModified.contains(identifier) {
            if let checksum = registry.step(identifier)?.checksum {
                try MigrationHistory.setChecksum(checksum, for: identifier, in: db)
            }
        }
    }

    /// Applies a step with its ledger and history rows.
    ///
    /// - Parameter recordingChanges: learn which tables the step writes, for a
    ///   verification limited to changes; otherwise nothing is returned.
    private func apply(_ step: SQLCipherMigrationStep, in db: SQLCipherDatabase, startedAt: ContinuousClock.Instant,
                       recordingChanges: Bool) throws -> ChangedTables {
        var changed = ChangedTables()
        if recordingChanges {
            let recorded = try db.recordingWrittenTables { try run(step, phase: .apply, in: db) }
            changed.add(recorded.tables, altersTable: recorded.altersTable)
        } else {
            try run(step, phase: .apply, in: db)
        }
        try MigrationLedger.insert(step.identifier, in: db)
        try MigrationHistory.record(step.identifier, checksum: step.checksum, duration: ContinuousClock.now - startedAt, in: db)
        return changed
    }

    // MARK: - Status

    /// Every registered step, applied, pending or modified, plus ledger identifiers no
    /// step has. Reads only: an unmanaged database is left without a ledger.
    public func migrationStatus(in writer: SQLCipherWriter) throws -> MigrationStatus {
        try analysis(in: writer).status
    }

    /// The full comparison of the registry with the database's ledger.
    public func analysis(in writer: SQLCipherWriter) throws -> MigrationAnalysis<SQLCipherDatabase> {
        let snapshot = try writer.read { try MigrationHistory.snapshot(in: $0) }
        return MigrationAnalysis(registry: registry, snapshot: snapshot)
    }

    /// The registered steps that are applied, in registration order.
    public func appliedIdentifiers(in writer: SQLCipherWriter) throws -> [String] {
        try migrationStatus(in: writer).applied
    }

    /// Whether every registered step is applied.
    public func hasCompletedMigrations(in writer: SQLCipherWriter) throws -> Bool {
        try migrationStatus(in: writer).isComplete
    }

    /// Whether the ledger holds steps this runner does not know (a newer app migrated it).
    public func hasBeenSuperseded(in writer: SQLCipherWriter) throws -> Bool {
        try migrationStatus(in: writer).isSuperseded
    }

    // MARK: - Rolling back

    /// Rolls back the latest applied step.
    @discardableResult
    public func rollbackLastMigration(in writer: SQLCipherWriter) throws -> MigrationReport {
        try rollbackMigrations(in: writer, steps: 1)
    }

    /// Rolls back the `steps` latest applied steps, latest first. Every one of them
    /// must have a rollback; that is checked before the first is touched.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, steps: Int) throws -> MigrationReport {
        try rollback(.latest(steps), in: writer)
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, to target: String) throws -> MigrationReport {
        try rollback(.after(target), in: writer)
    }

    /// Rolls back one named step, which must be the latest applied.
    @discardableResult
    public func rollbackMigration(_ identifier: String, in writer: SQLCipherWriter) throws -> MigrationReport {
        try rollback(.only(identifier), in: writer)
    }

    /// The identifiers `rollbackMigrations(in:steps:)` would roll back, in order, or the
    /// error it would throw, without changing anything: for checks made before a
    /// backup is taken.
    public func rollbackPlan(in writer: SQLCipherWriter, steps: Int) throws -> [String] {
        try writer.read { try plannedRollback(.latest(steps), applied: try appliedSteps(in: $0)) }.map(\.identifier)
    }

    /// The identifiers `rollbackMigrations(in:to:)` would roll back, or its error.
    public func rollbackPlan(in writer: SQLCipherWriter, to target: String) throws -> [String] {
        try writer.read { try plannedRollback(.after(target), applied: try appliedSteps(in: $0)) }.map(\.identifier)
    }

    /// Which applied steps a rollback undoes.
    private enum RollbackSelection {
        /// The latest `count` applied steps.
        case latest(Int)
        /// Every applied step registered after this one.
        case after(String)
        /// This step, which must be the latest applied.
        case only(String)
    }

    /// The steps to roll back, latest first, each with a rollback; throws what the
    /// rollback would refuse for.
    private func plannedRollback(_ selection: RollbackSelection, applied: [SQLCipherMigrationStep]) throws -> [SQLCipherMigrationStep] {
        let plan: [SQLCipherMigrationStep]
        switch selection {
        case .latest(let count):
            guard count >= 0 else { throw MigrationKitError.rollbackStepCountMustBeNonNegative }
            guard count <= applied.count else {
                throw MigrationKitError.rollbackBeyondApplied(requested: count, applied: applied.count)
            }
            plan = Array(applied.suffix(count).reversed())
        case .after(let target):
            guard let targetIndex = registry.index(of: target) else { throw MigrationKitError.unknownMigration(target) }
            plan = applied.filter { (registry.index(of: $0.identifier) ?? 0) > targetIndex }.reversed()
        case .only(let identifier):
            guard registry.index(of: identifier) != nil else { throw MigrationKitError.unknownMigration(identifier) }
            guard applied.last?.identifier == identifier else {
                throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: applied.last?.identifier, requested: identifier)
            }
            plan = [applied[applied.count - 1]]
        }
        if let irreversible = plan.first(where: { $0.rollback == nil }) {
            throw MigrationKitError.rollbackNotDefined(irreversible.identifier)
        }
        return plan
    }

    private func rollback(_ selection: RollbackSelection, in writer: SQLCipherWriter) throws -> MigrationReport {
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout)
        defer { lock.release() }
        let clock = ContinuousClock()
        let start = clock.now
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        try writer.writeWithoutTransaction { db in
            let plan = try plannedRollback(selection, applied: try appliedSteps(in: db))
            for (offset, step) in plan.enumerated() {
                let stepStart = clock.now
                try Self.attributingViolations(to: { step }, phase: .rollback) {
                    try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys) {
                        // Under the write lock: the step must still be the latest applied.
                        let latest = try appliedSteps(in: db).last
                        guard latest?.identifier == step.identifier else {
                            throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: latest?.identifier, requested: step.identifier)
                        }
                        observer?(.willRollback(identifier: step.identifier, position: offset + 1, total: plan.count))
                        try run(step, phase: .rollback, in: db)
                        // A merged step may still be recorded under the steps it replaces.
                        for identifier in [step.identifier] + step.merging {
                            try MigrationLedger.delete(identifier, in: db)
                        }
                        try MigrationHistory.delete([step.identifier] + step.merging, in: db)
                    }
                }
                let duration = clock.now - stepStart
                report.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                observer?(.didRollback(identifier: step.identifier, duration: duration))
            }
            try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated))
        }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        report.duration = clock.now - start
        return report
    }

    /// The applied steps in registration order, refusing a database whose history
    /// cannot be walked (migrated by a newer version, half-applied merge).
    private func appliedSteps(in db: SQLCipherDatabase) throws -> [SQLCipherMigrationStep] {
        let analysis = MigrationAnalysis(registry: registry, snapshot: try MigrationHistory.snapshot(in: db))
        if !analysis.unknown.isEmpty { throw MigrationKitError.databaseSuperseded(unknown: analysis.unknown) }
        if let partialMerge = analysis.partialMerge { throw partialMerge }
        return analysis.appliedSteps
    }

    // MARK: - Running and verifying

    /// Foreign-key violations are found after a step's closure returns, by the
    /// transaction around it; report them as that step's failure.
    private static func attributingViolations<T>(
        to step: () -> SQLCipherMigrationStep?,
        phase: MigrationStepError.Phase = .apply,
        _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as MigrationKitError {
            switch error {
            case .foreignKeyViolations, .foreignKeyViolationsAdded: break
            default: throw error
            }
            guard let step = step() else { throw error }
            throw MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: step.sourceFile, line: nil, underlying: error)
        }
    }

    /// Runs a step's closure, wrapping what it throws so the report names the step and,
    /// for SQL, the file and line of the failing statement.
    private func run(_ step: SQLCipherMigrationStep, phase: MigrationStepError.Phase, in db: SQLCipherDatabase) throws {
        do {
            try db.forbiddingCommits {
                switch phase {
                case .apply: try step.apply(db)
                case .rollback: try step.rollback?(db)
                }
            }
            if !db.isInsideTransaction { throw StepEndedTransaction() }
        } catch let error as SQLCipherError where error.resultCode == .SQLITE_CONSTRAINT_COMMITHOOK {
            throw stepError(step, phase, StepEndedTransaction(), location: SQLFileLocation(error))
        } catch let error as SQLFileStatementError where error.underlying.resultCode == .SQLITE_CONSTRAINT_COMMITHOOK {
            throw stepError(step, phase, StepEndedTransaction(), location: SQLFileLocation(file: error.sourcePath, line: error.sourceLine))
        } catch let error as StepEndedTransaction {
            throw stepError(step, phase, error, location: nil)
        } catch let error as any SourceLocatedError {
            throw stepError(step, phase, error, location: SQLFileLocation(file: error.sourcePath, line: error.sourceLine))
        } catch {
            throw stepError(step, phase, error, location: SQLFileLocation(error))
        }
    }

    private func stepError(_ step: SQLCipherMigrationStep, _ phase: MigrationStepError.Phase, _ error: any Error, location: SQLFileLocation?) -> MigrationStepError {
        MigrationStepError(
            identifier: step.identifier, phase: phase, sourceFile: location?.file ?? step.sourceFile,
            line: location?.line, underlying: error)
    }

    /// Verifies the database as after a migration: the host's closures where given,
    /// the default verifier otherwise. Throws the first problem.
    public func runPostMigrationChecks(in writer: SQLCipherWriter) throws {
        try writer.writeWithoutTransaction { try runVerification(in: $0, foreignKeys: .strict) }
    }

    /// Every check, passed or failed, for reports.
    public func verificationReport(in writer: SQLCipherWriter) throws -> VerificationReport {
        try writer.writeWithoutTransaction { db in
            var checks: [VerificationCheck] = []
            if let custom = host.verifyIntegrity {
                checks.append(Self.hostCheck("host integrity", part: .integrity) { try custom(db) })
            } else {
                checks += verifier.integrityChecks(db)
            }
            if let custom = host.verifyPostMigration {
                checks.append(Self.hostCheck("host post-migration", part: .postMigration) { try custom(db) })
            } else {
                checks += verifier.postMigrationChecks(db)
            }
            return VerificationReport(checks: checks)
        }
    }

    /// Verifies with the host's closures where given, the default verifier otherwise,
    /// and returns what was checked, in words (`MigrationReport.verification`).
    ///
    /// - Parameter changed: the tables the run wrote, to check only them (quick_check;
    ///   their foreign keys were checked by each transaction, with the run's graph,
    ///   which names them here without reading every table's foreign keys again); nil
    ///   checks the whole file.
    @discardableResult
    func runVerification(in db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification,
                         changed change: (tables: ChangedTables, graph: ForeignKeyGraph)? = nil) throws -> [String] {
        observer?(.willVerify)
        let clock = ContinuousClock()
        let start = clock.now
        var checked: [String] = []
        if let custom = host.verifyIntegrity {
            do { try custom(db) } catch { throw HostVerificationError(part: .integrity, underlying: error) }
            checked.append("the app's integrity checks")
        } else if let change {
            let tables = try change.tables.existing(in: db)
            if !tables.isEmpty {
                let checks = verifier.changedTableIntegrityChecks(db, tables: tables)
                if let failure = checks.lazy.compactMap(\.failure).first { throw failure }
                checked.append(SQLCipherLibrary.hasTableQuickCheck ? "quick_check of \(Self.count(tables.count, "changed table"))" : "quick_check")
            }
        } else {
            let checks = verifier.integrityChecks(db)
            if let failure = checks.lazy.compactMap(\.failure).first { throw failure }
            checked += checks.map(\.name)
        }
        if let custom = host.verifyPostMigration {
            do { try custom(db) } catch { throw HostVerificationError(part: .postMigration, underlying: error) }
            checked.append("the app's post-migration checks")
        } else {
            if let change {
                // Checked by the transactions; named here, as they saw them.
                try verifier.verifyPostMigration(db, foreignKeys: .checkedByTransaction)
                let scope = try change.tables.foreignKeyScope(using: change.graph, in: db)
                if !scope.isEmpty { checked.append("foreign keys of \(Self.count(scope.count, "table"))") }
            } else {
                try verifier.verifyPostMigration(db, foreignKeys: foreignKeys)
                checked.append("foreign keys")
            }
            if !verifier.requiredIndexes.isEmpty {
                checked.append(Self.count(verifier.requiredIndexes.count, "required index", plural: "required indexes"))
            }
        }
        observer?(.didVerify(duration: clock.now - start))
        return checked
    }

    private static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) " + (number == 1 ? noun : plural ?? noun + "s")
    }

    private static func hostCheck(_ name: String, part: HostVerificationError.Part, _ body: () throws -> Void) -> VerificationCheck {
        do {
            try body()
            return .passed(name, detail: "ok")
        } catch {
            return .failed(name, HostVerificationError(part: part, underlying: error))
        }
    }
}

/// Where a failing statement was, for `file:line` reports.
private struct SQLFileLocation {
    let file: String?
    let line: Int?

    init(file: String?, line: Int?) {
        self.file = file
        self.line = line
    }

    /// The line of an SQLCipher error inside a step's SQL (the step's own file).
    init?(_ error: any Error) {
        guard let line = (error as? SQLCipherError)?.location?.line else { return nil }
        self.init(file: nil, line: line)
    }
}

/// A step ran COMMIT, END or ROLLBACK itself, ending the transaction the runner gave it.
public struct StepEndedTransaction: Error, CustomStringConvertible {
    public var description: String {
        "it ended the runner's transaction (COMMIT, END or ROLLBACK inside a migration); remove that statement: "
            + "the runner runs every migration in its own transaction. Nothing of the step was kept and it was not recorded."
    }
}

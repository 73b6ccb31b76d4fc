/// The migration procedure, written once for every database layer: the plan under the
/// write lock, the step-by-step, atomic and dry-run executions, rollbacks, the ledger
/// and history rows, the 12-step foreign-key handling, failure attribution and the
/// verification after every change.
///
/// A runner (`SQLCipherMigrationRunner`, `GRDBMigrationRunner`) opens the connection in
/// its writer, under its change lock, and hands it here; the engine asks nothing else of
/// a layer than `MigrationConnection`. By default each step runs in its own
/// `BEGIN IMMEDIATE` transaction together with its ledger row, under the 12-step
/// foreign-key rules (`StepTransaction`); a failing step rolls back alone, earlier
/// steps stay, later steps do not run. `MigrateOptions` selects one transaction for
/// everything, or a dry run. What counts as applied, pending, edited or merged is decided
/// by `MigrationAnalysis`, re-read under the write lock so concurrent processes never
/// apply a step twice.
package struct MigrationEngine<Database: MigrationConnection>: Sendable {
    /// The registered steps, in the order they apply.
    let registry: MigrationRegistry<Database>
    /// The app's own integrity and post-migration checks, each replacing the verifier's
    /// part when set.
    var host: MigrationHostIntegration<Database>
    /// The checks after every migrate and rollback, for the parts `host` leaves to it.
    var verifier: MigrationVerifier
    /// Apply a pending step even when a step registered after it is already applied.
    var allowOutOfOrder: Bool
    /// Receives progress events.
    var observer: (@Sendable (MigrationEvent) -> Void)?
    /// When a step that does not say is checked for foreign keys.
    var foreignKeyChecks: ForeignKeyChecks
    /// Which of MigrationKit's refusals are made before anything runs.
    var historyChecks: HistoryChecks

    package init(registry: MigrationRegistry<Database>, host: MigrationHostIntegration<Database>, verifier: MigrationVerifier,
                 allowOutOfOrder: Bool, observer: (@Sendable (MigrationEvent) -> Void)?,
                 foreignKeyChecks: ForeignKeyChecks = .deferred, historyChecks: HistoryChecks = .strict) {
        self.registry = registry
        self.host = host
        self.verifier = verifier
        self.allowOutOfOrder = allowOutOfOrder
        self.observer = observer
        self.foreignKeyChecks = foreignKeyChecks
        self.historyChecks = historyChecks
    }

    /// When `step`'s foreign keys are checked in a transaction of its own.
    package func foreignKeyChecks(of step: MigrationStep<Database>) -> ForeignKeyChecks {
        step.foreignKeyChecks ?? foreignKeyChecks
    }

    /// Applies the pending steps up to the one at `lastIndex`, then verifies, as
    /// `options` says. Outside any transaction: the engine opens its own.
    ///
    /// - Parameter reading: the ledger as the caller read it on this connection, with no
    ///   commit of its own since (`readLedger`): the first plan is made from it instead
    ///   of reading the ledger again; nil reads it here.
    package func migrate(_ db: Database, through lastIndex: Int, options: MigrateOptions,
                         from reading: LedgerReading? = nil) throws -> MigrationReport {
        switch options.mode {
        case .perStep:
            return try migrateStepByStep(db, through: lastIndex, options: options, from: reading)
        case .atomic, .dryRun:
            return try migrateAtomically(db, through: lastIndex, options: options, from: reading)
        }
    }

    /// The ledger and the connection's `data_version`, read now (in the caller's read
    /// transaction, or outside any).
    package func readLedger(_ db: Database) throws -> LedgerReading {
        try LedgerReading.read(in: db)
    }

    /// The registry compared with what the database holds now.
    package func analysis(of db: Database) throws -> MigrationAnalysis<Database> {
        analysis(of: try readLedger(db))
    }

    /// The registry compared with the ledger as `reading` found it.
    package func analysis(of reading: LedgerReading) -> MigrationAnalysis<Database> {
        MigrationAnalysis(registry: registry, snapshot: reading.snapshot)
    }

    /// The plan, from what the database holds now (see `MigrationPlan`).
    package func plan(_ db: Database, through lastIndex: Int, options: MigrateOptions) throws -> MigrationPlan<Database> {
        try plan(from: try readLedger(db), through: lastIndex, options: options)
    }

    /// The plan, from the ledger as `reading` found it.
    package func plan(from reading: LedgerReading, through lastIndex: Int, options: MigrateOptions) throws -> MigrationPlan<Database> {
        try analysis(of: reading).migratePlan(through: lastIndex, allowOutOfOrder: allowOutOfOrder, acceptModified: options.acceptModified,
                                              acceptUnknown: options.acceptUnknown, checks: historyChecks)
    }


    // MARK: - Bookkeeping

    /// `PRAGMA data_version`: changes when another connection commits, and only then.
    func dataVersion(_ db: Database) throws -> Int {
        try db.fetchInteger(sql: "PRAGMA data_version") ?? 0
    }

    /// Ledger rewrites for merged steps, adopted checksums (steps applied by GRDB or
    /// before checksums were kept) and deliberately accepted edits.
    func recordBookkeeping(_ plan: MigrationPlan<Database>, in db: Database) throws {
        for merge in plan.merges {
            try MigrationBookkeeping.recordMerge(merge, in: db)
        }
        try recordChecksums(plan, in: db)
    }

    /// The checksums `plan` records: adopted ones, and accepted edits'. (GRDB's migrator
    /// makes the ledger's rewrites itself, so the GRDB runner records only these.) An
    /// earlier version's history table is moved first: its rows are read as the newer
    /// ones, and would hide, then overwrite, what is recorded here.
    package func recordChecksums(_ plan: MigrationPlan<Database>, in db: Database) throws {
        guard !plan.checksumsToAdopt.isEmpty || !plan.acceptedEdits.isEmpty else { return }
        try MigrationBookkeeping.moveLegacyHistory(in: db)
        for (identifier, checksum) in plan.checksumsToAdopt.sorted(by: { $0.key < $1.key }) {
            try MigrationBookkeeping.setChecksum(checksum, for: identifier, in: db)
        }
        for identifier in plan.acceptedEdits {
            if let checksum = registry.step(identifier)?.checksum {
                try MigrationBookkeeping.setChecksum(checksum, for: identifier, in: db)
            }
        }
    }

    /// What `recordBookkeeping` wrote, as the report says it.
    func reportBookkeeping(of plan: MigrationPlan<Database>, in report: inout MigrationReport) {
        report.merges = plan.merges
        report.adoptedChecksums = plan.checksumsToAdopt.keys.sorted()
    }

    // MARK: - Baseline and erase

    /// The steps `baseline(_:through:)` would record, refused as it would refuse them,
    /// reading only: what `baseline --dry-run` says.
    package func baselinePlan(_ db: Database, through lastIndex: Int) throws -> [String] {
        try analysis(of: db).baselinePlan(through: lastIndex).map(\.identifier)
    }

    /// Records every step up to and including the one at `lastIndex` as applied without
    /// running it (Flyway's `baseline`); steps already recorded are left as they are.
    /// Returns the identifiers newly recorded.
    package func baseline(_ db: Database, through lastIndex: Int) throws -> [String] {
        try db.inImmediateTransaction {
            try MigrationBookkeeping.moveLegacyHistory(in: db)
            var recorded: [String] = []
            for step in try analysis(of: db).baselinePlan(through: lastIndex) {
                try MigrationBookkeeping.recordApplied(step, duration: .zero, in: db)
                recorded.append(step.identifier)
            }
            return recorded
        }
    }

    /// Drops every table, view, index and trigger, the ledger and MigrationKit's
    /// history, and resets `user_version`, in one transaction.
    package func erase(_ db: Database) throws {
        var transaction = StepTransaction(db, baseline: ForeignKeyBaseline())
        try transaction.run(prepare: { .ownSQL }, body: { _ in
            let objects = try SchemaDump.objects(in: db, includingBookkeeping: true)
            for kind in ["trigger", "view", "table"] {
                for object in objects where object.type == kind {
                    try db.execute(BookkeepingStatement("DROP \(kind.uppercased()) IF EXISTS \(quoteIdentifier(object.name))"))
                }
            }
            if try db.tableExists("sqlite_sequence") { try db.execute(BookkeepingStatement("DELETE FROM sqlite_sequence")) }
            try db.execute(BookkeepingStatement("PRAGMA user_version = 0"))
            return ((), ChangedTables())
        })
    }
}

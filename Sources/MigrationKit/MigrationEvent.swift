/// Progress of a runner call, for command-line progress displays and logs.
public enum MigrationEvent: Sendable {
    /// A step is about to run; `position` counts from 1 up to `total`.
    case willApply(identifier: String, position: Int, total: Int)
    /// A step finished applying; `duration` is how long it took.
    case didApply(identifier: String, duration: Duration)
    /// A step is about to be rolled back; `position` counts from 1 up to `total`.
    case willRollback(identifier: String, position: Int, total: Int)
    /// A step finished rolling back, its ledger rows forgotten; `duration` is how long it
    /// took.
    case didRollback(identifier: String, duration: Duration)
    /// The verification after the steps is starting.
    case willVerify
    /// The verification passed; `duration` is how long it took.
    case didVerify(duration: Duration)
    /// A step failed and its transaction was rolled back: which step, where it was
    /// declared (a Swift step's file and line, a migration file's failing statement) and
    /// what it threw. Told before the runner throws, so a log names the step even where
    /// the runner throws what the step threw unchanged (`GRDBMigrationRunner`, as GRDB's
    /// migrator does).
    case didFail(MigrationStepError)
}

/// What a migrate or rollback call did.
public struct MigrationReport: Sendable {
    /// One step the call applied or rolled back, and how long it took.
    public struct Step: Sendable {
        /// The step's identifier, as recorded in grdb_migrations.
        public let identifier: String
        /// How long the step took.
        public let duration: Duration

        /// Records one step and how long it took.
        package init(identifier: String, duration: Duration) {
            self.identifier = identifier
            self.duration = duration
        }
    }

    /// Steps applied (or rolled back) by this call, in the order they ran.
    public var steps: [Step] = []
    /// Total time, verification included.
    public var duration: Duration = .zero
    /// True when the steps ran and were rolled back (`--dry-run`).
    public var isDryRun = false
    /// For a dry run: the schema before the steps (a canonical dump).
    public var schemaBefore: String?
    /// For a dry run: the schema after the steps, before they were rolled back (a
    /// canonical dump).
    public var schemaAfter: String?
    /// Checksums recorded for steps that were applied before checksums were kept.
    public var adoptedChecksums: [String] = []
    /// The copy of the database the call wrote before it changed anything
    /// (`rollbackNewerMigrations`), or nil when it wrote none.
    public var backup: String?
    /// Ledger rewrites for merged steps.
    package var merges: [LedgerMerge] = []
    /// Rows whose parent was already missing before this call (orphans from the time the
    /// app ran without foreign keys): left as they are, reported, never this call's
    /// failure. Nil when there were none.
    public var preexistingForeignKeyViolations: ForeignKeyViolations?
    /// The checks the verification ran, in words, for the report: "quick_check of 2
    /// changed tables", "foreign keys of 3 tables", "cipher_integrity_check", … Empty
    /// when nothing changed and verification was limited to changes.
    public var verification: [String] = []
    /// What the verification could not check for want of what only the database's app
    /// registers (an index's tokenizer, a function, a collation): no failure, named so
    /// a command can say how to check it.
    package var unmetNeeds: [AppExtensionNeed] = []

    /// An empty report, which the runner fills in as the call proceeds.
    package init() {}

    /// The identifiers of `steps`, in the order they ran.
    public var identifiers: [String] { steps.map(\.identifier) }
}

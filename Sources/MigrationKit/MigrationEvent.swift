/// Progress of a runner call, for command-line progress displays and logs.
public enum MigrationEvent: Sendable {
    /// A step is about to run; `position` counts from 1 up to `total`.
    case willApply(identifier: String, position: Int, total: Int)
    case didApply(identifier: String, duration: Duration)
    case willRollback(identifier: String, position: Int, total: Int)
    case didRollback(identifier: String, duration: Duration)
    case willVerify
    case didVerify(duration: Duration)
}

/// What a migrate or rollback call did.
public struct MigrationReport: Sendable {
    public struct Step: Sendable {
        public let identifier: String
        public let duration: Duration

        public init(identifier: String, duration: Duration) {
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
    /// For a dry run: the schema before and after the steps (canonical dumps).
    public var schemaBefore: String?
    public var schemaAfter: String?
    /// Checksums recorded for steps that were applied before checksums were kept.
    public var adoptedChecksums: [String] = []
    /// Ledger rewrites for merged steps.
    public var merges: [LedgerMerge] = []
    /// Rows whose parent was already missing before this call (orphans from the time the
    /// app ran without foreign keys): left as they are, reported, never this call's
    /// failure. Nil when there were none.
    public var preexistingForeignKeyViolations: ForeignKeyViolations?
    /// The checks the verification ran, in words, for the report: "quick_check of 2
    /// changed tables", "foreign keys of 3 tables", "cipher_integrity_check", … Empty
    /// when nothing changed and verification was limited to changes.
    public var verification: [String] = []

    public init() {}

    public var identifiers: [String] { steps.map(\.identifier) }
}

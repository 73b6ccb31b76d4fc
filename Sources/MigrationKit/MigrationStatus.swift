/// Where one registered step stands in a given database: every state `migrate` acts
/// on or refuses, so a status report never hides a refusal.
public enum MigrationState: String, Hashable, Sendable, Codable {
    /// Applied, and not edited since as far as checksums tell.
    case applied
    /// Not applied yet, and sorting after every applied step: migrate applies it.
    case pending
    /// Applied, but the step's source changed since (its checksum differs): migrate
    /// refuses until the edit is reverted or accepted.
    case modified
    /// Pending, but it sorts before a step that is applied: migrate refuses unless out
    /// of order is allowed.
    case outOfOrder
    /// A merged step of which only some replaced steps are applied: migrate refuses.
    case partlyMerged
}

/// One line of a status report.
public struct MigrationStatusEntry: Hashable, Sendable {
    /// The registered step's identifier.
    public let identifier: String
    /// Where the step stands.
    public let state: MigrationState
    /// For `.partlyMerged`: the replaced steps that are applied.
    public let mergedApplied: [String]
    /// For `.partlyMerged`: the replaced steps that are not applied.
    public let mergedMissing: [String]

    /// One line of the report; `mergedApplied` and `mergedMissing` matter only for
    /// `.partlyMerged`.
    init(identifier: String, state: MigrationState, mergedApplied: [String] = [], mergedMissing: [String] = []) {
        self.identifier = identifier
        self.state = state
        self.mergedApplied = mergedApplied
        self.mergedMissing = mergedMissing
    }
}

/// What a database's ledger says compared with the registered steps.
public struct MigrationStatus: Hashable, Sendable {
    /// Every registered step, in order, applied or pending.
    public let entries: [MigrationStatusEntry]
    /// Identifiers in the ledger that no registered step has (the database was
    /// migrated by a newer version), in ledger order.
    public let unknownApplied: [String]
    /// What this build can do with `unknownApplied`: use the database as it is, step
    /// back from the downs the newer build stored, or only read it.
    public let newer: DatabaseCompatibility

    /// A status from its lines and the ledger's unknown identifiers, as
    /// `MigrationAnalysis.status` makes it.
    init(entries: [MigrationStatusEntry], unknownApplied: [String], newer: DatabaseCompatibility = .current) {
        self.entries = entries
        self.unknownApplied = unknownApplied
        self.newer = newer
    }

    /// Applied steps, edited or not.
    public var applied: [String] { entries.filter { $0.state == .applied || $0.state == .modified }.map(\.identifier) }
    /// The applied steps registered before any step that is not: GRDB's completed
    /// migrations.
    public var completed: [String] { entries.prefix { $0.state == .applied || $0.state == .modified }.map(\.identifier) }
    /// Applied steps edited since (their checksum differs from the recorded one).
    public var modified: [String] { entries.filter { $0.state == .modified }.map(\.identifier) }
    /// Steps not applied yet, whatever migrate would do with them.
    public var pending: [String] { entries.filter { $0.state == .pending || $0.state == .outOfOrder || $0.state == .partlyMerged }.map(\.identifier) }
    /// Pending steps that sort before an applied one.
    public var outOfOrder: [String] { entries.filter { $0.state == .outOfOrder }.map(\.identifier) }
    /// Merged steps of which only some replaced steps are applied.
    public var partlyMerged: [String] { entries.filter { $0.state == .partlyMerged }.map(\.identifier) }
    /// Whether the ledger holds identifiers that no registered step has: the database was
    /// migrated by a newer version.
    public var isSuperseded: Bool { !unknownApplied.isEmpty }
    /// Whether no step is pending (out-of-order and partly merged steps count as pending).
    public var isComplete: Bool { pending.isEmpty }
    /// Whether a plain `migrate` would refuse this database (migrated by a newer version
    /// whose steps do not all allow this build, edited, out-of-order or partly merged
    /// steps) rather than apply or do nothing.
    public var migrateWouldRefuse: Bool {
        !newer.blocking.isEmpty || entries.contains { $0.state == .modified || $0.state == .outOfOrder || $0.state == .partlyMerged }
    }
}

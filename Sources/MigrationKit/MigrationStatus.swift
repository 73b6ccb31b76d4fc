/// Where one registered step stands in a given database.
public enum MigrationState: String, Hashable, Sendable, Codable {
    case applied
    case pending
    /// Applied, but the step's source changed since (its checksum differs).
    case modified
}

/// One line of a status report.
public struct MigrationStatusEntry: Hashable, Sendable {
    public let identifier: String
    public let state: MigrationState

    public init(identifier: String, state: MigrationState) {
        self.identifier = identifier
        self.state = state
    }
}

/// What a database's ledger says compared with the registered steps.
public struct MigrationStatus: Hashable, Sendable {
    /// Every registered step, in order, applied or pending.
    public let entries: [MigrationStatusEntry]
    /// Identifiers in the ledger that no registered step has (the database was
    /// migrated by a newer version), in ledger order.
    public let unknownApplied: [String]

    public init(entries: [MigrationStatusEntry], unknownApplied: [String]) {
        self.entries = entries
        self.unknownApplied = unknownApplied
    }

    public var applied: [String] { entries.filter { $0.state != .pending }.map(\.identifier) }
    public var modified: [String] { entries.filter { $0.state == .modified }.map(\.identifier) }
    public var pending: [String] { entries.filter { $0.state == .pending }.map(\.identifier) }
    public var isSuperseded: Bool { !unknownApplied.isEmpty }
    public var isComplete: Bool { pending.isEmpty }
}

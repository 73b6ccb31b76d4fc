import ArgumentParser
import MigrationKit

/// What `status` says of the migrations, whatever the database layer: a line per
/// migration with, for a state migrate refuses, why; the counts; and for
/// `--exit-code`, whether a deploy script should stop.
struct StatusReport {
    package let status: MigrationStatus
    /// Of `status.unknownApplied`, those an app's Swift steps applied (their history
    /// rows carry no checksum): an app's own database, not a newer version's.
    let appliedBySwiftSteps: Set<String>

    init(_ status: MigrationStatus, appliedBySwiftSteps: Set<String> = []) {
        self.status = status
        self.appliedBySwiftSteps = appliedBySwiftSteps
    }

    /// The migrations' lines and the closing count.
    func print(to reporter: Reporter) {
        for entry in status.entries {
            reporter.line(Self.line(for: entry, in: status))
        }
        for identifier in status.unknownApplied {
            if appliedBySwiftSteps.contains(identifier) {
                reporter.line("unknown  \(identifier) (applied by an app's own Swift step, which is not among these migrations: use that app's commands for this database)")
            } else {
                reporter.line("unknown  \(identifier) (\(NewerDatabaseReport(judgement: status.newer).statusNote(for: identifier)))")
            }
        }
        reporter.line("\(status.applied.count) applied, \(status.pending.count) pending"
            + (status.modified.isEmpty ? "" : ", \(status.modified.count) modified")
            + (status.outOfOrder.isEmpty ? "" : ", \(status.outOfOrder.count) out of order")
            + (status.partlyMerged.isEmpty ? "" : ", \(status.partlyMerged.count) partly merged")
            + (status.unknownApplied.isEmpty ? "" : ", \(status.unknownApplied.count) unknown") + "."
            + (status.migrateWouldRefuse ? " migrate would refuse this database until that is resolved." : "")
            + (NewerDatabaseReport(judgement: status.newer).statusSummary.map { " " + $0 } ?? ""))
    }

    /// `--exit-code`'s verdict, so that a deploy script learns both what migrate would
    /// do and whether it would refuse: refusal before pending, nil when up to date.
    static func verdict(migrateWouldRefuse: Bool, pending: Int) -> CommandVerdict? {
        if migrateWouldRefuse { return .migrateWouldRefuse }
        return pending > 0 ? .migrationsPending : nil
    }

    /// The migrations as `status --json` lists them.
    package var migrations: [MigrationStateDocument] {
        status.entries.map {
            MigrationStateDocument(
                identifier: $0.identifier, state: $0.state.rawValue,
                mergedApplied: $0.state == .partlyMerged ? $0.mergedApplied : nil,
                mergedMissing: $0.state == .partlyMerged ? $0.mergedMissing : nil)
        }
    }

    /// One line per migration: its state, and for a state migrate refuses, why.
    package static func line(for entry: MigrationStatusEntry, in status: MigrationStatus) -> String {
        switch entry.state {
        case .applied:
            return "applied  \(entry.identifier)"
        case .pending:
            return "pending  \(entry.identifier)"
        case .modified:
            return "modified \(entry.identifier) (edited since it was applied; migrate refuses until the edit is reverted or accepted)"
        case .outOfOrder:
            let latest = status.entries.last { $0.state == .applied || $0.state == .modified }?.identifier ?? "a later migration"
            return "out-of-order \(entry.identifier) (pending, but sorts before the applied \(latest); migrate refuses without --allow-out-of-order)"
        case .partlyMerged:
            return "partly-merged \(entry.identifier) (replaces \(entry.mergedApplied.joined(separator: ", ")), applied, and \(entry.mergedMissing.joined(separator: ", ")), not applied; migrate refuses: apply the missing ones with the version that has them first)"
        }
    }
}

/// One migration in `status --json`.
struct MigrationStateDocument: Encodable {
    package let identifier: String
    /// "applied", "pending", "modified", "outOfOrder" or "partlyMerged".
    package let state: String
    /// For "partlyMerged": the replaced migrations that are applied; otherwise null.
    @AlwaysPresent var mergedApplied: [String]?
    /// For "partlyMerged": the replaced migrations that are not; otherwise null.
    @AlwaysPresent var mergedMissing: [String]?

    init(identifier: String, state: String, mergedApplied: [String]?, mergedMissing: [String]?) {
        self.identifier = identifier
        self.state = state
        self.mergedApplied = mergedApplied
        self.mergedMissing = mergedMissing
    }
}

/// `status --exit-code`, the same flag on every command line.
struct StatusExitCodeOption: ParsableArguments {
    @Flag(name: .customLong("exit-code"), help: "Exit with code \(CLIExitCode.refused.rawValue) when migrate would refuse the database, \(CLIExitCode.pendingMigrations.rawValue) when migrations are pending (for deploy scripts).")
    var isRequested = false

    init() {}
}

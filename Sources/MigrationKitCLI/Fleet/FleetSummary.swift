import MigrationKit
import MigrationKitCommands

/// What a fleet run reports: a table with a line per database, a count line, and the
/// `--json` document with the same per database.
struct FleetSummary {
    let outcomes: [FleetRun.Outcome]
    let duration: Duration
    let jobs: Int
    let dryRun: Bool

    private var failed: Int { outcomes.filter { $0.failure != nil }.count }

    /// "2 of 1000 databases failed (listed above); …", for standard error.
    var failedSentence: String {
        let kept = outcomes.filter { $0.failure != nil && $0.backup != nil }.count
        let backups = kept == 0 ? "" : " (\(kept == failed ? "each" : "\(kept)") with the backup taken before, kept and listed above)"
        return "\(failed) of \(outcomes.count) databases failed (listed above) and \(failed == 1 ? "was" : "were") left as \(failed == 1 ? "it was" : "they were")\(backups); "
            + (dryRun ? "nothing was changed." : "the others are migrated. Fix the cause and run again: migrated databases are skipped.")
    }

    func print(to reporter: Reporter) {
        let width = min(max(outcomes.map(\.path.count).max() ?? 0, "DATABASE".count), 60)
        reporter.line(pad("DATABASE", width) + "  " + pad("TIME", 8) + "  RESULT")
        for outcome in outcomes {
            reporter.line(pad(outcome.path, width) + "  " + pad(outcome.duration.humanReadable, 8) + "  " + describe(outcome))
        }
        var counts: [String] = []
        let applied = outcomes.filter { if case .migrated(let report) = $0.result { return !report.steps.isEmpty } else { return false } }.count
        let upToDate = outcomes.count - applied - failed
        counts.append("\(applied) \(dryRun ? "would be migrated" : "migrated")")
        counts.append("\(upToDate) already up to date")
        if failed > 0 { counts.append("\(failed) failed") }
        reporter.line("\(outcomes.count) databases in \(duration.humanReadable) (\(jobs) at a time): " + counts.joined(separator: ", ") + ".")
    }

    private func describe(_ outcome: FleetRun.Outcome) -> String {
        switch outcome.result {
        case .failed(let failure):
            return "failed (exit \(failure.exitCode.rawValue)): \(failure.message)" + (outcome.backup.map { " Backup kept: \($0)" } ?? "")
        case .migrated(let report) where report.steps.isEmpty:
            return "already up to date"
        case .migrated(let report):
            let count = "\(report.steps.count) migration\(report.steps.count == 1 ? "" : "s")"
            return dryRun ? "would apply \(count), then rolled back" : "applied \(count)"
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    var document: FleetDocument {
        FleetDocument(
            databases: outcomes.map { outcome in
                let report: MigrationReport? = if case .migrated(let report) = outcome.result { report } else { nil }
                return FleetDocument.Database(
                    database: outcome.path,
                    result: outcome.failure != nil ? "failed" : (report?.steps.isEmpty == false ? "migrated" : "upToDate"),
                    applied: report?.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) } ?? [],
                    durationMs: outcome.duration.wholeMilliseconds,
                    backup: outcome.backup,
                    error: outcome.failure?.jsonBody)
            },
            failed: failed,
            durationMs: duration.wholeMilliseconds,
            jobs: jobs,
            dryRun: dryRun)
    }
}

/// What `migrate --json` prints for several databases.
struct FleetDocument: Encodable {
    struct Database: Encodable {
        let database: String
        /// "migrated" (or, in a dry run, would be), "upToDate" or "failed".
        let result: String
        let applied: [MigrateDocument.Step]
        let durationMs: Int64
        @AlwaysPresent var backup: String?
        @AlwaysPresent var error: ErrorPresentation.JSONBody?
    }

    let databases: [Database]
    let failed: Int
    let durationMs: Int64
    let jobs: Int
    let dryRun: Bool
}

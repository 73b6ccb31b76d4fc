import MigrationKit
import MigrationKitFiles

/// What a fleet run reports: a table with a line per database, a count line, and the
/// `--json` document with the same per database.
struct FleetSummary {
    /// `--shard`: which share this run took of how many databases listed.
    struct Share {
        let shard: FleetShard
        let listed: Int
    }

    let outcomes: [FleetOutcome<MigrationReport>]
    let duration: Duration
    let jobs: Int
    package let dryRun: Bool
    let shard: Share?

    private var failed: Int { outcomes.filter { $0.failure != nil }.count }
    private var stopped: Int { outcomes.filter { $0.state == .stopped }.count }
    private var notStarted: Int { outcomes.filter { $0.state == .notStarted }.count }

    /// The databases that migrated, or (`changed: false`) were up to date.
    private func finished(changed: Bool) -> Int {
        outcomes.filter { $0.state == .finished && $0.value.map { !$0.steps.isEmpty } == changed }.count
    }

    /// "1 database", "3 databases".
    static func databases(_ count: Int) -> String {
        "\(count) database\(count == 1 ? "" : "s")"
    }

    /// "Stopped by SIGTERM: …", after the table, for a run stopped by `signal`.
    func stoppedSentence(by signal: Int32) -> String {
        let finished = outcomes.count - stopped - notStarted - failed
        return "Stopped by \(Interruption.name(of: signal)): of \(Self.databases(outcomes.count)), \(finished) finished (migrated or up to date), "
            + "\(stopped) \(stopped == 1 ? "was" : "were") stopped and rolled back (each as it was), \(notStarted) never started"
            + (failed > 0 ? ", and \(failed) failed" : "") + "; each is listed with its result. "
            + "Run the same command again to finish: migrated databases are skipped."
    }

    /// "2 of 1000 databases failed (listed above); …", for standard error.
    var failedSentence: String {
        let kept = outcomes.filter { $0.failure != nil && $0.backup != nil }.count
        let backups = kept == 0 ? "" : " (\(kept == failed ? "each" : "\(kept)") with the backup taken before, kept and listed above)"
        let others = failed == outcomes.count ? "" : "the others are migrated or up to date. "
        return "\(failed) of \(Self.databases(outcomes.count)) failed (listed above) and \(failed == 1 ? "was" : "were") left as \(failed == 1 ? "it was" : "they were")\(backups); "
            + (dryRun ? "nothing was changed." : others + "Fix the cause and run again: migrated databases are skipped.")
    }

    func print(to reporter: Reporter) {
        let width = min(max(outcomes.map(\.path.count).max() ?? 0, "DATABASE".count), 60)
        reporter.line(Self.pad("DATABASE", width) + "  " + Self.pad("TIME", 8) + "  RESULT")
        for outcome in outcomes {
            reporter.line(Self.pad(outcome.path, width) + "  " + Self.pad(outcome.duration.humanReadable, 8) + "  " + describe(outcome))
        }
        var counts: [String] = []
        let applied = finished(changed: true)
        let upToDate = finished(changed: false)
        counts.append("\(applied) \(dryRun ? "would be migrated" : "migrated")")
        counts.append("\(upToDate) already up to date")
        if failed > 0 { counts.append("\(failed) failed") }
        if stopped > 0 { counts.append("\(stopped) stopped and rolled back") }
        if notStarted > 0 { counts.append("\(notStarted) not started") }
        let share = shard.map { " Shard \($0.shard) of the \(Self.databases($0.listed)) listed." } ?? ""
        reporter.line("\(Self.databases(outcomes.count)) in \(duration.humanReadable) (\(jobs) at a time): " + counts.joined(separator: ", ") + "." + share)
    }

    private func describe(_ outcome: FleetOutcome<MigrationReport>) -> String {
        switch outcome.state {
        case .failed:
            return "failed (exit \(outcome.failure?.exitCode.rawValue ?? 1)): \(outcome.failure?.message ?? "")" + (outcome.backup.map { " Backup kept: \($0)" } ?? "")
        case .stopped:
            return "stopped and rolled back: as it was" + (outcome.backup.map { ". Backup kept: \($0)" } ?? "")
        case .notStarted:
            return "not started"
        case .finished:
            guard let report = outcome.value, !report.steps.isEmpty else { return "already up to date" }
            let count = "\(report.steps.count) migration\(report.steps.count == 1 ? "" : "s")"
            return dryRun ? "would apply \(count), then rolled back" : "applied \(count)"
        }
    }

    /// Rows of cells as aligned columns, two spaces apart: the first row is the header.
    /// A column is as wide as its widest cell, up to 60 characters; the last is not
    /// padded.
    package static func columns(_ rows: [[String]]) -> [String] {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in min(60, rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0) }
        return rows.map { row in
            row.enumerated().map { column, cell in column == row.count - 1 ? cell : pad(cell, widths[column]) }.joined(separator: "  ")
        }
    }

    /// `text`, padded with spaces to `width` characters: a table's column.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    package var document: FleetDocument {
        FleetDocument(
            databases: outcomes.map { outcome in
                let report = outcome.value
                let result: String
                switch outcome.state {
                case .failed: result = "failed"
                case .stopped: result = "stopped"
                case .notStarted: result = "notStarted"
                case .finished: result = report?.steps.isEmpty ?? true ? "upToDate" : "migrated"
                }
                return FleetDocument.Database(
                    database: outcome.path,
                    result: result,
                    applied: report?.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) } ?? [],
                    durationMs: outcome.duration.wholeMilliseconds,
                    backup: outcome.backup,
                    error: outcome.failure?.jsonBody)
            },
            failed: failed,
            unfinished: stopped + notStarted,
            durationMs: duration.wholeMilliseconds,
            jobs: jobs,
            dryRun: dryRun,
            shard: shard.map { "\($0.shard)" },
            listed: shard?.listed ?? outcomes.count)
    }
}

/// What `migrate --json` prints for several databases.
struct FleetDocument: Encodable {
    struct Database: Encodable {
        let database: String
        /// "migrated" (or, in a dry run, would be), "upToDate", "failed"; after Ctrl-C
        /// or SIGTERM, "stopped" (rolled back) or "notStarted".
        let result: String
        let applied: [MigrateDocument.Step]
        let durationMs: Int64
        @AlwaysPresent var backup: String?
        @AlwaysPresent var error: ErrorPresentation.JSONBody?
    }

    let databases: [Database]
    let failed: Int
    /// Databases a signal left as they were: stopped, or never started. A fleet is done
    /// only when `failed` and `unfinished` are both 0 (and, over shards, every shard's
    /// document is there).
    package let unfinished: Int
    let durationMs: Int64
    let jobs: Int
    package let dryRun: Bool
    /// `--shard` as given ("1/3"), or null.
    @AlwaysPresent var shard: String?
    /// How many databases the command named, before `--shard` took its share.
    package let listed: Int
}

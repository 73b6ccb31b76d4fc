import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

/// A command that works on one database at a time, and so on a fleet of them: every
/// such command takes the same selectors (`FleetOptions`) and runs a fleet on the one
/// engine (`FleetRun`), with the same table, `--json` document, progress line,
/// interruption and exit codes. A command supplies only its work on one database.
package protocol FleetCommand: ProjectConfigurable, PrintsOutput {
    /// What the command reports for one database: its `--json` document alone, and
    /// each database's `report` in a fleet's.
    associatedtype Report: Encodable & Sendable

    var connection: ConnectionOptions { get set }
    var fleet: FleetOptions { get }
    var output: OutputOptions { get }

    /// The work on the database `connection` names, in `world` (a fleet database's
    /// own), its lines said to `reporter` (silent in a fleet, whose table says one line
    /// for each): returns its report rather than printing it.
    func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> Report

    /// How a run on one database ends after its report was printed: the exit code its
    /// verdict stands for (verify's failed check, drift), which its lines already
    /// explained.
    func finishAlone(_ report: Report, reporter: Reporter) throws

    /// The failure a database's report stands for in a fleet, in one sentence, or nil.
    func failure(in report: Report) -> ErrorPresentation?

    /// The RESULT of a database that finished, in the fleet's table.
    func fleetResult(_ report: Report) -> String

    /// What the progress line says the fleet is doing: "Verifying".
    var fleetVerb: String { get }

    /// The options that read standard input, by flag (`--password-file`), which
    /// `--db-list -` cannot share it with.
    var standardInputReaders: [String] { get }

    /// What a fleet refuses before it starts (an option that only makes sense once).
    func validateFleet(in world: CommandWorld) throws

    /// The fleet's own table instead of the engine's (status), or nil.
    func fleetTable(_ outcomes: [FleetOutcome<Report>]) -> [String]?

    /// The options whose values name something per database through a name form
    /// (`{name}`, `{folder}`, `{path}`): the key options, and a command's own (the new
    /// key, an export). Each database of a fleet must give each its own (`FleetNaming`).
    var perDatabaseOptions: [FleetNaming.PerDatabase] { get }

    /// Reads the keys every database shares (`FleetShared`) before the fleet starts, so
    /// a prompt comes before the progress line, and a key source that fails fails the
    /// command once rather than every database.
    func readSharedKeys(reporter: Reporter, in world: CommandWorld) throws
}

extension FleetCommand {
    package func finishAlone(_ report: Report, reporter: Reporter) throws {}
    package func failure(in report: Report) -> ErrorPresentation? { nil }
    package func validateFleet(in world: CommandWorld) throws {}
    package func fleetTable(_ outcomes: [FleetOutcome<Report>]) -> [String]? { nil }

    package func readSharedKeys(reporter: Reporter, in world: CommandWorld) throws {
        guard !connection.key.isTemplate else { return }
        _ = try connection.key.resolve(for: nil, promptMessage: "", keyIsNew: false, reporter: reporter, in: world)
    }
    package var standardInputReaders: [String] {
        [connection.key.given.standardInputReader(DatabaseKeyRole.text)].compactMap { $0 }
    }
    package var perDatabaseOptions: [FleetNaming.PerDatabase] { FleetNaming.PerDatabase.keySources(connection.key.given) }

    /// The command's name, as its configuration gives it.
    var commandName: String { Self.configuration.commandName ?? "" }

    package func run(in world: CommandWorld) throws {
        try runOnEachDatabase(reporter: Reporter(output, on: world.surroundings.console), in: world)
    }

    /// The one database the options name, or the fleet when they name one: what `run`
    /// does, after whatever a command checks first.
    package func runOnEachDatabase(reporter: Reporter, in world: CommandWorld) throws {
        if fleet.namesFleet(dbPaths: connection.dbPaths) { return try runFleet(reporter: reporter, in: world) }
        let report = try runOnDatabase(reporter: reporter, in: world)
        try reporter.document(report)
        try finishAlone(report, reporter: reporter)
    }

    /// Runs `runOnDatabase` on every database the fleet options select, then prints
    /// the table (or the `--json` document) and ends with the fleet's worst exit code.
    func runFleet(reporter: Reporter, in world: CommandWorld) throws {
        try validateFleet(in: world)
        try fleet.checkStandardInput(readBy: standardInputReaders)
        let selected = try fleet.databases(dbPaths: connection.dbPaths,
                                           pathsAreFlags: world.settings?.values[.dbPath]?.origin == .flag,
                                           perDatabase: perDatabaseOptions, standardInput: world.surroundings.standardInput)
        // Said once, not once a database (whose own reporters are silent).
        connection.key.warnIfOnCommandLine(reporter: reporter, in: world)
        let run = FleetRun(command: commandName, paths: selected.paths, jobs: fleet.jobCount(databases: selected.paths.count))
        let started = ContinuousClock.now
        let command = self
        let fleetWorld = world.with { $0.fleet = FleetShared(databaseCount: selected.paths.count, roots: selected.roots) }
        try readSharedKeys(reporter: reporter, in: fleetWorld)
        let outcomes = run.lastLook(run.run(reporter: reporter, verb: fleetVerb, in: fleetWorld, { path, world in
            var one = command
            one.connection.dbPath = path
            return try one.runOnDatabase(reporter: reporter.forDatabase(path), in: world)
        }, judge: failure(in:)))
        let report = FleetReport(command: commandName, outcomes: outcomes, duration: ContinuousClock.now - started, jobs: run.jobs,
                                 shard: fleet.shard.map { FleetSummary.Share(shard: $0, listed: selected.listed) })
        for line in fleetTable(outcomes) ?? report.table(result: fleetResult) { reporter.line(line) }
        reporter.line(report.countLine)
        try reporter.document(report.document)
        try report.end(reporter: reporter, in: world)
    }
}

/// What a fleet run of any command reports: its table, its count line, its `--json`
/// document and its exit code.
struct FleetReport<Report: Encodable & Sendable> {
    let command: String
    let outcomes: [FleetOutcome<Report>]
    let duration: Duration
    let jobs: Int
    let shard: FleetSummary.Share?

    private func count(_ state: FleetOutcome<Report>.State) -> Int {
        outcomes.filter { $0.state == state }.count
    }

    /// A line per database: its name, its time and what happened to it.
    package func table(result: (Report) -> String) -> [String] {
        FleetSummary.columns([["DATABASE", "TIME", "RESULT"]]
            + outcomes.map { [$0.path, $0.duration.humanReadable, describe($0, result: result)] })
    }

    private func describe(_ outcome: FleetOutcome<Report>, result: (Report) -> String) -> String {
        let backup = outcome.backup.map { " Backup kept: \($0)" } ?? ""
        switch outcome.state {
        case .finished: return outcome.value.map(result) ?? "done"
        case .failed:
            // A rotation's failure sentence says which key the database is on and where
            // that key is; `--json` has it as `key` too.
            return "failed (exit \(outcome.failure?.exitCode.rawValue ?? 1)): \(outcome.failure?.message ?? "")" + backup
        case .stopped: return "stopped: " + (outcome.keyState?.clause ?? "as it was") + (backup.isEmpty ? "" : "." + backup)
        case .notStarted: return "not started"
        }
    }

    /// How the stopped databases are: as they were, or, after a key rotation, each with
    /// the key it is on (which its line says).
    private var stoppedAre: String {
        outcomes.contains { $0.state == .stopped && $0.keyState != nil } ? "each listed with the key it is on" : "each as it was"
    }

    /// "200 databases in 3.1 s (2 at a time): 198 done, 2 failed."
    var countLine: String {
        var counts = ["\(count(.finished)) done"]
        if count(.failed) > 0 { counts.append("\(count(.failed)) failed") }
        if count(.stopped) > 0 { counts.append("\(count(.stopped)) stopped (\(stoppedAre))") }
        if count(.notStarted) > 0 { counts.append("\(count(.notStarted)) not started") }
        let share = shard.map { " Shard \($0.shard) of the \(FleetSummary.databases($0.listed)) listed." } ?? ""
        return "\(FleetSummary.databases(outcomes.count)) in \(duration.humanReadable) (\(jobs) at a time): " + counts.joined(separator: ", ") + "." + share
    }

    /// Ends the run: after a signal, with what was left; after failures, with the
    /// worst of their codes; else normally.
    func end(reporter: Reporter, in world: CommandWorld) throws {
        try FleetRun.end(outcomes, reporter: reporter, in: world, stopped: stoppedSentence(by:)) {
            let failures = count(.failed)
            let others = failures == outcomes.count ? "" : "; the others are done"
            return "\(failures) of \(FleetSummary.databases(outcomes.count)) failed (listed above)\(others). Fix the cause and run the same command again."
        }
    }

    /// The code the command on this database alone would have ended with.
    private func exitCode(of outcome: FleetOutcome<Report>) -> Int32 {
        if let failure = outcome.failure { return failure.exitCode.rawValue }
        if outcome.state == .stopped || outcome.state == .notStarted, let signal = Interruption.signal {
            return CLIExitCode.stopped(by: signal).rawValue
        }
        return CLIExitCode.success.rawValue
    }

    /// "Stopped by SIGINT: of 200 databases, 120 finished, 2 were stopped (each as it
    /// was), 78 never started; …".
    private func stoppedSentence(by signal: Int32) -> String {
        let stopped = count(.stopped)
        let failed = count(.failed) > 0 ? ", and \(count(.failed)) failed" : ""
        let counts: String = "\(count(.finished)) finished, \(stopped) \(stopped == 1 ? "was" : "were") stopped (\(stoppedAre)), "
            + "\(count(.notStarted)) never started" + failed
        return "Stopped by \(Interruption.name(of: signal)): of \(FleetSummary.databases(outcomes.count)), \(counts); "
            + "each is listed with its result. Run the same command again to finish what is left."
    }

    package var document: FleetCommandDocument<Report> {
        FleetCommandDocument(
            command: command,
            databases: outcomes.map { outcome in
                FleetCommandDocument.Database(
                    database: outcome.path,
                    result: "\(outcome.state)",
                    exitCode: exitCode(of: outcome),
                    durationMs: outcome.duration.wholeMilliseconds,
                    backup: outcome.backup,
                    error: outcome.failure?.jsonBody,
                    key: outcome.keyState,
                    report: outcome.value)
            },
            failed: count(.failed),
            unfinished: count(.stopped) + count(.notStarted),
            durationMs: duration.wholeMilliseconds,
            jobs: jobs,
            shard: shard.map { "\($0.shard)" },
            listed: shard?.listed ?? outcomes.count)
    }
}

/// What a command other than `migrate` prints with `--json` over several databases:
/// one document per run, whose `databases` arrays merge across shards
/// (`jq -s '{databases: map(.databases[])}'`).
struct FleetCommandDocument<Report: Encodable & Sendable>: Encodable {
    struct Database: Encodable {
        let database: String
        /// "finished", "failed"; after Ctrl-C or SIGTERM, "stopped" (as it was, or, after
        /// a key rotation, as `key` says) or "notStarted".
        let result: String
        /// This database's own exit code, as the command on it alone would have ended.
        let exitCode: Int32
        let durationMs: Int64
        @AlwaysPresent var backup: String?
        @AlwaysPresent var error: ErrorPresentation.JSONBody?
        /// After a key rotation (`rekey`) stopped or failed on it: the key it is on, read
        /// then, and where that key is stored (`KeyState`); null otherwise.
        @AlwaysPresent var key: KeyState?
        /// The command's own document for this database (what `--json` prints for it
        /// alone), or null when it did not get that far.
        @AlwaysPresent var report: Report?
    }

    /// The command that ran ("verify").
    let command: String
    let databases: [Database]
    let failed: Int
    /// Databases a signal left as they were: stopped, or never started.
    package let unfinished: Int
    let durationMs: Int64
    let jobs: Int
    /// `--shard` as given ("1/3"), or null.
    @AlwaysPresent var shard: String?
    /// How many databases the command named, before `--shard` took its share.
    package let listed: Int
}

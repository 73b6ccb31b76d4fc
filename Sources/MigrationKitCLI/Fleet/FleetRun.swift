import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitKeyOptions
import MigrationKitSQLCipher

/// `migrate` over many databases (repeated `--db-path`, `--db-glob`): one process,
/// `--jobs` databases at a time, for apps that keep a database per user or tenant.
///
/// Each database is migrated all or nothing (`MigrateOptions.Mode.atomic`): a failure
/// or a kill leaves it exactly as it was, never between two migrations, so a fleet is
/// always made of databases that are either migrated or untouched, and a second run
/// finishes the job. One database's failure does not stop the others.
struct FleetRun {
    static let maximumJobs = 256

    /// One database's result.
    struct Outcome: Sendable {
        enum Result: Sendable {
            case migrated(MigrationReport)
            case failed(ErrorPresentation)
            /// The process was asked to stop (Ctrl-C, SIGTERM) while this database ran:
            /// it was rolled back, and is as it was.
            case stopped
            /// The process was asked to stop before this database's turn.
            case notStarted
        }

        let path: String
        let result: Result
        let duration: Duration
        let backup: String?

        var failure: ErrorPresentation? {
            if case .failed(let failure) = result { return failure }
            return nil
        }
    }

    /// Where each database's key comes from.
    enum Keys {
        /// Read once, for every database (a key file, the environment, one prompt).
        case shared(DatabaseKey?)
        /// `{name}` in the key options: read for each database.
        case perDatabase(KeyOptions)
    }

    let paths: [String]
    let jobs: Int
    let keys: Keys
    let configuration: SQLCipherConfiguration
    /// Migrates one opened database: lint, backup and the migration itself. The backup
    /// it writes is put in `backup` as soon as it exists, so a failure after it still
    /// reports the file it left.
    let migrate: (SQLCipherWriter, _ backup: inout String?) throws -> MigrationReport

    /// Migrates every database; `finished` is told how many are done (and how many
    /// failed) after each one.
    func run(host: MigrationCLIHost, reporter: Reporter, finished: @escaping (_ done: Int, _ failed: Int) -> Void) -> [Outcome] {
        let failures = FailureCount()
        return WorkerPool.map(count: paths.count, jobs: jobs, { index in
            let outcome = migrateOne(paths[index], host: host, reporter: reporter)
            if outcome.failure != nil { failures.add() }
            return outcome
        }, finished: { done in finished(done, failures.value) },
        stop: { Interruption.signal != nil },
        skipped: { Outcome(path: paths[$0], result: .notStarted, duration: .zero, backup: nil) })
    }

    private func migrateOne(_ path: String, host: MigrationCLIHost, reporter: Reporter) -> Outcome {
        let started = ContinuousClock.now
        var backup: String?
        do {
            let key: DatabaseKey?
            switch keys {
            case .shared(let shared):
                key = shared
            case .perDatabase(let options):
                key = try CommandSupport.resolveKey(options, for: path, promptMessage: "Key for \(path): ", keyIsNew: false, reporter: reporter)
            }
            // Held for this database only: a fleet of thousands cannot keep a
            // descriptor open for each until the command ends.
            let lock = try DatabaseFileLock.exclusive(path: path, timeout: configuration.busyTimeout)
            ChangeNote.write("migrate, one database of a fleet", for: path)
            defer {
                ChangeNote.remove(for: path)
                lock.release()
            }
            let writer = try host.openWriter(ConnectionSettings(path: path, key: key, configuration: configuration))
            let report = try migrate(writer, &backup)
            return Outcome(path: path, result: .migrated(report), duration: ContinuousClock.now - started, backup: backup)
        } catch {
            // Whatever stopped it, each database runs all or nothing: it is as it was.
            if Interruption.signal != nil {
                return Outcome(path: path, result: .stopped, duration: ContinuousClock.now - started, backup: backup)
            }
            let presented = ErrorPresentation(error)
                ?? ErrorPresentation(kind: "unexpected", message: "unexpected failure: \(error)", exitCode: .failure)
            // Every line of the table and every `error` in --json names its database,
            // whether or not the error itself did.
            let failure = presented.message.hasPrefix(path + ":") ? presented
                : ErrorPresentation(kind: presented.kind, message: "\(path): \(presented.message)", exitCode: presented.exitCode)
            return Outcome(path: path, result: .failed(failure), duration: ContinuousClock.now - started, backup: backup)
        }
    }

    private final class FailureCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }
}

extension MigrateCommand {
    /// More than one database, or a list or share of them: a fleet.
    var isFleet: Bool { connection.dbPaths.count > 1 || !databaseGlobs.isEmpty || databaseList != nil || shard != nil }

    func runFleet(reporter: Reporter) throws {
        // A database file named in migrationkit.toml or the environment is one app's
        // database; --db-glob or --db-list names the fleet, so only --db-path flags join it.
        let namesFleet = !databaseGlobs.isEmpty || databaseList != nil
        let givenPaths = CLIContext.resolvedSettings.settings?.values[.dbPath]?.origin == .flag || !namesFleet ? connection.dbPaths : []
        let listed = try FleetDatabases(paths: givenPaths, globs: databaseGlobs, list: try databaseList.map(FleetDatabases.readList) ?? [])
        let databases = listed.paths.filter { shard?.contains($0) ?? true }
        let loaded = try CommandSupport.loadMigrations(connection.migrations, verifier: SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes), reporter: reporter)
        var runner = loaded.runner
        runner.allowOutOfOrder = allowOutOfOrder
        if let target { _ = try runner.registry.index(ofTarget: target) }

        CommandSupport.warnIfOnCommandLine(connection.key, reporter: reporter)
        let keys: FleetRun.Keys = connection.key.isTemplate
            ? .perDatabase(connection.key)
            : .shared(try CommandSupport.resolveKey(connection.key, for: nil, promptMessage: "Key for the \(databases.count) databases: ", keyIsNew: false, reporter: reporter))
        let configuration = CommandSupport.configuration(path: "", cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .change)
        MemoryProtectionNotes(keyResolved: !connection.key.plaintext, memorySecurityAsked: configuration.memorySecurity).print(to: reporter)

        let options = MigrateOptions(mode: dryRun ? .dryRun : .atomic, acceptModified: Set(acceptModified), verification: verification.scope)
        let command = self
        // Never more jobs than databases: the summary says how many ran at a time.
        let jobs = min(self.jobs ?? ProcessInfo.processInfo.activeProcessorCount, max(1, databases.count))
        let fleet = FleetRun(paths: databases, jobs: jobs, keys: keys,
                             configuration: configuration) { writer, backupPath in
            let silent = Reporter(quiet: true)
            if !command.noLint, let files = loaded.files {
                try command.lintPending(files, runner: runner, writer: writer, reporter: silent, listed: false)
            }
            if !command.dryRun, !command.backup.skip, try command.needsChange(runner, writer) {
                backupPath = try command.backup.create(of: writer)
            }
            return try command.target.map { try runner.migrate(in: writer, upTo: $0, options: options) }
                ?? runner.migrate(in: writer, options: options)
        }

        let total = databases.count
        let progress = ProgressLine(enabled: !output.quiet && !output.json && Console.standardErrorIsTerminal)
        progress.start("Migrating \(total) databases")
        let started = ContinuousClock.now
        let outcomes = fleet.run(host: CLIContext.host, reporter: reporter) { done, failed in
            // Done, not "migrated": a failed database is done too, and is counted apart.
            progress.update("[\(done)/\(total)] databases done" + (failed > 0 ? ", \(failed) failed" : ""))
        }
        progress.stop()

        let summary = FleetSummary(outcomes: outcomes, duration: ContinuousClock.now - started, jobs: fleet.jobs, dryRun: dryRun,
                                   shard: shard.map { FleetSummary.Share(shard: $0, listed: listed.paths.count) })
        summary.print(to: reporter)
        try reporter.document(summary.document)
        if let signal = Interruption.signal {
            // The table (or the JSON) above says what finished, what failed and what
            // never started.
            Console.error("\(CLIContext.host.commandName): error: \(summary.stoppedSentence(by: signal))")
            throw ExitCode(CLIExitCode.stopped(by: signal).rawValue)
        }
        if let first = outcomes.lazy.compactMap(\.failure).first {
            Console.error("\(CLIContext.host.commandName): error: \(summary.failedSentence)")
            throw ExitCode(first.exitCode.rawValue)
        }
    }
}

import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

/// `migrate` over a fleet, on the engine every command's fleet runs on (`FleetRun`),
/// with a table and a document of its own (`FleetSummary`): they name what each
/// database applied.
///
/// Each database is migrated all or nothing (`MigrateOptions.Mode.atomic`): a failure
/// or a kill leaves it exactly as it was, never between two migrations, so a fleet is
/// always made of databases that are either migrated or untouched, and a second run
/// finishes the job.
extension MigrateCommand {
    /// More than one database, or a list or share of them: a fleet.
    var isFleet: Bool { fleet.namesFleet(dbPaths: connection.dbPaths) }

    func runFleet(reporter: Reporter, in world: CommandWorld) throws {
        try fleet.checkStandardInput(readBy: [connection.key.given.standardInputReader(DatabaseKeyRole.text)].compactMap { $0 })
        let selected = try fleet.databases(dbPaths: connection.dbPaths,
                                           pathsAreFlags: world.settings?.values[.dbPath]?.origin == .flag,
                                           perDatabase: FleetNaming.PerDatabase.keySources(connection.key.given),
                                           standardInput: world.surroundings.standardInput)
        let databases = selected.paths
        let loaded = try LoadedMigrations.load(connection.migrations, requiredIndexes: requiredIndexes, reporter: reporter, in: world)
        var migrations = loaded.migrations
        migrations.allowOutOfOrder = allowOutOfOrder
        if let target { _ = try migrations.index(ofTarget: target) }

        connection.key.warnIfOnCommandLine(reporter: reporter, in: world)
        let fleetWorld = world.with { $0.fleet = FleetShared(databaseCount: databases.count, roots: selected.roots) }
        // A key the databases share is read before the progress line starts.
        if !connection.key.isTemplate {
            _ = try connection.key.resolve(for: nil, promptMessage: "", keyIsNew: false, reporter: reporter, in: fleetWorld)
        }
        let shape = OpenRequest(path: "", key: nil, cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .change, in: world)
        MemoryProtectionNotes(keyResolved: !connection.key.plaintext, memorySecurityAsked: shape.memorySecurity).print(to: reporter, layer: world.layer)

        let options = MigrateOptions(mode: dryRun ? .dryRun : .atomic, acceptModified: Set(acceptModified), verification: verification.scope,
                                     acceptUnknown: Set(acceptUnknown))
        let command = self
        let run = FleetRun(command: "migrate", paths: databases, jobs: fleet.jobCount(databases: databases.count))
        let silent = Reporter(quiet: true, on: world.surroundings.console)
        let started = ContinuousClock.now
        let outcomes = run.run(reporter: reporter, verb: "Migrating", in: fleetWorld) { path, world in
            let key = try command.connection.key.resolve(for: path, promptMessage: "Key for \(path): ", keyIsNew: false,
                                                    reporter: reporter.forDatabase(path), in: world)
            var request = shape.forFile(at: path)
            request.key = key
            let session = try MigrationSession.open(request, migrations: migrations, in: world)
            // One read of the ledger serves lint, the backup decision and the plan.
            try command.refuseUnadopted(session, in: world)
            if !command.noLint, let files = loaded.files {
                try command.lintPending(files, session: session, reporter: silent, listed: false, in: world)
            }
            if !command.dryRun, !command.backup.skip, try session.changesAnything(upTo: command.target, options: options) {
                _ = try session.backup(command.backup, in: world)
            }
            return try session.migrate(upTo: command.target, options: options)
        }

        let summary = FleetSummary(outcomes: outcomes, duration: ContinuousClock.now - started, jobs: run.jobs, dryRun: dryRun,
                                   shard: fleet.shard.map { FleetSummary.Share(shard: $0, listed: selected.listed) })
        summary.print(to: reporter)
        try reporter.document(summary.document)
        // The table (or the JSON) above says what finished, what failed and what never
        // started.
        try FleetRun.end(outcomes, reporter: reporter, in: world, stopped: summary.stoppedSentence(by:)) { summary.failedSentence }
    }
}

import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

struct RestoreCommand: UsesProjectConnectionAndBackup, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back in place of the database, after proving it opens with the key.",
        discussion: "The current database is itself backed up first (unless --no-backup), so a restore can be undone. Stop the app first.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("from"), help: ArgumentHelp("The backup file to restore.", valueName: "file"))
    package var source: String

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        let request = try OpenRequest.resolving(connection, access: .change, reporter: reporter, in: world)
        try MigrationSession.holdChangeLock(on: request.path, timeout: request.lockTimeout, in: world)
        var safetyCopy: String?
        let proof = try prove(source, as: request, in: world)
        // The backup is staged beside the database first; the safety copy is taken only
        // then (so a refused restore changes nothing) and never prunes the backup being
        // restored.
        try BackupFiles.putInPlace(source, of: request.path, timeout: request.lockTimeout, heldLock: world.locks.lock(on: request.path)) {
            // A missing database (the case restore is most needed for) has nothing to keep.
            guard !backup.skip, FileManager.default.fileExists(atPath: request.path) else { return }
            safetyCopy = try keepCurrentDatabase(request, reporter: reporter, in: world)
        }
        reporter.line("Restored \(request.path) from \(source).")
        if let notChecked = world.appExtensionAdvice.warning(notChecked: proof.checkedFully ? [] : [proof], of: "The backup") {
            reporter.warning(notChecked)
        }
        if let safetyCopy { reporter.line("The database as it was before the restore: \(safetyCopy)") }
        try reporter.document(RestoreDocument(database: request.path, databaseName: world.databaseName, restoredFrom: source, backup: safetyCopy))
    }

    /// Opens the backup as the database is opened (read-only, with its key and the
    /// host's own setup) and checks it: it must open and pass `quick_check`, as far as
    /// what only the app registers lets it run. Returns the check.
    private func prove(_ backup: String, as request: OpenRequest, in world: CommandWorld) throws -> VerificationCheck {
        var proving = request.forFile(at: backup)
        proving.access = .inspect
        proving.readOnly = true
        // No change lock: the backup is only read, and no other command changes it.
        let opened = try MigrationSession.openScratch(proving, migrations: try world.layer.hostMigrationsOrNone(), in: world)
        let check = try opened.read { DatabaseChecks.quickCheck($0) }
        try opened.close()
        if let refusal = DatabaseChecks.backupRefusal(check) { throw CLIError(.damaged, "\(backup): \(refusal)") }
        return check
    }

    /// A backup of the database about to be replaced. One that does not open with this
    /// key (rekeyed since, or damaged) is kept as raw bytes instead, so nothing is lost
    /// without a copy; if even that fails, the restore does not happen.
    private func keepCurrentDatabase(_ request: OpenRequest, reporter: Reporter, in world: CommandWorld) throws -> String {
        // The command holds the change lock already.
        if let current = try? MigrationSession.open(request, migrations: world.layer.hostMigrationsOrNone(), in: world) {
            return try current.backup(backup, sparing: [source], in: world)
        }
        do {
            let copy = try backup.writing({ directory, keep, sparing in
                try BackupFiles.write(databaseAt: request.path, into: directory, keep: keep, sparing: sparing) {
                    try BackupFiles.copyBytes(from: request.path, to: $0)
                }
            }, sparing: [source], in: world)
            reporter.warning("The current database does not open with this key; its bytes were kept as they are in \(copy) (open it with the key it had).")
            return copy
        } catch {
            throw CLIError(.backupNotWritten, "The current database could not be backed up before the restore (\(error)); nothing was changed. Pass --no-backup to restore without a safety copy.")
        }
    }
}

/// What `restore --json` prints.
struct RestoreDocument: Encodable {
    let database: String
    @AlwaysPresent var databaseName: String?
    let restoredFrom: String
    /// The copy of the database that was replaced, or null (none, or --no-backup).
    @AlwaysPresent var backup: String?
}

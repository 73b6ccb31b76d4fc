import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

/// Backups written before a command changes a database.
package struct BackupOptions: ParsableArguments {
    @Flag(name: .customLong("no-backup"), help: "Do not write a backup before changing the database.")
    package var skip = false

    @Option(name: .customLong(ProjectSetting.backupDirectory.rawValue), help: ArgumentHelp("Where to write backups (default: beside the database).", valueName: "dir"))
    package var directory: String?

    @Option(name: .customLong("keep-backups"), help: ArgumentHelp("How many backups of the database to keep.", valueName: "n"))
    var keep: Int = BackupFiles.defaultKeepCount

    package init() {}

    package func validate() throws {
        if keep < 1 { throw ValidationError("--keep-backups must be at least 1.") }
    }

    /// Writes a backup with `write`, which is given the folder (nil: beside the
    /// database), the number to keep and the files to spare, creating the backup folder
    /// (0700) if needed. `sparing` names files pruning must keep (the backup being
    /// restored). The run journal of `world` records it.
    package func writing(_ write: (_ directory: String?, _ keep: Int, _ sparing: Set<String>) throws -> String, sparing: Set<String> = [],
                         in world: CommandWorld) throws -> String {
        try writing(in: world) { try write(directory, keep, sparing) }
    }

    private func writing(in world: CommandWorld, _ body: () throws -> String) throws -> String {
        if let directory {
            try Folders.create(directory, purpose: "backup folder", mode: 0o700)
        }
        do {
            let backup = try body()
            world.journal.wroteBackup(backup)
            return backup
        } catch let error as any KindedDatabaseError where error.kind == .fileSystem {
            // Say that it was the backup, and how to go on without it.
            throw CLIError(.backupNotWritten, "The backup could not be written, so nothing was changed: \(String(describing: error)) Free space or fix the folder, choose another with --backup-dir, or pass --no-backup.")
        }
    }
}

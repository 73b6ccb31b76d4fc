import Foundation
import MigrationKitFiles
import MigrationKitKeys

/// A file the user asked a command to write (`--output`).
///
/// An existing file is refused unless `--force`; and even with `--force`, never a file
/// the same command reads — its database (and the database's journals), its key file,
/// a migration file — since one mistyped option must not destroy what the command
/// works from (`schema-dump --output db.key` once replaced the key file it had just read).
package struct OutputFile {
    package let path: String
    let force: Bool

    package init(path: String, force: Bool) {
        self.path = path
        self.force = force
    }

    /// Throws unless writing `path` is safe. `reads` are the files the command reads.
    package func check(against reads: [String]) throws {
        guard FileManager.default.fileExists(atPath: path) || isDanglingLink else { return }
        for read in reads where DurableFile.sameFile(path, read) {
            throw CLIError(.badOptionValue, "--output \(path) is \(Self.describe(read)), which this command reads; give another file.")
        }
        if !force {
            throw CLIError(.fileExists, "--output \(path) already exists; pass --force to replace it, or give another file.")
        }
    }

    private var isDanglingLink: Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    private static func describe(_ path: String) -> String {
        "the same file as \(path)"
    }
}

extension ConnectionOptions {
    /// The files a command with these options reads: the database and its journals, the
    /// key file (as the command's `environment` places a systemd credential), and the
    /// migration files.
    package func filesRead(in environment: ProcessEnvironment) -> [String] {
        var files: [String] = []
        if let dbPath, !dbPath.isEmpty {
            files += [dbPath, dbPath + "-journal", dbPath + "-wal", dbPath + "-shm"]
        }
        files += key.given.keyFiles(in: environment)
        let folder = migrations.directory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".sql") {
            files.append(folder + "/" + name)
        }
        return files
    }
}

import Foundation
import MigrationKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Consistent copies of a database, taken before anything changes it, and restoring one.
///
/// A backup is the database's own encrypted bytes, copied while `BEGIN IMMEDIATE`
/// holds the write lock: no other connection can be mid-commit, so the copy is a
/// committed state, and it opens with the same key and settings, at no extra key
/// derivation. A database in WAL mode keeps recent commits in its -wal file, which a
/// byte copy would miss; those are copied with SQLite's online backup API instead
/// (which costs one key derivation for the new file).
///
/// Backups are named `<db name>.backup-<UTC time to the millisecond>`; only names of
/// exactly that form count as backups (for listing and pruning), so a user's own
/// `app.db.backup-before-upgrade` is never touched.
package enum DatabaseBackup {
    /// How many backups of one database `create` keeps by default.
    package static let defaultKeepCount = BackupFiles.defaultKeepCount

    /// Writes a backup of the writer's database and prunes older ones.
    ///
    /// - Parameters:
    ///   - writer: the open database to copy, with its key; the backup keeps its format.
    ///   - directory: where to put it; nil puts it beside the database.
    ///   - keep: how many backups of this database to keep (the newest); 0 keeps all.
    ///   - sparing: files never pruned, whatever their age (the backup being restored).
    /// - Returns: the backup's path, mode 0600.
    @discardableResult
    package static func create(of writer: SQLCipherWriter, in directory: String? = nil, keep: Int = defaultKeepCount, sparing: Set<String> = []) throws -> String {
        try BackupFiles.write(databaseAt: writer.path, into: directory, keep: keep, sparing: sparing) { temporary in
            try writer.writeWithoutTransaction { db in
                let journalMode = try db.fetchString(sql: "PRAGMA journal_mode")?.lowercased()
                if journalMode == "wal" {
                    // The backup API keeps its copy consistent by itself (and cannot run
                    // inside this connection's own write transaction in WAL mode).
                    try onlineBackup(db, key: writer.key, configuration: writer.configuration, to: temporary)
                } else {
                    try db.inTransaction(.immediate) {
                        try BackupFiles.copyBytes(from: writer.path, to: temporary)
                    }
                }
            }
        }
    }

    /// Writes the committed state of the database `writer` has open to a new file at
    /// `destination`, keyed and in the format it is, without writing to the database: its
    /// bytes under a read transaction (which keeps any writer from committing into the
    /// file meanwhile), or, in WAL mode, SQLite's online backup, which copies what the
    /// `-wal` holds too, into one file.
    package static func copy(of writer: SQLCipherWriter, to destination: String) throws {
        try writer.read { db in
            if try db.fetchString(sql: "PRAGMA journal_mode")?.lowercased() == "wal" {
                try onlineBackup(db, key: writer.key, configuration: writer.configuration, to: destination)
            } else {
                try BackupFiles.copyBytes(from: writer.path, to: destination)
            }
        }
    }

    /// Keeps a database file's raw bytes as a backup, without opening it: for a
    /// database that cannot be opened (a different key, damage) and is about to be
    /// replaced. Whatever it holds can then still be recovered by whoever has its key.
    @discardableResult
    package static func createRawCopy(ofFileAt path: String, in directory: String? = nil, keep: Int = defaultKeepCount, sparing: Set<String> = []) throws -> String {
        try BackupFiles.write(databaseAt: path, into: directory, keep: keep, sparing: sparing) { temporary in
            try BackupFiles.copyBytes(from: path, to: temporary)
        }
    }

    /// The backups of the database named `name` in `folder`, oldest first.
    package static func list(folder: String, name: String) -> [String] {
        BackupFiles.list(folder: folder, name: name)
    }

    /// Throws unless the backup opens with `key` (read-only) and passes `quick_check`:
    /// what `restore` requires before it replaces anything. Returns the check, which may
    /// name what it could not check without what only the app registers.
    @discardableResult
    static func prove(_ backup: String, key: DatabaseKey?, configuration: SQLCipherConfiguration = SQLCipherConfiguration()) throws -> VerificationCheck {
        var proving = configuration
        proving.createIfMissing = false
        proving.readOnly = true
        let database = try SQLCipherOpener.open(path: backup, key: key, configuration: proving)
        defer { database.close() }
        let check = DatabaseChecks.quickCheck(database)
        if let refusal = DatabaseChecks.backupRefusal(check) {
            throw SQLCipherError(kind: .damaged, resultCode: .SQLITE_CORRUPT, message: refusal, path: backup)
        }
        return check
    }

    /// Puts the backup at `backup` in place of the database at `path`.
    ///
    /// In this order, so a failure at any point leaves the database as it was: the
    /// backup is proven (opens with `key`, passes `quick_check`), copied beside the
    /// database, `beforeReplacing` runs (the CLI keeps a safety copy of the current
    /// database there), and the copy is renamed over the database, keeping the
    /// database's owner, group and mode. The backup itself is kept. A symbolic link at
    /// `path` is followed: its target is restored. Another process that has the database
    /// open is waited for, up to the configuration's busy timeout (`DatabaseUsers`).
    static func restore(
        from backup: String,
        to path: String,
        key: DatabaseKey?,
        configuration: SQLCipherConfiguration = SQLCipherConfiguration(),
        beforeReplacing: () throws -> Void = {}
    ) throws {
        try restore(from: backup, to: path, key: key, configuration: configuration, heldLock: nil, beforeReplacing: beforeReplacing)
    }

    /// `restore(from:to:key:configuration:beforeReplacing:)` under the change lock the
    /// caller holds (`heldLock`, a command's), or its own. Returns the backup's proof.
    @discardableResult
    static func restore(from backup: String, to path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration,
                                heldLock: DatabaseFileLock?, beforeReplacing: () throws -> Void) throws -> VerificationCheck {
        let proof = try prove(backup, key: key, configuration: configuration)
        try BackupFiles.putInPlace(backup, of: path, timeout: configuration.busyTimeout, heldLock: heldLock, beforeReplacing: beforeReplacing)
        return proof
    }

    /// SQLite's online backup API into a new file keyed like the source.
    private static func onlineBackup(_ db: SQLCipherDatabase, key: DatabaseKey?, configuration: SQLCipherConfiguration, to destination: String) throws {
        var target = configuration
        target.createIfMissing = true
        target.readOnly = false
        let copy = try SQLCipherOpener.open(path: destination, key: key, configuration: target)
        defer { copy.close() }
        do {
            try db.backup(to: copy)
        } catch {
            FileRemoval.remove(destination)
            throw error
        }
    }
}

import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitSecrets

/// How a command means to use the database.
package enum DatabaseAccess: Sendable {
    /// Change it, creating it when missing (migrate).
    case create
    /// Change an existing database (rollback).
    case change
    /// Only read it (status, verify, schema-dump): opened read-only when the file is
    /// not writable, so inspecting a read-only copy works.
    case inspect
}

/// What a command asks of the database it opens: which file, with which key, how.
package struct DatabaseRequest: Sendable {
    package var path: String
    /// Nil for a plaintext database.
    package var key: DatabaseKey?
    package var access: DatabaseAccess
    /// Open read-only whatever the file allows (a database a check copies and never writes).
    package var readOnly: Bool = false
    /// How long to wait for another process's lock.
    package var lockTimeout: Duration
    /// For a reader: wait out `lockTimeout` for a change in progress instead of giving
    /// way at once and saying who is changing the database (asked for with
    /// `--lock-timeout`).
    package var readerWaits: Bool
    /// The database's own cipher settings, when not a known format's defaults.
    package var cipher: CipherSettings
    /// `--memory-security`, as resolved.
    package var memorySecurity: Bool

    package init(path: String, key: DatabaseKey?, access: DatabaseAccess, lockTimeout: Duration, readerWaits: Bool = false,
                 cipher: CipherSettings = CipherSettings(), memorySecurity: Bool = false) {
        self.path = path
        self.key = key
        self.access = access
        self.lockTimeout = lockTimeout
        self.readerWaits = readerWaits
        self.cipher = cipher
        self.memorySecurity = memorySecurity
    }

    /// Whether the database is new: no file at its path (a link is followed), or one
    /// whose creation was stopped, which the open finishes (`NewDatabaseFile.State`). The
    /// one rule for every part of a command that asks — the key prompt ("New key", asked
    /// twice), lint of every file, the backup, the open. An empty file without the
    /// creation's marker is not a new database: it is someone else's file, which the
    /// open refuses.
    package static func isNew(at path: String) -> Bool {
        switch try? NewDatabaseFile.state(of: path) {
        case .missing?, .unfinished?: true
        default: false
        }
    }

    /// Whether the file is opened read-only: asked to, or only read and not writable.
    package var opensReadOnly: Bool {
        readOnly || (access == .inspect && FileManager.default.fileExists(atPath: path) && !FileManager.default.isWritableFile(atPath: path))
    }
}

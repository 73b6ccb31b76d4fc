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

/// What a command asks of the database it opens: which file, with which key, how; and
/// what was at the path when the command asked, looked at once for every part of the
/// command that asks whether the database is new.
package struct OpenRequest: Sendable {
    package let path: String
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
    /// The app's extensions, loaded into every connection opened for the request
    /// (`--load-extension`).
    package var extensions: [LoadableExtension]
    /// What was at `path` when the command first looked (`NewDatabaseFile.state(of:)`),
    /// or why it could not be examined (a folder, a device), which opening reports.
    let found: Finding
    /// Whether a file was there and not writable when the request was made.
    private let fileIsReadOnly: Bool

    /// What a look at a database's path found.
    package typealias Finding = Result<NewDatabaseFile.State, any Error>

    /// - Parameter found: what the command found at `path` when it first looked (`find(at:)`),
    ///   before it asked for the key; nil looks now.
    package init(path: String, key: DatabaseKey?, access: DatabaseAccess, lockTimeout: Duration, readerWaits: Bool = false,
                 cipher: CipherSettings = CipherSettings(), memorySecurity: Bool = false, extensions: [LoadableExtension] = [],
                 found: Finding? = nil) {
        self.path = path
        self.extensions = extensions
        self.key = key
        self.access = access
        self.lockTimeout = lockTimeout
        self.readerWaits = readerWaits
        self.cipher = cipher
        self.memorySecurity = memorySecurity
        self.found = found ?? Self.find(at: path)
        self.fileIsReadOnly = FileManager.default.fileExists(atPath: path) && !FileManager.default.isWritableFile(atPath: path)
    }

    /// The same request for the file at `path` (a scratch database, a backup to prove).
    func forFile(at path: String) -> OpenRequest {
        var request = OpenRequest(path: path, key: key, access: access, lockTimeout: lockTimeout, readerWaits: readerWaits,
                                  cipher: cipher, memorySecurity: memorySecurity, extensions: extensions)
        request.readOnly = readOnly
        return request
    }

    /// Whether the database is new (`isNew(_:)`), as the command found it.
    package var isNew: Bool { Self.isNew(found) }

    /// What is at `path` now.
    static func find(at path: String) -> Finding {
        Result { try NewDatabaseFile.state(of: path) }
    }

    /// Whether the database is new, from what a look found: no file at its path (a link
    /// is followed), or one whose creation was stopped, which the open finishes
    /// (`NewDatabaseFile.State`). The one rule for every part of a command that asks —
    /// the key prompt ("New key", asked twice), lint of every file, the backup, the
    /// open. An empty file without the creation's marker is not a new database: it is
    /// someone else's file, which the open refuses.
    package static func isNew(_ found: Finding) -> Bool {
        switch found {
        case .success(.missing), .success(.unfinished): true
        default: false
        }
    }

    /// Whether the file is opened read-only: asked to, or only read and not writable.
    package var opensReadOnly: Bool {
        readOnly || (access == .inspect && fileIsReadOnly)
    }
}

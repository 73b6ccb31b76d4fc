import MigrationKit
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock (`flock`) on a database file, held by every command that
/// changes the database across several transactions — migrate, rollback, rekey,
/// encrypt in place, restore — so that they run one after the other. Without it a
/// `rekey` could re-encrypt the file between two steps of a `migrate`, which then fails
/// on its next step with a key that no longer opens the file.
///
/// Readers do not take it, and it does not replace SQLite's own locks (which are POSIX
/// record locks, independent of `flock` on Linux): it only orders the writers. It is
/// re-entrant within a process (the CLI takes it for a whole command, and the library
/// calls the command makes take it again). A file replaced by a rename while waiting is
/// noticed, and the new file locked instead.
package final class DatabaseFileLock: @unchecked Sendable {
    private static let registryLock = NSLock()
    private nonisolated(unsafe) static var held: [FileIdentity: (descriptor: FileDescriptor, count: Int)] = [:]

    private var id: FileIdentity?

    private init(id: FileIdentity?) {
        self.id = id
    }

    /// Waits up to `timeout` for the lock. A file that does not exist yet is not locked
    /// (its creation is serialized by `DirectoryLock`).
    ///
    /// - Throws: `FileOperationError` of kind `.busy` when another process held it longer.
    package static func exclusive(path: String, timeout: Duration) throws -> DatabaseFileLock {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            guard let id = FileIdentity(path: path) else { return DatabaseFileLock(id: nil) }
            if registryLock.withLock({ () -> Bool in
                guard let entry = held[id] else { return false }
                held[id] = (entry.descriptor, entry.count + 1)
                return true
            }) {
                return DatabaseFileLock(id: id)
            }
            // Non-blocking, and regular files only: opening a FIFO would wait for a
            // writer (the opener refuses anything but a regular file anyway).
            guard let descriptor = try? FileProbe.openFile(path, .readOnly, options: [.closeOnExec, .noControllingTerminal, .nonBlocking])
            else { return DatabaseFileLock(id: nil) }
            guard (try? descriptor.stat())?.type == .regular else {
                try? descriptor.close()
                return DatabaseFileLock(id: nil)
            }
            // flock(2): swift-system 1.8.1 has no file locks.
            while flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    // A file system without flock: go on unlocked, as SQLite alone would.
                    try? descriptor.close()
                    return DatabaseFileLock(id: nil)
                }
                do {
                    try Interruption.check()
                } catch {
                    try? descriptor.close()
                    throw error
                }
                guard clock.now < deadline else {
                    try? descriptor.close()
                    throw FileOperationError(kind: .busy, resultCode: .SQLITE_BUSY,
                                         message: "Another process (a migrate, rollback, rekey or restore) kept changing this database for longer than the lock timeout.",
                                         path: path)
                }
                usleep(10_000)
            }
            // Replaced by a rename while waiting: this lock is on the old file.
            guard let status = try? descriptor.stat(), FileIdentity(status) == FileIdentity(path: path) else {
                try? descriptor.close()
                continue
            }
            let lockedID = FileIdentity(status)
            registryLock.withLock { held[lockedID] = (descriptor, 1) }
            return DatabaseFileLock(id: lockedID)
        }
    }

    /// Whether this holds a file's lock: false for a file that did not exist, was not a
    /// regular file, or is on a file system without `flock` (nothing to hold).
    package var locksAFile: Bool { id != nil }

    /// Releases this hold; the lock goes when the process's last hold on the file does.
    package func release() {
        guard let id else { return }
        self.id = nil
        Self.registryLock.withLock {
            guard let entry = Self.held[id] else { return }
            if entry.count > 1 {
                Self.held[id] = (entry.descriptor, entry.count - 1)
            } else {
                Self.held[id] = nil
                flock(entry.descriptor.rawValue, LOCK_UN)
                try? entry.descriptor.close()
            }
        }
    }

    deinit {
        release()
    }
}

/// What the process holding a database's change lock is doing, for a reader that meets
/// it (`status` during a long `migrate`): a small file beside the database, written when
/// a command takes the lock and while it works ("migrate: applying 0003_big, 3 of 5"),
/// removed when it lets go. Only trusted while the process it names holds the change
/// lock (`LockHolder`): a killed run's note says nothing. Mode 0600; never a secret.
package enum ChangeNote {
    package static func path(for database: String) -> String {
        DurableFile.siblingPath(of: DurableFile.resolvingSymlinks(database), purpose: "changing")
    }

    /// Writes (or rewrites) the note; a folder that cannot take it just has none.
    package static func write(_ activity: String, for database: String) {
        let text = "\(getpid())\n\(activity)\n"
        let note = path(for: database)
        guard let descriptor = try? FileProbe.openFile(note, .writeOnly, options: [.create, .truncate, .closeOnExec, .noFollow],
                                                       permissions: .ownerReadWrite)
        else { return }
        _ = try? descriptor.closeAfter { try descriptor.writeAll(text.utf8) }
    }

    package static func remove(for database: String) {
        FileRemoval.remove(path(for: database))
    }

    /// The activity of process `pid` on the database, if its note says.
    package static func activity(of pid: Int32, on database: String) -> String? {
        guard let text = try? String(contentsOfFile: path(for: database), encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, Int32(lines[0]) == pid, !lines[1].isEmpty else { return nil }
        return String(lines[1])
    }
}

private extension FileDescriptor.OpenOptions {
    /// `O_NOCTTY`, which swift-system 1.8.1 does not name: a path that turns out to be a
    /// terminal must not become this process's controlling terminal.
    static var noControllingTerminal: Self { Self(rawValue: O_NOCTTY) }
}

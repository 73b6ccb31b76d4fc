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
/// record locks, independent of `flock` on Linux): it only orders the writers, those of
/// one process too (two threads of an app, two in-process commands). It is taken once
/// per operation: a command that holds it hands it to the library calls it makes
/// (`exclusive(path:timeout:heldBy:)`), which otherwise take it themselves. A file
/// replaced by a rename while waiting is noticed, and the new file locked instead.
package final class DatabaseFileLock: @unchecked Sendable {
    private let state = NSLock()
    /// The locked descriptor, nil once released, and always nil for a hold borrowed
    /// from a caller, which that caller releases.
    private var descriptor: FileDescriptor?
    private let id: FileIdentity?
    /// The caller's lock a borrowed hold stands for.
    private let owner: DatabaseFileLock?

    private init(id: FileIdentity?, descriptor: FileDescriptor?, owner: DatabaseFileLock? = nil) {
        self.id = id
        self.descriptor = descriptor
        self.owner = owner
    }

    /// Waits up to `timeout` for the lock. A file that does not exist yet is not locked
    /// (its creation is serialized by `DirectoryLock`).
    ///
    /// - Throws: `FileOperationError` of kind `.busy` when another holder, in this
    ///   process or another, held it longer.
    package static func exclusive(path: String, timeout: Duration) throws -> DatabaseFileLock {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            guard FileIdentity(path: path) != nil else { return DatabaseFileLock(id: nil, descriptor: nil) }
            // Non-blocking, and regular files only: opening a FIFO would wait for a
            // writer (the opener refuses anything but a regular file anyway).
            guard let descriptor = try? FileProbe.openFile(path, .readOnly, options: [.closeOnExec, .noControllingTerminal, .nonBlocking])
            else { return DatabaseFileLock(id: nil, descriptor: nil) }
            guard (try? descriptor.stat())?.type == .regular else {
                try? descriptor.close()
                return DatabaseFileLock(id: nil, descriptor: nil)
            }
            // flock(2): swift-system 1.8.1 has no file locks.
            while flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    // A file system without flock: go on unlocked, as SQLite alone would.
                    try? descriptor.close()
                    return DatabaseFileLock(id: nil, descriptor: nil)
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
            return DatabaseFileLock(id: FileIdentity(status), descriptor: descriptor)
        }
    }

    /// The lock of `path`: `held` when that is the lock of the same file (what a
    /// command that holds it passes to the library calls it makes), otherwise taken as
    /// `exclusive(path:timeout:)` takes it. Releasing a hold borrowed from `held` leaves
    /// `held` locked.
    package static func exclusive(path: String, timeout: Duration, heldBy held: DatabaseFileLock?) throws -> DatabaseFileLock {
        if let held, held.locks(path) { return DatabaseFileLock(id: held.id, descriptor: nil, owner: held.owner ?? held) }
        return try exclusive(path: path, timeout: timeout)
    }

    /// Whether this holds a file's lock: false for a file that did not exist, was not a
    /// regular file, or is on a file system without `flock` (nothing to hold).
    package var locksAFile: Bool { id != nil }

    /// Whether this holds the lock of the file at `path` now.
    package func locks(_ path: String) -> Bool {
        if let owner { return owner.locks(path) }
        guard let id, state.withLock({ descriptor != nil }) else { return false }
        return FileIdentity(path: path) == id
    }

    /// Releases the lock (once; again does nothing). A hold borrowed from a caller's
    /// lock releases nothing.
    package func release() {
        guard let released = state.withLock({ () -> FileDescriptor? in
            defer { descriptor = nil }
            return descriptor
        }) else { return }
        flock(released.rawValue, LOCK_UN)
        try? released.close()
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

    /// Writes (or rewrites) the note at `note` (`path(for:)`); a folder that cannot take
    /// it just has none.
    package static func write(_ activity: String, at note: String) {
        let text = "\(getpid())\n\(activity)\n"
        guard let descriptor = try? FileProbe.openFile(note, .writeOnly, options: [.create, .truncate, .closeOnExec, .noFollow],
                                                       permissions: .ownerReadWrite)
        else { return }
        _ = try? descriptor.closeAfter { try descriptor.writeAll(text.utf8) }
    }

    /// The activity of process `pid` on the database, if its note says.
    static func activity(of pid: Int32, on database: String) -> String? {
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

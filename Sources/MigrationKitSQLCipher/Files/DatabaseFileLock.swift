import Foundation
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
    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let registryLock = NSLock()
    private nonisolated(unsafe) static var held: [FileID: (descriptor: Int32, count: Int)] = [:]

    private var id: FileID?

    private init(id: FileID?) {
        self.id = id
    }

    /// Waits up to `timeout` for the lock. A file that does not exist yet is not locked
    /// (its creation is serialized by `DirectoryLock`).
    ///
    /// - Throws: `SQLCipherError` of kind `.busy` when another process held it longer.
    package static func exclusive(path: String, timeout: Duration) throws -> DatabaseFileLock {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            guard let id = fileID(path) else { return DatabaseFileLock(id: nil) }
            if registryLock.withLock({ () -> Bool in
                guard let entry = held[id] else { return false }
                held[id] = (entry.descriptor, entry.count + 1)
                return true
            }) {
                return DatabaseFileLock(id: id)
            }
            // Non-blocking, and regular files only: opening a FIFO would wait for a
            // writer (the opener refuses anything but a regular file anyway).
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
            guard descriptor >= 0 else { return DatabaseFileLock(id: nil) }
            var opened = stat()
            guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG else {
                close(descriptor)
                return DatabaseFileLock(id: nil)
            }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    // A file system without flock: go on unlocked, as SQLite alone would.
                    close(descriptor)
                    return DatabaseFileLock(id: nil)
                }
                guard clock.now < deadline else {
                    close(descriptor)
                    throw SQLCipherError(kind: .busy, resultCode: .SQLITE_BUSY,
                                         message: "Another process (a migrate, rollback, rekey or restore) kept changing this database for longer than the lock timeout.",
                                         path: path)
                }
                usleep(10_000)
            }
            // Replaced by a rename while waiting: this lock is on the old file.
            var status = stat()
            guard fstat(descriptor, &status) == 0,
                  FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) == fileID(path)
            else {
                close(descriptor)
                continue
            }
            let lockedID = FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
            registryLock.withLock { held[lockedID] = (descriptor, 1) }
            return DatabaseFileLock(id: lockedID)
        }
    }

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
                flock(entry.descriptor, LOCK_UN)
                close(entry.descriptor)
            }
        }
    }

    deinit {
        release()
    }

    private static func fileID(_ path: String) -> FileID? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

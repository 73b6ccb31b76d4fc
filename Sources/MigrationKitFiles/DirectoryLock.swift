import MigrationKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemPackage

/// An advisory `flock` on a directory, held while a new database file is created and
/// its first page written.
///
/// Why: SQLCipher reads a database's salt from the file when the key is set, and
/// makes up a random one when the file is still empty. Two processes that key the
/// same brand-new file therefore use different salts, and whichever writes second can
/// no longer read the file. Under this lock, creating the file, keying it and writing
/// page 1 happen as one step; anyone else waits and then finds a complete header.
/// Locking the directory (not a sidecar file) leaves nothing behind.
package final class DirectoryLock {
    private var descriptor: FileDescriptor?

    /// Waits up to `timeout` for the lock. Returns nil when the directory cannot be
    /// opened for locking (creation then proceeds unlocked, as plain SQLite would).
    static func acquire(directory: String, timeout: Duration) throws -> DirectoryLock? {
        guard let descriptor = try? FileProbe.openFile(directory, .readOnly, options: [.directory, .closeOnExec]) else { return nil }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        // flock(2): swift-system 1.8.1 has no file locks.
        while flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                try? descriptor.close()
                return nil
            }
            if Interruption.signal != nil {
                try? descriptor.close()
                try Interruption.check()
            }
            guard clock.now < deadline else {
                try? descriptor.close()
                throw FileOperationError(kind: .busy, resultCode: .SQLITE_BUSY,
                                     message: "Another process kept creating this database for longer than the busy timeout.")
            }
            usleep(5_000)
        }
        return DirectoryLock(descriptor: descriptor)
    }

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Releases the lock; also done on `deinit`.
    package func release() {
        guard let descriptor else { return }
        flock(descriptor.rawValue, LOCK_UN)
        try? descriptor.close()
        self.descriptor = nil
    }

    deinit {
        release()
    }

    /// The directory holding `path` ("." for a bare file name).
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }
}

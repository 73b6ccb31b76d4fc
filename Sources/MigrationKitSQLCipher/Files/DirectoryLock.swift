#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An advisory `flock` on a directory, held while a new database file is created and
/// its first page written.
///
/// Why: SQLCipher reads a database's salt from the file when the key is set, and
/// makes up a random one when the file is still empty. Two processes that key the
/// same brand-new file therefore use different salts, and whichever writes second can
/// no longer read the file. Under this lock, creating the file, keying it and writing
/// page 1 happen as one step; anyone else waits and then finds a complete header.
/// Locking the directory (not a sidecar file) leaves nothing behind.
final class DirectoryLock {
    private var descriptor: Int32

    /// Waits up to `timeout` for the lock. Returns nil when the directory cannot be
    /// opened for locking (creation then proceeds unlocked, as plain SQLite would).
    static func acquire(directory: String, timeout: Duration) throws -> DirectoryLock? {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                close(descriptor)
                return nil
            }
            if Interruption.signal != nil {
                close(descriptor)
                try Interruption.check()
            }
            guard clock.now < deadline else {
                close(descriptor)
                throw SQLCipherError(kind: .busy, resultCode: .SQLITE_BUSY,
                                     message: "Another process kept creating this database for longer than the busy timeout.")
            }
            usleep(5_000)
        }
        return DirectoryLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Releases the lock; also done on `deinit`.
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }

    /// The directory holding `path` ("." for a bare file name).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }
}

import MigrationKit
import SystemPackage

/// How a new database file is made, and removed again by the run that made it when that
/// run failed having kept nothing: one way for both connections, which bring only how
/// they open, key and write to a file (`NewDatabaseFile.Connecting`).
///
/// Why: SQLCipher reads a database's salt from the file when the key is first used, and
/// makes up a random one while the file is still empty. Two processes that key the same
/// brand-new file therefore use different salts, and whichever writes second can no
/// longer read the file. Under the directory's lock (`DirectoryLock`) the file is
/// created (0600, `PrivateFile`), keyed and its first page written as one step; anyone
/// else waits, then finds a complete header. A hidden marker (`marker(for:)`) exists from
/// before the file until its first page is committed: an empty file beside it was left
/// by a creation that was stopped, and the next creator finishes it; an empty file
/// without it is someone else's and is left alone.
package enum NewDatabaseFile {
    /// What a connection does to a file being created.
    package struct Connecting<Connection> {
        /// Opens and keys the file as it is now, empty or complete.
        package var open: () throws -> Connection
        /// Whether the opened file has a page (`PRAGMA page_count` above 0).
        package var hasPages: (Connection) throws -> Bool
        /// Writes the first page (any write transaction), which fixes the salt in the file.
        package var writeFirstPage: (Connection) throws -> Void
        /// Closes a connection the creation gives up on.
        var close: (Connection) -> Void

        package init(open: @escaping () throws -> Connection, hasPages: @escaping (Connection) throws -> Bool,
                     writeFirstPage: @escaping (Connection) throws -> Void, close: @escaping (Connection) -> Void) {
            self.open = open
            self.hasPages = hasPages
            self.writeFirstPage = writeFirstPage
            self.close = close
        }
    }

    /// What is at a database's path, as creating it sees it.
    package enum State: Equatable {
        /// No file: a creator makes one.
        case missing
        /// A file with content and no marker: a database, opened as it is.
        case existing
        /// A file (or none) with the marker beside it: a creation that was stopped, which
        /// a creator finishes and anyone else refuses.
        case unfinished
        /// An empty file without the marker: someone else's, never keyed nor removed.
        case emptyForeign
    }

    /// The state of `path`. Throws `FileOperationError` (`.cannotOpen`) for a folder, a
    /// device, a FIFO or a socket, and for a path that cannot be examined.
    package static func state(of path: String) throws -> State {
        let probe = FileProbe(path: path)
        try naming(path) { try refuseNonFiles(probe) }
        if FileProbe(path: marker(for: path)).kind == .regularFile { return .unfinished }
        if probe.kind == .missing { return .missing }
        return probe.size > 0 ? .existing : .emptyForeign
    }

    /// Opens the database at `path`, creating it first when it is missing or its creation
    /// was stopped: under the directory's lock, waiting up to `timeout` for another
    /// creator. A file another process completed meanwhile is opened as it is.
    ///
    /// - Returns: the connection, and whether this call created the file (only such a
    ///   file may be discarded again, `discard(at:timeout:whileKeptNothing:)`).
    package static func create<Connection>(at path: String, timeout: Duration,
                                           _ connecting: Connecting<Connection>) throws -> (connection: Connection, created: Bool) {
        try naming(path) { try create(path, timeout, connecting) }
    }

    private static func create<Connection>(_ path: String, _ timeout: Duration,
                                           _ connecting: Connecting<Connection>) throws -> (connection: Connection, created: Bool) {
        let lock = try DirectoryLock.acquire(directory: DirectoryLock.parent(of: path), timeout: timeout)
        defer { lock?.release() }
        let marker = marker(for: path)
        let probe = FileProbe(path: path)
        try refuseNonFiles(probe)
        var createdFile = false
        if probe.kind == .regularFile, probe.size > 0 {
            // Complete, or with an interrupted first transaction: opening rolls a hot
            // journal back, which may leave the file empty again.
            let connection = try connecting.open()
            let hasPages: Bool
            do { hasPages = try connecting.hasPages(connection) } catch { connecting.close(connection); throw error }
            if hasPages || FileProbe(path: marker).kind == .missing {
                FileRemoval.remove(marker)
                return (connection, false)
            }
            connecting.close(connection)
        } else if probe.kind == .regularFile {
            guard FileProbe(path: marker).kind == .regularFile else { throw emptyFileError() }
        } else {
            if let failure = FileProbe.createPrivateFile(at: marker), failure != .fileExists {
                throw cannotCreate(failure)
            }
            if let failure = FileProbe.createPrivateFile(at: path) {
                FileRemoval.remove(marker)
                throw cannotCreate(failure)
            }
            createdFile = true
        }
        // An empty file, marked as being created, and this process holds the lock.
        do {
            let connection = try connecting.open()
            do { try connecting.writeFirstPage(connection) } catch { connecting.close(connection); throw error }
            FileRemoval.remove(marker)
            return (connection, createdFile)
        } catch {
            if createdFile { FileRemoval.remove(files(of: path) + [marker]) }
            throw error
        }
    }

    /// Opens a file whose state is `.unfinished` or `.emptyForeign`, for a caller that may
    /// not create: judged again under the directory's lock, since a creator may have been
    /// finishing it between the two looks. A creation stopped after its first page was
    /// committed (the marker still there) is complete. Its marker goes when `writing`;
    /// a look (status, verify) never writes, so the next open that may write removes it.
    package static func openWithoutCreating<Connection>(at path: String, timeout: Duration, writing: Bool,
                                                        _ connecting: Connecting<Connection>) throws -> Connection {
        try naming(path) { try openWithoutCreating(path, timeout, writing, connecting) }
    }

    private static func openWithoutCreating<Connection>(_ path: String, _ timeout: Duration, _ writing: Bool,
                                                        _ connecting: Connecting<Connection>) throws -> Connection {
        let lock = try DirectoryLock.acquire(directory: DirectoryLock.parent(of: path), timeout: timeout)
        defer { lock?.release() }
        let probe = FileProbe(path: path)
        let marker = marker(for: path)
        let incomplete = FileOperationError(
            kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
            message: "The database was never completely created (the process creating it was interrupted); run migrate to finish creating it.")
        try refuseNonFiles(probe)
        guard probe.kind == .regularFile else {
            if FileProbe(path: marker).kind == .regularFile { throw incomplete }
            throw FileOperationError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                                     message: "No database exists at this path; check the path.")
        }
        guard probe.size > 0 else {
            throw FileProbe(path: marker).kind == .regularFile ? incomplete : emptyFileError()
        }
        let connection = try connecting.open()
        if FileProbe(path: marker).kind == .regularFile {
            let hasPages: Bool
            do { hasPages = try connecting.hasPages(connection) } catch { connecting.close(connection); throw error }
            guard hasPages else { connecting.close(connection); throw incomplete }
            if writing { FileRemoval.remove(marker) }
        }
        return connection
    }

    /// Removes a database file a failed run created, when `keptNothing` says nothing was
    /// kept in it by anyone. `keptNothing` runs under the directory's lock creators take;
    /// it must hold the database's write lock alone (an EXCLUSIVE transaction), judge with
    /// `MigrationBookkeeping.keptNothing(in:)`, and call `removeFiles` while it holds it.
    /// A cleanup: it runs even while the process is being stopped (Ctrl-C during the first
    /// migration of a new database must not leave an empty file behind).
    ///
    /// - Returns: whether the file was removed.
    package static func discard(at path: String, timeout: Duration,
                                whileKeptNothing keptNothing: (_ removeFiles: () -> Bool) throws -> Bool) -> Bool {
        Interruption.unstoppable {
            // A creator holding the lock past the timeout: the file is left as it is. A
            // folder that cannot be opened for locking (nil) is discarded from unlocked,
            // as it was created.
            let lock: DirectoryLock?
            do { lock = try DirectoryLock.acquire(directory: DirectoryLock.parent(of: path), timeout: timeout) } catch { return false }
            defer { lock?.release() }
            return (try? keptNothing { removeFiles(of: path) }) ?? false
        }
    }

    /// The hidden file that exists while a database is being created.
    package static func marker(for path: String) -> String {
        DurableFile.siblingPath(of: path, purpose: "creating")
    }

    /// Removes the database file and the journals beside it; true when the file went.
    private static func removeFiles(of path: String) -> Bool {
        guard FileRemoval.remove(path) else { return false }
        FileRemoval.remove(Array(files(of: path).dropFirst()))
        return true
    }

    /// A database file and the journals SQLite may have made beside it.
    private static func files(of path: String) -> [String] {
        [path, path + "-journal", path + "-wal", path + "-shm"]
    }

    /// The refusals made here name the file (a connection's own errors pass as they are).
    private static func naming<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as FileOperationError where error.path == nil && (error.kind == .cannotOpen || error.kind == .notADatabase) {
            throw FileOperationError(kind: error.kind, resultCode: error.resultCode, message: error.message, path: path)
        }
    }

    private static func refuseNonFiles(_ probe: FileProbe) throws {
        switch probe.kind {
        case .regularFile:
            return
        case .directory:
            throw FileOperationError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                                     message: "This is a directory, not a database file; give the path of the database file itself.")
        case .other:
            throw FileOperationError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                                     message: "This is not a regular file (a device, FIFO or socket); give the path of a database file.")
        case .missing:
            guard probe.failure == .noSuchFileOrDirectory else {
                throw FileOperationError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                                         message: "The file cannot be examined (\(probe.failure ?? .ioError)).")
            }
        }
    }

    private static func cannotCreate(_ failure: Errno) -> FileOperationError {
        FileOperationError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                           message: "The database file cannot be created (\(failure)); check that its directory exists and is writable.")
    }

    /// SQLite would silently turn an empty file into a new database. MigrationKit never
    /// leaves an empty database file behind itself, so an empty file is someone else's,
    /// and is left alone.
    private static func emptyFileError() -> FileOperationError {
        FileOperationError(kind: .notADatabase, resultCode: .SQLITE_NOTADB,
                           message: "The file is empty (0 bytes), so it is not a database; delete it to let a new database be created at this path.")
    }
}

import Foundation
import MigrationKit

/// The one connection to an encrypted database that migrations go through.
///
/// It opens (creating the file with mode 0600 if asked), keys, proves the key, sets the
/// busy timeout, and then serializes every access: `write`, `writeWithoutTransaction`
/// and `read` run one at a time, from any thread, which is what makes the writer
/// `Sendable` while the `SQLCipherDatabase` it lends stays confined to one closure.
/// The key is derived once, when the writer opens; keep one writer per command.
public final class SQLCipherWriter: @unchecked Sendable {
    /// The options a writer opens its database with.
    public typealias Configuration = SQLCipherConfiguration

    /// The database file, as given when the writer opened; errors thrown through the
    /// writer name it.
    public let path: String
    /// The configuration the database was opened with, its cipher settings made exact:
    /// when none were given and the file is in another known format than the linked
    /// library's (a SQLCipher 3 file on SQLCipher 4), they name that format, so every
    /// connection opened from this configuration keeps it.
    let configuration: Configuration
    /// Kept (in wiped storage) for operations that need the same key again, such as a
    /// backup or a scratch database encrypted alike. Never printed.
    let key: DatabaseKey?

    private let database: SQLCipherDatabase
    private let lock = NSLock()
    /// The thread inside a closure, to refuse re-entrant calls instead of deadlocking.
    private var ownerThread: pthread_t?
    private let ownerLock = NSLock()

    /// Opens the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file; created with mode 0600 when it does not exist,
    ///     unless `configuration.createIfMissing` is false.
    ///   - key: the database key, or nil for a plaintext database.
    ///   - configuration: cipher settings, busy timeout and the other connection options.
    /// - Throws: `SQLCipherError` of kind `.wrongKey`, `.notEncrypted`, `.keyRequired`,
    ///   `.notADatabase`, `.cannotOpen`, `.invalidKey` or `.unsupportedCipherSetting`;
    ///   the file is never modified when opening fails.
    public init(path: String, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.key = key
        let database = try SQLCipherOpener.open(path: path, key: key, configuration: configuration)
        var exact = configuration
        exact.cipher = database.cipherSettings
        self.configuration = exact
        self.database = database
    }

    /// Removes the database file this writer created, for a command that then failed
    /// before anything was kept in it: the next run starts clean instead of meeting a
    /// file it did not expect (an empty database, or one made with settings that turned
    /// out wrong).
    ///
    /// Only while nothing was kept in it, by anyone (`NewDatabaseFile.discard`): under
    /// the directory lock creators take, inside an EXCLUSIVE transaction (no other
    /// connection is reading or writing at that moment), and only if
    /// `MigrationBookkeeping.keptNothing(in:)`. (`PRAGMA data_version` cannot tell
    /// another process's commits from this connection's own rollbacks, which change it
    /// too.) A process that opened the file and has not used it yet then fails on its
    /// first write, and its next run starts clean as well.
    ///
    /// - Returns: whether the file was removed. The writer must not be used afterwards.
    @discardableResult
    package func discardCreatedDatabase() -> Bool {
        guard database.createdFile else { return false }
        let removed = NewDatabaseFile.discard(at: path, timeout: configuration.busyTimeout) { removeFiles in
            try serialized { db -> Bool in
                try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
                defer { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                return try MigrationBookkeeping.keptNothing(in: db) && removeFiles()
            }
        }
        if removed { database.createdFile = false }
        return removed
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: committed when it returns,
    /// rolled back when it throws. IMMEDIATE takes the write lock up front, so two
    /// processes never both read, decide and then collide on write.
    public func write<T>(_ body: (SQLCipherDatabase) throws -> T) throws -> T {
        try serialized { db in
            try db.inTransaction(.immediate) { try body(db) }
        }
    }

    /// Runs `body` with no transaction around it, for work that manages its own
    /// (the migration runner, which must switch foreign keys outside a transaction).
    public func writeWithoutTransaction<T>(_ body: (SQLCipherDatabase) throws -> T) throws -> T {
        try serialized(body)
    }

    /// Runs `body` in a deferred transaction with `PRAGMA query_only` on, so it sees a
    /// consistent snapshot and cannot write.
    public func read<T>(_ body: (SQLCipherDatabase) throws -> T) throws -> T {
        try serialized { db in
            try db.execute(sql: "PRAGMA query_only = 1")
            // A read-only writer's connection stays query-only (see SQLCipherOpener).
            defer { if !configuration.readOnly { Interruption.unstoppable { try? db.execute(sql: "PRAGMA query_only = 0") } } }
            return try db.inTransaction(.deferred) { try body(db) }
        }
    }

    /// Closes the connection now, as GRDB's `DatabaseQueue.close()` does, rather than
    /// when the writer is released: a command that is done with a database lets go of
    /// the file at once. Every later call throws (`SQLCipherError.Kind.misuse`), and so
    /// does closing from inside one of the writer's own closures.
    public func close() throws {
        try serialized { $0.close() }
    }

    private func serialized<T>(_ body: (SQLCipherDatabase) throws -> T) throws -> T {
        let current = pthread_self()
        let reentrant = ownerLock.withLock { ownerThread.map { pthread_equal($0, current) != 0 } ?? false }
        if reentrant {
            throw SQLCipherError(kind: .misuse, resultCode: .SQLITE_MISUSE,
                                 message: "SQLCipherWriter is not reentrant: use the database passed to the enclosing closure.")
        }
        lock.lock()
        ownerLock.withLock { ownerThread = current }
        defer {
            ownerLock.withLock { ownerThread = nil }
            lock.unlock()
        }
        do {
            return try body(database)
        } catch let error as SQLCipherError where error.path == nil {
            throw error.at(path: path)
        }
    }
}

/// SQLite's transaction kinds.
public enum TransactionKind: String, Sendable {
    /// Takes no lock until the first statement reads or writes; `read` uses it.
    case deferred = "DEFERRED"
    /// Takes the write lock at once, so no other connection can start writing;
    /// `write` uses it.
    case immediate = "IMMEDIATE"
    /// Takes the write lock at once and, outside WAL mode, also keeps other
    /// connections from reading until it ends.
    case exclusive = "EXCLUSIVE"
}

extension SQLCipherDatabase {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it
    /// throws (or when the commit itself fails, e.g. on a full disk).
    public func inTransaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try inTransaction(kind) { .commit(try body()) }
    }

    /// Runs `body` in a transaction ended as it says: committed, or rolled back with
    /// nothing thrown; rolled back, too, when it throws or when the commit fails.
    package func inTransaction<T>(_ kind: TransactionKind, _ body: () throws -> TransactionEnd<T>) throws -> T {
        try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION", arguments: [])
        do {
            switch try body() {
            case .commit(let result):
                try execute(sql: "COMMIT TRANSACTION", arguments: [])
                return result
            case .rollBack(let result):
                rollbackIfNeeded()
                return result
            }
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Rolls back the open transaction, if SQLite has not already done so (it does
    /// after some errors, such as SQLITE_FULL), then drops the pages this connection
    /// keeps in memory.
    ///
    /// SQLCipher restores each page from the journal's encrypted image and
    /// re-initialises the pages still in use, page 1 among them, *before* decrypting
    /// them; about once in 6,000 rollbacks on SQLCipher 4 that ciphertext passes for a
    /// b-tree page, and the connection would go on reading sqlite_master through it.
    /// Usually the next transaction finds the file changed and drops the cache anyway,
    /// but not when the rolled-back transaction had already written pages to the file,
    /// so the pages are dropped here, once per rollback, and read again when needed.
    func rollbackIfNeeded() {
        // Cleanup: it runs to the end even when the process is being stopped.
        Interruption.unstoppable {
            if isInsideTransaction { try? execute(sql: "ROLLBACK TRANSACTION") }
            releaseCachedPages()
            restoreAfterIOError()
            removeDeadJournal()
        }
    }

    /// SQLCipher 4 stops its codec at a page that fails its HMAC (a damaged file), and a
    /// transaction rolled back after that leaves its journal behind with the header
    /// zeroed: not hot, so SQLite never replays it (the database is as it was), but a
    /// file the user did not have. SQLite itself only removes such a journal at the next
    /// commit. It is removed here under a RESERVED lock, which no other writer can hold
    /// at the same time, so it cannot be another connection's live journal.
    private func removeDeadJournal() {
        let journal = path + "-journal"
        guard path != ":memory:", !path.isEmpty, Self.hasZeroedHeader(journal) else { return }
        guard (try? execute(sql: "BEGIN IMMEDIATE TRANSACTION")) != nil else { return }
        defer { try? execute(sql: "ROLLBACK TRANSACTION") }
        if Self.hasZeroedHeader(journal) { FileRemoval.remove(journal) }
    }

    /// Whether a journal exists whose magic number (its first 8 bytes) is zeroed: what
    /// SQLite leaves of a finished transaction, and never replays (it calls a journal
    /// hot only when its first byte is not zero).
    private static func hasZeroedHeader(_ journal: String) -> Bool {
        let magic = FileProbe(path: journal).header(count: 8)
        return magic.count == 8 && magic.allSatisfy { $0 == 0 }
    }

    /// After an I/O error inside a write (SQLITE_FULL when the disk fills up while
    /// pages spill to the file, SQLITE_IOERR), SQLite's pager stops in its error state:
    /// its ROLLBACK does not undo what was already written to the database file, it
    /// leaves that to whoever next reads, through the hot journal. Closing the
    /// connection then would leave the file grown and changed, and a `-journal` beside
    /// it, until the next open. One read replays the journal at once (SQLite restores
    /// the original pages, truncates the file and deletes the journal), so a failed
    /// transaction leaves the database byte for byte as it was. After any other error
    /// the read finds nothing to do and costs one cached page.
    private func restoreAfterIOError() {
        _ = try? fetchInt(sql: "SELECT count(*) FROM sqlite_master")
    }
}

import Foundation
import GRDB
import MigrationKit
import MigrationKitFiles
import MigrationKitSecrets

/// Opens a GRDB app's database file as MigrationKit opens its own: a missing file is
/// created readable and writable by its owner only (0600; GRDB, like SQLite, would
/// follow the umask, and journals take the database's mode), and a file that does not
/// open throws `UnreadableDatabaseError` with the sentence the SQLCipher connection
/// says (`catch DatabaseErrorKind.wrongKey` works on both), not SQLite's "file is not
/// a database".
///
/// ```swift
/// let dbQueue = try GRDBDatabaseFile.openQueue(path: path)
/// try GRDBMigrationRunner(steps: steps).migrate(in: dbQueue)
/// ```
///
/// When GRDB is built on SQLCipher, `key:` opens an encrypted file in the SQLCipher
/// format it is in (an older app's SQLCipher 3 file stays in its format), and a new
/// file is made in SQLCipher 4's. The key is added to `configuration`'s preparations,
/// which GRDB runs in the order they were added: with a key, pass a configuration
/// whose own preparations do not read the database (or key it yourself with
/// `Configuration.useKey` first, and pass no key here). On GRDB over the system's
/// SQLite, a key is refused: that SQLite cannot decrypt.
public enum GRDBDatabaseFile {
    /// A `DatabaseQueue` on `path`, created if missing; keyed with `key` when given.
    public static func openQueue(path: String, key: DatabaseKey? = nil, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try open(path: path, key: key, configuration: configuration) { try DatabaseQueue(path: $0, configuration: $1) }
    }

    /// A `DatabasePool` (WAL) on `path`, created if missing; keyed with `key` when given.
    public static func openPool(path: String, key: DatabaseKey? = nil, configuration: Configuration = Configuration()) throws -> DatabasePool {
        try open(path: path, key: key, configuration: configuration) { try DatabasePool(path: $0, configuration: $1) }
    }

    /// Opens the file as it is, keying the configuration in the file's format, and
    /// turning "file is not a database" into `UnreadableDatabaseError`; a missing file
    /// (or one whose creation was stopped) is created first, as the SQLCipher
    /// connection creates one (`NewDatabaseFile`): 0600, keyed and its first page
    /// written under the folder's lock, and removed again when that fails.
    static func open<Writer: DatabaseWriter>(path: String, key: DatabaseKey?, configuration: Configuration,
                                            _ makeWriter: @escaping (String, Configuration) throws -> Writer) throws -> Writer {
        #if !canImport(SQLCipher)
        if key != nil {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "A key was given for \(path), but GRDB here is built on the system's SQLite, which cannot encrypt; build it on SQLCipher (scripts/grdb-sqlcipher.sh), or open the file without a key.")
        }
        #endif
        let connecting = NewDatabaseFile.Connecting(
            open: { try openAsItIs(path: path, key: key, configuration: configuration, makeWriter) },
            hasPages: { try hasPages($0) }, writeFirstPage: { try writeFirstPage($0) }, close: { try? $0.close() })
        return try asDatabaseError(path) {
            let state = try NewDatabaseFile.state(of: path)
            if state == .existing { return try connecting.open() }
            if state != .emptyForeign, !configuration.readonly {
                return try NewDatabaseFile.create(at: path, timeout: creationWait(configuration), connecting).connection
            }
            return try NewDatabaseFile.openWithoutCreating(at: path, timeout: creationWait(configuration), writing: !configuration.readonly, connecting)
        }
    }

    /// The file at `path` opened as it is: in the format `key` reads it in, or without a key.
    private static func openAsItIs<Writer>(path: String, key: DatabaseKey?, configuration: Configuration,
                                           _ makeWriter: (String, Configuration) throws -> Writer) throws -> Writer {
        #if canImport(SQLCipher)
        if let key {
            return try openFinding(path: path, key: key, formats: candidateFormats(path)) { format in
                var keyed = configuration
                keyed.useKey(key, format: format)
                return try makeWriter(path, keyed)
            }.writer
        }
        #endif
        do {
            return try makeWriter(path, configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw UnreadableDatabaseError(path: path, keyed: key != nil, triedFormats: nil)
        }
    }

    /// Copies the committed state `writer` holds into `destination`, an empty file the
    /// caller created (mode 0600), opened with `configuration` so that the copy is keyed and
    /// in the format the database is: SQLite's online backup, consistent whatever the
    /// journal mode, without writing to the database.
    package static func backUp(_ writer: any DatabaseWriter, configuration: Configuration, into destination: String) throws {
        var configuration = configuration
        configuration.readonly = false
        let copy = try DatabaseQueue(path: destination, configuration: configuration)
        try writer.backup(to: copy)
        try copy.close()
    }

    /// Whether the writer's file has a page (`NewDatabaseFile.Connecting.hasPages`): asked
    /// on the writer's own connection, which is keyed already (a pool's reader would derive
    /// the key once more).
    package static func hasPages(_ writer: any DatabaseWriter) throws -> Bool {
        try writer.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 } > 0
    }

    /// Writes a new file's first page, and into the file itself for a WAL database, whose
    /// writes stay in the `-wal` until a checkpoint: another process keying the file reads
    /// its salt from the file's first bytes.
    package static func writeFirstPage(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA user_version = 0")
            try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    /// How long to wait for another process creating the same file: its busy timeout,
    /// and at least the few seconds a creation (a key derivation and one write) can take
    /// on a slow machine, whatever the busy mode, which is about the app's own waits.
    static func creationWait(_ configuration: Configuration) -> Duration {
        if case .timeout(let seconds) = configuration.busyMode, seconds > 5 { return .milliseconds(Int64(seconds * 1000)) }
        return .seconds(5)
    }

    /// The creation's refusals (`NewDatabaseFile`) as GRDB's errors, as GRDB's open
    /// would throw them; waiting too long for another creator stays `.busy`.
    private static func asDatabaseError<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileOperationError where error.kind == .cannotOpen || error.kind == .notADatabase {
            throw DatabaseError(resultCode: ResultCode(rawValue: error.resultCode.rawValue),
                                message: "\(path): \(error.message)")
        }
    }

    #if canImport(SQLCipher)
    /// The formats an existing encrypted file at `path` may be in, to open it in with a
    /// key: those the linked SQLCipher reads, its own first, whose page size the file's
    /// size allows; SQLCipher 4's for an empty file (made and never written). A plaintext
    /// SQLite file throws `UnreadableDatabaseError`: it opens without a key.
    package static func candidateFormats(_ path: String) throws -> [CipherFormat] {
        let file = DatabaseFileHeader(path: path)
        if file.size == 0 { return [.sqlcipher4] }
        if file.isPlaintextSQLiteDatabase { throw UnreadableDatabaseError(path: path, keyed: true, triedFormats: nil) }
        return try GRDBCipherFormat.readableFormats().filter { file.size % Int64($0.pageSize ?? 1) == 0 }
    }

    /// Opens the file at `path` in the first of `formats` that `key` reads, each tried
    /// by opening the writer itself (`open`), as the app opens it: read-write unless its
    /// configuration says otherwise, so that a transaction a crash left behind is
    /// rolled back as SQLite rolls it back on any open, and waiting for another process's
    /// lock as the app's busy mode says. The key is derived once for a file in the
    /// linked SQLCipher's own format (once more per older format tried), and by a
    /// separate probe only for a format without page HMACs (`Database.useKey`). Throws
    /// `UnreadableDatabaseError` when the key reads it in none.
    package static func openFinding<Writer>(path: String, key: DatabaseKey, formats: [CipherFormat],
                                           _ open: (CipherFormat) throws -> Writer) throws -> (writer: Writer, format: CipherFormat) {
        for format in formats {
            do {
                return (try open(format), format)
            } catch let error as UnreadableDatabaseError where error.kind == .wrongKey || error.kind == .notADatabase {
                continue
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                continue
            }
        }
        throw UnreadableDatabaseError(path: path, keyed: true, triedFormats: formats)
    }
    #endif
}


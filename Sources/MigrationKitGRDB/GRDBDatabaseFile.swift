import Foundation
import GRDB
import MigrationKit
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

    /// Creates the file when missing, keys the configuration in the file's format, and
    /// turns "file is not a database" into `UnreadableDatabaseError`. A file this call
    /// created is removed again when the open fails.
    static func open<Writer>(path: String, key: DatabaseKey?, configuration: Configuration,
                             _ makeWriter: (String, Configuration) throws -> Writer) throws -> Writer {
        #if !canImport(SQLCipher)
        if key != nil {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "A key was given for \(path), but GRDB here is built on the system's SQLite, which cannot encrypt; build it on SQLCipher (scripts/grdb-sqlcipher.sh), or open the file without a key.")
        }
        #endif
        let created = try createIfMissing(path, readOnly: configuration.readonly)
        do {
            #if canImport(SQLCipher)
            if let key {
                return try openFinding(path: path, key: key, formats: created ? [.sqlcipher4] : candidateFormats(path)) { format in
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
        } catch {
            if created { removeFiles(of: path) }
            throw error
        }
    }

    /// Creates an empty 0600 file at `path` when there is none (and the writer may
    /// create one). True when this call created it.
    static func createIfMissing(_ path: String, readOnly: Bool) throws -> Bool {
        guard !readOnly, !FileManager.default.fileExists(atPath: path) else { return false }
        if let failure = PrivateFile.create(at: path) {
            if failure == EEXIST { return false }  // another process made it meanwhile
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN,
                                message: "\(path) cannot be created (\(String(cString: strerror(failure)))); check the folder and its permissions.")
        }
        return true
    }

    /// Removes a database file and its journals.
    package static func removeFiles(of path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
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


#if canImport(SQLCipher)
// Only when GRDB is built on SQLCipher (scripts/grdb-sqlcipher.sh): its `SQLCipher` module
// is then in the build, and GRDB has `usePassphrase`.
import Foundation
import GRDB
import MigrationKit
import MigrationKitSecrets
import SQLCipher

extension Database {
    /// Keys this connection with `key`, as `migrationkit` keys its own: a passphrase
    /// goes through SQLCipher's key derivation, a raw key as `x'<hex digits>'` of its form
    /// (one this SQLCipher would read as a passphrase is refused). Call it
    /// first thing on a new connection (`Configuration.useKey(_:format:)` does).
    ///
    /// The bytes reach `sqlite3_key` from the key's wiped, locked storage: GRDB's
    /// `usePassphrase(_: Data)` is handed a `Data` that borrows them, never a copy and
    /// never a `String`.
    /// - Parameters:
    ///   - key: the database key: a passphrase, or a raw key.
    ///   - format: the file's format. SQLCipher 4's own by default; an older app's file
    ///     (`GRDBCipherFormat.detect` tells) opens in its own format through
    ///     `PRAGMA cipher_compatibility`, and stays in it: nothing here rewrites a file.
    /// - Throws: `UnreadableDatabaseError` when the key does not read the file;
    ///   `DatabaseError` (`SQLITE_MISUSE`) for a key it cannot use, such as `x'` and 160
    ///   hex digits on a SQLCipher before 4.7.0.
    public func useKey(_ key: DatabaseKey, format: CipherFormat = .sqlcipher4) throws {
        SQLCipherLog.silenced
        // A raw key in a form this SQLCipher would read as a passphrase keys nothing.
        if let form = key.rawKeyForm, SQLCipherFeature.neededForRawKey(hexDigits: form.hexDigits) != nil,
           let refusal = SQLCipherFeature.rawKeyRefusal(hexDigits: form.hexDigits, library: try GRDBCipherFormat.linkedVersion()) {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "The key is \(refusal).")
        }
        try key.withKeyText { text in
            guard let base = text.baseAddress, text.count > 0 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "The database key is empty.")
            }
            let borrowed = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: text.count, deallocator: .none)
            try usePassphrase(borrowed)
        }
        switch format {
        case .sqlcipher4:
            break
        case .sqlcipher3, .sqlcipher2, .sqlcipher1:
            try execute(sql: "PRAGMA cipher_compatibility = \(format.version ?? 4)")
        case .custom, .plaintext:
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "A key opens SQLCipher's own formats only (\(format) is not one); for custom settings, run their PRAGMAs after usePassphrase.")
        }
        // The key is proven here, before GRDB's own first read, so that a wrong key (or a
        // file that is no database) throws the sentence the SQLCipher connection says, as
        // an `UnreadableDatabaseError`, not SQLite's "file is not a database". A format
        // without page HMACs proves the header first on a connection that makes nothing
        // beside the file (`GRDBDatabaseFile.headerDecrypts`).
        if !format.authenticatesPages, !fileName.isEmpty,
           !GRDBDatabaseFile.headerDecrypts(path: fileName, key: key, format: format) {
            throw UnreadableDatabaseError(path: fileName, keyed: true, triedFormats: [format])
        }
        do {
            _ = try Int.fetchOne(self, sql: "SELECT count(*) FROM sqlite_master")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw UnreadableDatabaseError(path: fileName, keyed: true, triedFormats: [format])
        }
    }
}

extension GRDBDatabaseFile {
    /// Whether `key` in `format`'s defaults decrypts the file's header, read on a bare
    /// connection opened immutable (`SQLiteFileURI.immutable`): false only when SQLite
    /// finds no database header there. Asked by `Database.useKey` before a connection
    /// reads a file in a format without page HMACs: there a wrong key decrypts page 1
    /// into noise, one noise in 256 marks the file as WAL, and the connection would make
    /// a `-wal` and `-shm` beside the database that it cannot remove while another
    /// connection has the database open. Costs the right key a second derivation, on
    /// such files only.
    static func headerDecrypts(path: String, key: DatabaseKey, format: CipherFormat) -> Bool {
        SQLCipherLog.silenced
        var handle: OpaquePointer?
        guard sqlite3_open_v2(SQLiteFileURI.immutable(path), &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            return true
        }
        defer { sqlite3_close_v2(handle) }
        let keyed = key.withKeyText { text in
            sqlite3_key(handle, text.baseAddress, Int32(text.count)) == SQLITE_OK
        }
        guard keyed, sqlite3_exec(handle, "PRAGMA cipher_compatibility = \(format.version ?? 4)", nil, nil, nil) == SQLITE_OK else { return true }
        return sqlite3_exec(handle, "SELECT count(*) FROM sqlite_master", nil, nil, nil) & 0xff != SQLITE_NOTADB
    }
}

extension Database {
    /// The main database's file (GRDB keeps its `path` internal).
    var fileName: String {
        sqlite3_db_filename(sqliteConnection, "main").map { String(cString: $0) } ?? ""
    }
}

/// SQLCipher 4.5.1+ logs to standard error by default (timestamped `ERROR CORE` lines on
/// every wrong key, and format detection tries keys that fail by design). Its
/// destination is pointed at /dev/null once per process, before the first key, as the
/// SQLCipher connection does: keying resets the log's level, never its destination.
/// Failures reach the app as errors instead. (Older SQLCipher ignores the pragma.)
enum SQLCipherLog {
    static let silenced: Void = {
        _ = try? DatabaseQueue().inDatabase { try $0.execute(sql: "PRAGMA cipher_log = '/dev/null'") }
    }()
}

/// Which SQLCipher format a file is in, found the way `migrationkit` finds it: each
/// known format tried with the key, on a connection of its own.
public enum GRDBCipherFormat {
    /// The file's format: `.plaintext` for an unencrypted SQLite file, the first of the
    /// formats the linked SQLCipher reads (its own, then the older ones) whose defaults
    /// read it with `key`, or nil when none does (a wrong key, custom settings, or not a
    /// database).
    ///
    /// The file is opened as `configuration` says (its busy mode: how long to wait for
    /// another process's lock), read-write unless it is read-only or the file cannot be
    /// written: a transaction a crash left behind is rolled back, as any SQLite open
    /// rolls it back, where a read-only look would fail on it.
    public static func detect(path: String, key: DatabaseKey, configuration: Configuration = Configuration()) throws -> CipherFormat? {
        let file = DatabaseFileHeader(path: path)
        if file.isPlaintextSQLiteDatabase { return .plaintext }
        var probing = configuration
        probing.readonly = configuration.readonly || access(path, W_OK) != 0
        do {
            return try GRDBDatabaseFile.openFinding(path: path, key: key, formats: try GRDBDatabaseFile.candidateFormats(path)) { format in
                var keyed = probing
                keyed.useKey(key, format: format)
                try DatabaseQueue(path: path, configuration: keyed).close()
                return format
            }.format
        } catch let error as UnreadableDatabaseError where error.kind == .wrongKey || error.kind == .notADatabase {
            return nil
        }
    }

    /// The formats the SQLCipher GRDB is built on reads with no settings given, its own
    /// first, asked of that SQLCipher.
    static func readableFormats() throws -> [CipherFormat] {
        try linkedVersion().map(CipherFormat.readable(by:)) ?? []
    }

    /// The version of the SQLCipher GRDB is built on, asked of it.
    static func linkedVersion() throws -> SQLCipherVersion? {
        try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_version") }.flatMap(SQLCipherVersion.init(parsing:))
    }
}

extension Configuration {
    /// Keys every connection the writer opens with `key`, in `format` (SQLCipher 4's by
    /// default). GRDB runs preparations in the order they were added, and the key must
    /// come before any read: call this before any other `prepareDatabase`. The
    /// configuration holds the key (in its wiped, locked storage) for as long as the
    /// writer may open connections: a pool opens readers on demand.
    public mutating func useKey(_ key: DatabaseKey, format: CipherFormat = .sqlcipher4) {
        prepareDatabase { db in try db.useKey(key, format: format) }
    }
}
#endif

#if canImport(SQLCipher)
// Only when GRDB is built on SQLCipher (scripts/grdb-sqlcipher.sh): its `SQLCipher` module
// is then in the build, and GRDB has `usePassphrase`.
import Foundation
import GRDB
import MigrationKit
import MigrationKitSecrets

extension Database {
    /// Keys this connection with `key`, as `migrationkit` keys its own: a passphrase
    /// goes through SQLCipher's key derivation, a raw key as `x'<64 hex digits>'`. Call it
    /// first thing on a new connection (`Configuration.useKey(_:format:)` does).
    ///
    /// The bytes reach `sqlite3_key` from the key's wiped, locked storage: GRDB's
    /// `usePassphrase(_: Data)` is handed a `Data` that borrows them, never a copy and
    /// never a `String`.
    /// - Parameter format: the file's format. SQLCipher 4's own by default; an older
    ///   app's file (`GRDBCipherFormat.detect` tells) opens in its own format through
    ///   `PRAGMA cipher_compatibility`, and stays in it: nothing here rewrites a file.
    public func useKey(_ key: DatabaseKey, format: CipherFormat = .sqlcipher4) throws {
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
    }
}

/// Which SQLCipher format a file is in, found the way `migrationkit` finds it: each
/// known format tried with the key, on a connection of its own, read-only.
public enum GRDBCipherFormat {
    /// The file's format: `.plaintext` for an unencrypted SQLite file, the first of the
    /// formats the linked SQLCipher reads (its own, then the older ones) whose defaults
    /// read it with `key`, or nil when none does (a wrong key, custom settings, or not a
    /// database).
    public static func detect(path: String, key: DatabaseKey) throws -> CipherFormat? {
        let file = FileHandle(forReadingAtPath: path)
        let header = try file?.read(upToCount: 16)
        try file?.close()
        if header == Data("SQLite format 3\0".utf8) { return .plaintext }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        // The formats the SQLCipher GRDB is built on reads, asked of it.
        let version = try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_version") }.flatMap(SQLCipherVersion.init(parsing:))
        guard let version else { return nil }
        for format in CipherFormat.readable(by: version) where size % (format.pageSize ?? 1) == 0 {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.prepareDatabase { db in try db.useKey(key, format: format) }
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try queue.close()
                return format
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                continue
            }
        }
        return nil
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

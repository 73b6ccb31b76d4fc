#if canImport(SQLCipher)
// Only when GRDB is built on SQLCipher (scripts/grdb-sqlcipher.sh): its `SQLCipher` module
// is then in the build, and GRDB has `usePassphrase`.
import Foundation
import GRDB
import MigrationKitSecrets

extension Database {
    /// Keys this connection with `key`, as `migrationkit` keys its own: a passphrase
    /// goes through SQLCipher's key derivation, a raw key as `x'<64 hex digits>'`. Call it
    /// first thing on a new connection (`Configuration.useKey(_:)` does).
    ///
    /// The bytes reach `sqlite3_key` from the key's wiped, locked storage: GRDB's
    /// `usePassphrase(_: Data)` is handed a `Data` that borrows them, never a copy and
    /// never a `String`.
    public func useKey(_ key: DatabaseKey) throws {
        try key.withKeyText { text in
            guard let base = text.baseAddress, text.count > 0 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "The database key is empty.")
            }
            let borrowed = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: text.count, deallocator: .none)
            try usePassphrase(borrowed)
        }
    }
}

extension Configuration {
    /// Keys every connection the writer opens with `key`. GRDB runs preparations in the
    /// order they were added, and the key must come before any read: call this before
    /// any other `prepareDatabase`. The configuration holds the key (in its wiped,
    /// locked storage) for as long as the writer may open connections: a pool opens
    /// readers on demand.
    public mutating func useKey(_ key: DatabaseKey) {
        prepareDatabase { db in try db.useKey(key) }
    }
}
#endif

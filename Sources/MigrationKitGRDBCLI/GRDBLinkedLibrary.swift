import GRDB
import MigrationKit

/// What the GRDB layer knows of the SQLite GRDB links (its versions, its compile
/// options, its memory security), asked once.
enum GRDBLinkedLibrary {
    /// The version of the SQLite GRDB links, as `sqlite_version()` says.
    static let linkedSQLiteVersion: String = (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }).flatMap { $0 } ?? "unknown"

    /// The version of the SQLCipher GRDB links (`PRAGMA cipher_version`), or nil for the
    /// system's plain SQLite.
    static let linkedSQLCipherVersion: String? = (try? DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_version") }).flatMap { $0 }

    /// SQLCipher's `cipher_memory_security` turned on for the rest of the process (it
    /// cannot be turned off again), once; whether it is on. False on a GRDB without the
    /// switch (plain SQLite, SQLCipher before 4).
    static let memorySecurityEnabled: Bool = {
        _ = try? DatabaseQueue().inDatabase { db in
            _ = try Row.fetchAll(db, sql: "PRAGMA cipher_log = '/dev/null'")
            _ = try Row.fetchAll(db, sql: "PRAGMA cipher_memory_security = ON")
        }
        return (try? DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_memory_security") }).flatMap { $0 } == "1"
    }()

    /// What the linter knows of the SQLite GRDB links, before any database is consulted.
    static let linkedLintContext: LintContext = {
        var context = LintContext(sqliteVersion: SQLiteVersion(linkedSQLiteVersion) ?? SQLiteVersion(3, 0, 0),
                                  libraryDescription: "SQLite \(linkedSQLiteVersion) (through GRDB)")
        context.compileOptions = Set((try? DatabaseQueue().read { try String.fetchAll($0, sql: "PRAGMA compile_options") }) ?? [])
        return context
    }()
}

import GRDB
import MigrationKitFiles
#if canImport(SQLCipher)
import SQLCipher
#else
import GRDBSQLite
#endif

/// A statement on a connection the commands open stops at once when a signal asks the
/// command to stop (`Interruption`), as on the tool's own connection: SQLite's progress
/// handler, asked every 1,000 steps of a statement, fails it with `SQLITE_INTERRUPT`,
/// and the step's transaction rolls back. (A step of many short statements stops at its
/// end at the latest: the commands check before and after each step.)
enum GRDBStatementStop {
    static func watch(_ db: Database) {
        sqlite3_progress_handler(db.sqliteConnection, 1000, { _ in Interruption.isStopping ? 1 : 0 }, nil)
    }
}

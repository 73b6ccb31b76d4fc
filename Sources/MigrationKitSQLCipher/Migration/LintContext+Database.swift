import Foundation
import MigrationKit

extension LintContext {
    /// The linked SQLite, with no database to consult: a DROP TABLE is reported as
    /// possibly losing data, since nobody can say.
    public static var linkedLibrary: LintContext {
        var context = LintContext(sqliteVersion: linkedSQLiteVersion, libraryDescription: SQLCipherLibrary.summary)
        context.compileOptions = SQLCipherLibrary.compileOptions
        context.parser = SQLParser()
        return context
    }

    /// The linked SQLite plus what a database holds (`consulting(_:for:)`).
    public static func reading(_ db: SQLCipherDatabase, for files: [SQLMigrationFile]) throws -> LintContext {
        try linkedLibrary.consulting(db, for: files)
    }

    private static var linkedSQLiteVersion: SQLiteVersion {
        SQLiteVersion(SQLCipherLibrary.sqliteVersion) ?? SQLiteVersion(3, 0, 0)
    }
}

/// The linked SQLite's parser, for lint (`SQLParsing`): statements are prepared on an
/// in-memory database of its own, which holds the schema and never a row; the linter
/// says which statements to apply to it.
final class SQLParser: SQLParsing, @unchecked Sendable {
    private var database: SQLCipherDatabase?
    private let lock = NSLock()

    func begin(schema: [String]) {
        lock.withLock {
            database = try? SQLCipherDatabase.open(path: ":memory:", readOnly: false, busyTimeout: .zero)
            for statement in schema { try? database?.execute(sql: statement) }
        }
    }

    func problem(of statement: String) -> SQLParseProblem? {
        // A PRAGMA can act while it is prepared (SQLCipher's cipher_default_* set the
        // whole process's defaults): never in this process for a lint.
        guard !Self.isPragma(statement) else { return nil }
        return lock.withLock { database?.parseProblem(of: statement) }
    }

    func apply(_ statement: String) {
        lock.withLock { _ = try? database?.execute(sql: statement) }
    }

    private static func isPragma(_ statement: String) -> Bool {
        SQLTokenizer(statement).first { !$0.isTrivia }?.isWord("PRAGMA") ?? false
    }
}

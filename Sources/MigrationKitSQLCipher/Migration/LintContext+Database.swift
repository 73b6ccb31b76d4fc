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
/// in-memory database of its own, which holds the schema and never a row; only what
/// changes the schema is run there.
final class SQLParser: SQLParsing, @unchecked Sendable {
    private var database: SQLCipherDatabase?
    private let lock = NSLock()

    func begin(schema: [String]) {
        lock.withLock {
            database = try? SQLCipherDatabase.open(path: ":memory:", readOnly: false, busyTimeout: .zero)
            for statement in schema { try? database?.execute(sql: statement) }
        }
    }

    func problem(of statement: String, applying: Bool) -> SQLParseProblem? {
        lock.withLock {
            guard let database else { return nil }
            if let problem = database.parseProblem(of: statement) { return problem }
            if applying, Self.changesSchema(statement) { try? database.execute(sql: statement) }
            return nil
        }
    }

    /// CREATE, ALTER and DROP, but never `CREATE TABLE … AS SELECT`, whose query
    /// could run for minutes even over empty tables (a recursive CTE needs none).
    private static func changesSchema(_ statement: String) -> Bool {
        let words = SQLTokenizer.tokenize(statement).filter { !$0.isTrivia }.map { $0.text.uppercased() }
        guard let first = words.first, ["CREATE", "ALTER", "DROP"].contains(first) else { return false }
        return !(first == "CREATE" && words.contains("TABLE") && words.contains("AS") && words.contains("SELECT"))
    }
}

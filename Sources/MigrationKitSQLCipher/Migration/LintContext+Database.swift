import Foundation
import MigrationKit

/// Lint contexts built from the SQLite linked into this module (its version, compile
/// options and parser), so lint judges migrations by the library that runs them.
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

/// The linked SQLite's parser, for lint (`SQLParsing`): statements are prepared, never
/// run, on an in-memory database of its own.
///
/// SQLite parses a whole statement before it looks up the names in it, so a statement
/// that fails only for a name (`no such table`, a table an earlier migration creates)
/// parses. Two look a name up first: `CREATE TRIGGER … ON t` before its body, `ALTER
/// TABLE t ADD` before the column. For those, the missing table is made (empty, with one
/// column) and the statement prepared again, so a syntax error behind the name shows.
/// Replaying the batch's real schema instead cost more than half the run of 300 new
/// migrations: SQLite scans its whole schema for every `CREATE`.
final class SQLParser: SQLParsing, @unchecked Sendable {
    private let database: SQLCipherDatabase?
    private let lock = NSLock()

    init() {
        database = try? SQLCipherDatabase.open(path: ":memory:", readOnly: false, busyTimeout: .zero)
    }

    func problem(of statement: String) -> SQLParseProblem? {
        // A PRAGMA can act while it is prepared (SQLCipher's cipher_default_* set the
        // whole process's defaults): never in this process for a lint.
        guard !Self.isPragma(statement) else { return nil }
        return lock.withLock {
            guard let database else { return nil }
            // A name made for one statement may reveal the next missing one: a few rounds.
            for _ in 0..<3 {
                switch database.parse(statement) {
                case .parses:
                    return nil
                case .syntaxError(let problem):
                    return problem
                case .missingTable(let name):
                    guard let name, Self.looksUpNamesBeforeItsEnd(statement),
                          (try? database.execute(sql: "CREATE TABLE \(quoteIdentifier(name)) (x)")) != nil else { return nil }
                case .unknownName:
                    return nil
                }
            }
            return nil
        }
    }

    private static func isPragma(_ statement: String) -> Bool {
        SQLTokenizer(statement).first { !$0.isTrivia }?.isWord("PRAGMA") ?? false
    }

    /// `CREATE [TEMP] TRIGGER` and `ALTER TABLE`.
    private static func looksUpNamesBeforeItsEnd(_ statement: String) -> Bool {
        var tokenizer = SQLTokenizer(statement)
        var first: [String] = []
        while first.count < 3, let token = tokenizer.next() {
            if !token.isTrivia { first.append(token.text.uppercased()) }
        }
        guard let verb = first.first else { return false }
        return (verb == "CREATE" && first.dropFirst().prefix(2).contains("TRIGGER")) || (verb == "ALTER" && first.dropFirst().first == "TABLE")
    }
}

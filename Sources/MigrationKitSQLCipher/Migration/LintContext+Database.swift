import Foundation
import MigrationKit

/// Lint contexts built from the SQLite linked into this module (its version, compile
/// options and parser), so lint judges migrations by the library that runs them.
extension LintContext {
    /// The linked SQLite, with no database to consult: a DROP TABLE is reported as
    /// possibly losing data, since nobody can say.
    package static var linkedLibrary: LintContext {
        var context = LintContext(sqliteVersion: linkedSQLiteVersion, libraryDescription: SQLCipherLibrary.summary)
        context.compileOptions = SQLCipherLibrary.compileOptions
        context.parser = SQLParser()
        return context
    }

    /// The linked SQLite plus what a database holds (`consulting(_:for:)`).
    static func reading(_ db: SQLCipherDatabase, for files: [SQLMigrationFile]) throws -> LintContext {
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
/// TABLE t ADD` before the column. For those the statement is prepared again naming a
/// table that exists (`probeTable`, empty, one column): what follows the name then
/// parses or not as it would on `t`. Only when it does not is the missing table made
/// (the same shape) and the statement itself prepared again, so that the error says
/// what SQLite says of the statement as written, at the place it says. Replaying the
/// batch's real schema instead cost more than half the run of 300 new migrations
/// (SQLite scans its whole schema for every `CREATE`), and making each missing table
/// was still more than a third of lint.
final class SQLParser: SQLParsing, @unchecked Sendable {
    private let database: SQLCipherDatabase?
    private let lock = NSLock()
    /// Whether `probeTable` has been made in `database`.
    private var hasProbeTable = false
    /// The table a statement is prepared on in place of one it names that is missing.
    private static let probeTable = "migrationkit_lint_probe"

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
                    guard let name, let probing = Self.naming(Self.probeTable, insteadOfTheTableIn: statement) else { return nil }
                    if makeProbeTable(in: database) {
                        switch database.parse(probing) {
                        case .parses, .unknownName: return nil
                        case .syntaxError, .missingTable: break
                        }
                    }
                    guard (try? database.execute(sql: "CREATE TABLE \(quoteIdentifier(name)) (x)")) != nil else { return nil }
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

    /// Makes `probeTable` once; false if it cannot be made.
    private func makeProbeTable(in database: SQLCipherDatabase) -> Bool {
        if !hasProbeTable {
            hasProbeTable = (try? database.execute(sql: "CREATE TABLE \(Self.probeTable) (x)")) != nil
        }
        return hasProbeTable
    }

    /// `statement` naming `table` where it names the table it looks up before its end
    /// (`ALTER TABLE t …`, `CREATE [TEMP] TRIGGER … ON t …`, `t` maybe `schema.t`);
    /// nil for any other statement.
    static func naming(_ table: String, insteadOfTheTableIn statement: String) -> String? {
        let code = SQLTokenizer(statement).filter { !$0.isTrivia }
        guard let verb = code.first else { return nil }
        let nameIndex: Int
        if verb.isWord("ALTER"), code.count > 2, code[1].isWord("TABLE") {
            nameIndex = 2
        } else if verb.isWord("CREATE"), code.dropFirst().prefix(2).contains(where: { $0.isWord("TRIGGER") }),
                  let on = code.firstIndex(where: { $0.isWord("ON") }), on + 1 < code.count {
            nameIndex = on + 1
        } else {
            return nil
        }
        // `schema.table`: the name is the three tokens.
        let last = nameIndex + 2 < code.count && code[nameIndex + 1].isSymbol(".") ? nameIndex + 2 : nameIndex
        let bytes = Array(statement.utf8)
        let start = code[nameIndex].offset
        let end = code[last].offset + code[last].text.utf8.count
        return String(decoding: bytes[..<start], as: UTF8.self) + table + String(decoding: bytes[end...], as: UTF8.self)
    }
}

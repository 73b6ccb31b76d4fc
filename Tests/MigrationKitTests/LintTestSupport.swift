@testable import MigrationKit
/// Builds migration files and contexts for the lint tests.
enum LintFixture {
    /// The library Debian 12 links: every feature of the catalog is too new for it, or
    /// not compiled in (its real `PRAGMA compile_options`).
    static let debian12: LintContext = {
        var context = LintContext(sqliteVersion: SQLiteVersion(3, 15, 2), libraryDescription: "SQLCipher 3.4.1 (SQLite 3.15.2)")
        context.compileOptions = ["ENABLE_COLUMN_METADATA", "ENABLE_FTS3", "ENABLE_RTREE", "ENABLE_UNLOCK_NOTIFY",
                                  "ENABLE_UPDATE_DELETE_LIMIT", "HAS_CODEC", "SECURE_DELETE", "SOUNDEX", "THREADSAFE"]
        return context
    }()
    /// A library new enough, and built with enough, for every feature of the catalog.
    static let modern: LintContext = {
        var context = LintContext(sqliteVersion: SQLiteVersion(3, 53, 0), libraryDescription: "SQLite 3.53.0")
        context.compileOptions = ["ENABLE_FTS5", "ENABLE_MATH_FUNCTIONS", "ENABLE_JSON1", "ENABLE_PERCENTILE"]
        return context
    }()

    /// A dbmate-style file: `-- migrate:up` on line 1, so up SQL starts on line 2.
    static func file(_ identifier: String = "0001_test", up: String, down: String? = "SELECT 1;") throws -> SQLMigrationFile {
        var text = "-- migrate:up\n" + up
        if let down { text += "\n-- migrate:down\n" + down }
        return try SQLMigrationFileParser.parseSections(text, identifier: identifier, path: "migrations/\(identifier).sql")
    }

    /// Findings for one migration holding `up`, optionally only those of `rule`.
    static func lint(_ up: String, rule: String? = nil, context: LintContext = debian12, down: String? = "SELECT 1;") throws -> [LintFinding] {
        let findings = MigrationLinter(context: context).lint([try file(up: up, down: down)])
        return rule.map { rule in findings.filter { $0.rule == rule } } ?? findings
    }

    /// A context with a database holding `rows` and `views` (table → view names).
    static func database(rows: [String: Int] = [:], views: [String: [String]] = [:], version: SQLiteVersion = SQLiteVersion(3, 15, 2)) -> LintContext {
        LintContext(sqliteVersion: version, libraryDescription: "SQLite \(version)",
                    rowCount: { rows[$0.lowercased()] },
                    viewsReferencing: { views[$0.lowercased()] ?? [] })
    }
}

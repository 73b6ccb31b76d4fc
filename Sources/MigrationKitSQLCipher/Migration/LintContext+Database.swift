import MigrationKit

extension LintContext {
    /// The linked SQLite, with no database to consult: a DROP TABLE is reported as
    /// possibly losing data, since nobody can say.
    public static var linkedLibrary: LintContext {
        var context = LintContext(sqliteVersion: linkedSQLiteVersion, libraryDescription: SQLCipherLibrary.summary)
        context.compileOptions = SQLCipherLibrary.compileOptions
        return context
    }

    /// The linked SQLite plus what a database holds: row counts of the tables the
    /// files mention (counting only those keeps a lint fast on a large database), and
    /// the views that reference each table.
    public static func reading(_ db: SQLCipherDatabase, for files: [SQLMigrationFile]) throws -> LintContext {
        let mentioned = Set(files.flatMap { file in
            SQLTokenizer.tokenize(file.up.sql).compactMap { token in
                token.kind == .word || token.kind == .quotedIdentifier || token.kind == .string ? token.nameValue?.lowercased() : nil
            }
        })
        var rowCounts: [String: Int] = [:]
        for table in try db.userTableNames() where mentioned.contains(table.lowercased()) {
            rowCounts[table.lowercased()] = try db.fetchInt(sql: "SELECT count(*) FROM \(quoteIdentifier(table))") ?? 0
        }
        var views: [String: [String]] = [:]
        try db.forEachRow(sql: "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL") { row in
            guard let name = row[0].string, let sql = row[1].string else { return }
            let referenced = Set(SQLTokenizer.tokenize(sql).compactMap { token in
                token.kind == .word || token.kind == .quotedIdentifier ? token.nameValue?.lowercased() : nil
            })
            for table in referenced { views[table, default: []].append(name) }
        }
        let counts = rowCounts
        let viewsByTable = views
        var context = LintContext(
            sqliteVersion: linkedSQLiteVersion,
            libraryDescription: SQLCipherLibrary.summary,
            rowCount: { counts[$0.lowercased()] },
            viewsReferencing: { viewsByTable[$0.lowercased()] ?? [] })
        context.compileOptions = SQLCipherLibrary.compileOptions
        return context
    }

    private static var linkedSQLiteVersion: SQLiteVersion {
        SQLiteVersion(SQLCipherLibrary.sqliteVersion) ?? SQLiteVersion(3, 0, 0)
    }
}

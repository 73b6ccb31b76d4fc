extension LintContext {
    /// This context plus what a database holds: row counts of the tables the files
    /// mention (counting only those keeps a lint fast on a large database), the views
    /// that reference each table, and what its schema uses that only its app registers
    /// and the connection lacks (`AppExtensionInventory`). Any database layer's
    /// connection will do.
    package func consulting(_ db: some SQLQuerying, for files: [SQLMigrationFile]) throws -> LintContext {
        let mentioned = Set(files.flatMap { file in
            SQLTokenizer.tokenize(file.up.sql).compactMap { token in
                token.kind == .word || token.kind == .quotedIdentifier || token.kind == .string ? token.nameValue?.lowercased() : nil
            }
        })
        var rowCounts: [String: Int] = [:]
        let virtualTables = Set(try db.textColumn(sql: "SELECT lower(name) FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"))
        for table in try db.userTableNames() where mentioned.contains(table.lowercased()) {
            let count = "SELECT count(*) FROM \(quoteIdentifier(table))"
            // A virtual table that cannot count itself (a contentless FTS4 index, a module
            // only the app registers) has no known count: lint assumes nothing of its rows.
            let counted = virtualTables.contains(table.lowercased()) ? try? db.textColumn(sql: count) : try db.textColumn(sql: count)
            if let rows = counted?.first.flatMap({ Int($0) }) { rowCounts[table.lowercased()] = rows }
        }
        var views: [String: [String]] = [:]
        try db.forEachTextRow(sql: "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL", arguments: []) { row in
            guard let name = row[0], let sql = row[1] else { return }
            let referenced = Set(SQLTokenizer.tokenize(sql).compactMap { token in
                token.kind == .word || token.kind == .quotedIdentifier ? token.nameValue?.lowercased() : nil
            })
            for table in referenced { views[table, default: []].append(name) }
        }
        let counts = rowCounts
        let viewsByTable = views
        var context = self
        context.rowCount = { counts[$0.lowercased()] }
        context.viewsReferencing = { viewsByTable[$0.lowercased()] ?? [] }
        context.appExtensions = try AppExtensionInventory.reading(db)
        return context
    }
}

/// The schema as canonical SQL: every table, index, view and trigger, sorted by kind
/// and then by name (byte-wise), one statement each, so equal schemas give identical
/// text whatever order they were created in, and a diff shows real changes only.
///
/// Left out: SQLite's internal objects (`sqlite_*`, including automatic indexes),
/// migration bookkeeping (the `grdb_migrations` ledger and MigrationKit's own tables)
/// and a virtual table's shadow tables (`notes_fts_content`, …, which the virtual table
/// makes itself), since they say nothing about the app's schema.
public enum SchemaDump {
    /// Bookkeeping tables left out of dumps and schema comparisons: the ledger,
    /// MigrationKit's history, the history table of earlier versions, and the ledgers
    /// other migration tools keep (`OtherTool.ledgerTableNames`), which a database they
    /// migrated keeps after MigrationKit adopts it.
    static let bookkeepingTables: Set<String> = Set([MigrationLedgerTable.name, MigrationHistoryTable.name, MigrationHistoryTable.legacyName])
        .union(OtherTool.ledgerTableNames)

    /// Whether a table is migration bookkeeping rather than the app's: one of
    /// `bookkeepingTables`, or any table GRDB keeps for itself (its name begins with
    /// `grdb_`, as GRDB's `Database.isGRDBInternalTable` decides), which GRDB's own dumps
    /// leave out too.
    package static func isBookkeeping(_ table: String) -> Bool {
        let folded = table.lowercased()
        return folded.hasPrefix("grdb_") || bookkeepingTables.contains(folded)
    }

    /// Whether a table is MigrationKit's own bookkeeping (its ledger, its history, any
    /// table GRDB keeps for itself), as opposed to another tool's.
    static func isMigrationKitsOwn(_ table: String) -> Bool {
        let folded = table.lowercased()
        return folded.hasPrefix("grdb_") || [MigrationLedgerTable.name, MigrationHistoryTable.name, MigrationHistoryTable.legacyName].contains(folded)
    }

    static let kindOrder = ["table": 0, "index": 1, "view": 2, "trigger": 3]

    /// One schema object.
    package struct Object: Hashable, Sendable {
        /// Its kind, as `sqlite_master` says it: "table", "index", "view" or "trigger".
        package let type: String
        /// Its name.
        package let name: String
        /// The table it belongs to (`tbl_name`); a table's or a view's own name.
        let tableName: String
        /// The statement that created it, as SQLite stored it.
        package let sql: String
    }

    /// The schema's objects in canonical order.
    /// - Parameters:
    ///   - db: the connection to read `sqlite_master` through.
    ///   - includingBookkeeping: keep the ledger and MigrationKit's tables
    ///     (for comparing whole copies of a database).
    package static func objects(in db: some SQLQuerying, includingBookkeeping: Bool = false) throws -> [Object] {
        var all: [Object] = []
        try db.forEachTextRow(sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE sql IS NOT NULL", arguments: []) { row in
            all.append(Object(type: row[0] ?? "", name: row[1] ?? "", tableName: row[2] ?? "", sql: row[3] ?? ""))
        }
        let objects = appsObjects(all, includingBookkeeping: includingBookkeeping)
        return objects.sorted { lhs, rhs in
            let left = kindOrder[lhs.type] ?? 9
            let right = kindOrder[rhs.type] ?? 9
            if left != right { return left < right }
            return lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
    }

    /// The objects of `all` that are the app's: not SQLite's own, not a virtual table's
    /// shadow tables, and not bookkeeping unless asked for.
    static func appsObjects(_ all: [Object], includingBookkeeping: Bool = false) -> [Object] {
        let virtualTables = all.filter { $0.type == "table" && TableDefinition(sql: $0.sql)?.isVirtual == true }.map { $0.name.lowercased() + "_" }
        return all.filter { object in
            let name = object.name.lowercased()
            if name.hasPrefix("sqlite_") || (!includingBookkeeping && isBookkeeping(object.tableName)) { return false }
            let isShadow = object.type == "table" && TableDefinition(sql: object.sql)?.isVirtual == false
                && virtualTables.contains { prefix in shadowSuffixes.contains { name == prefix + $0 } }
            return !isShadow
        }
    }

    /// The tables FTS3/4, FTS5 and R*Tree keep beside a virtual table `v` (`v_data`, …),
    /// as their modules' `xShadowName` accept them.
    static let shadowSuffixes = ["content", "data", "idx", "docsize", "config", "segments", "segdir", "stat", "node", "parent", "rowid"]

    /// The canonical dump: each object's SQL in its canonical spelling
    /// (`SQLCanonicalText`), one per line with a `;`, sorted by kind and then by name as
    /// SQLite compares names. Equal schemas give byte-identical dumps, however they were
    /// written, so a `diff` of production against a fresh install shows real changes only.
    public static func canonicalSQL(of db: some SQLQuerying) throws -> String {
        canonicalSQL(of: try objects(in: db))
    }

    /// The canonical dump of `objects` (as `objects(in:)` reads them).
    package static func canonicalSQL(of objects: [Object]) -> String {
        canonicalStatements(of: objects).map { $0 + ";\n" }.joined()
    }

    /// The objects' canonical statements, in canonical order.
    static func canonicalStatements(of db: some SQLQuerying) throws -> [String] {
        canonicalStatements(of: try objects(in: db))
    }

    /// The canonical statements of `objects`, in canonical order.
    static func canonicalStatements(of objects: [Object]) -> [String] {
        objects
            .map { (kind: kindOrder[$0.type] ?? 9, name: $0.name.lowercased(), sql: SQLCanonicalText.canonical($0.sql)) }
            .sorted { lhs, rhs in
                if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
                if lhs.name != rhs.name { return lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8) }
                return lhs.sql.utf8.lexicographicallyPrecedes(rhs.sql.utf8)
            }
            .map(\.sql)
    }
}

extension SchemaDump {
    /// The schema reduced to what SQLite means by it, for comparing two schemas built by
    /// different statements: the canonical dump's statements, one per line.
    package static func comparableForm(of db: some SQLQuerying) throws -> String {
        try canonicalStatements(of: db).joined(separator: "\n")
    }
}

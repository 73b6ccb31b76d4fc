/// What a migration writer needs to know of one schema: its objects in the order they
/// were created (a view is made after the views it reads), each table's columns as
/// SQLite sees them, which tables hold rows, and which have statistics.
///
/// Left out as `SchemaDump` leaves them out (SQLite's `sqlite_*` objects, migration
/// bookkeeping), and also a virtual table's shadow tables (`notes_fts_data`, …): the
/// virtual table makes them, so a migration never names them.
package struct SchemaSnapshot: Sendable {
    /// A column as `PRAGMA table_info` reports it (generated columns are not there:
    /// they are never copied, only computed).
    package struct Column: Sendable, Hashable {
        package let name: String
        let declaredType: String
        let notNull: Bool
        let defaultValue: String?
        /// Its place in the primary key, from 1; 0 when it is not part of it.
        let primaryKeyPosition: Int
    }

    /// The objects, in creation order.
    package let objects: [SchemaDump.Object]
    /// Columns by lower-cased table name (virtual tables left out).
    package let columns: [String: [Column]]
    /// Lower-cased names of the tables that hold at least one row.
    let tablesWithRows: Set<String>
    /// Lower-cased names of the tables `sqlite_stat1` holds statistics for (rows
    /// `ANALYZE` wrote for the table or its indexes), which the query planner reads.
    /// A rebuild's `DROP TABLE` deletes them with the old table.
    let tablesWithStatistics: Set<String>

    package init(reading db: some SQLQuerying) throws {
        var all: [SchemaDump.Object] = []
        try db.forEachTextRow(sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid", arguments: []) { row in
            all.append(SchemaDump.Object(type: row[0] ?? "", name: row[1] ?? "", tableName: row[2] ?? "", sql: row[3] ?? ""))
        }
        objects = SchemaDump.appsObjects(all)
        var columns: [String: [Column]] = [:]
        var tablesWithRows: Set<String> = []
        for table in objects where table.type == "table" && TableDefinition(sql: table.sql)?.isVirtual == false {
            var list: [Column] = []
            try db.forEachTextRow(sql: "PRAGMA main.table_info(\(quoteIdentifier(table.name)))", arguments: []) { row in
                list.append(Column(name: row[1] ?? "", declaredType: row[2] ?? "", notNull: row[3] == "1", defaultValue: row[4],
                                   primaryKeyPosition: Int(row[5] ?? "") ?? 0))
            }
            columns[table.name.lowercased()] = list
            if try db.textColumn(sql: "SELECT EXISTS (SELECT 1 FROM main.\(quoteIdentifier(table.name)))").first == "1" {
                tablesWithRows.insert(table.name.lowercased())
            }
        }
        self.columns = columns
        self.tablesWithRows = tablesWithRows
        // SQLite makes the table at the first `ANALYZE`: a database never analysed has none.
        let analysed = try db.textColumn(sql: "SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'").first == "1"
        tablesWithStatistics = analysed ? Set(try db.textColumn(sql: "SELECT DISTINCT tbl FROM main.sqlite_stat1").map { $0.lowercased() }) : []
    }

    /// The schema as a schema file: each object's `CREATE` statement, in creation order,
    /// so `diff --to` reads another database's schema as it reads a file.
    package var schemaText: String {
        objects.map { $0.sql + ";\n" }.joined()
    }

    /// Whether `name` is a shadow table of a virtual table `db` already has. A schema
    /// file replayed (`schema-dump`'s, or the `sqlite3` shell's `.schema`) holds their
    /// `CREATE TABLE` statements, which the virtual table has already run: skipped, not
    /// an error.
    package static func isShadowTable(_ name: String, in db: some SQLQuerying) throws -> Bool {
        let lowered = name.lowercased()
        let virtualTables = try db.textColumn(sql: "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")
            .compactMap(TableDefinition.init(sql:)).filter(\.isVirtual).map { $0.name.lowercased() + "_" }
        let exists = try db.textColumn(sql: "SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND lower(name) = lower(?)", arguments: [name]).first == "1"
        return exists && virtualTables.contains { prefix in SchemaDump.shadowSuffixes.contains { lowered == prefix + $0 } }
    }

    /// The object of this kind and name (as SQLite compares names), if there is one.
    func object(_ type: String, _ name: String) -> SchemaDump.Object? {
        objects.first { $0.type == type && $0.name.lowercased() == name.lowercased() }
    }
}

/// A `WITHOUT ROWID` table whose rows a copy of the database must keep, and the SQL that
/// proves a copy did: each row found in the copy by its primary key, with the same values
/// byte for byte. The rowid tables' proof (`TableRowids`) cannot reach these, and they
/// hold what an app relies on as much as any table — FTS5 keeps its term index
/// (`_idx`) and its settings (`_config`) in them.
package struct KeyedTableRows: Sendable, Equatable {
    package let table: String
    /// The primary key's columns, in the key's order.
    let keyColumns: [String]
    /// Every column.
    package let columns: [String]

    /// Every `WITHOUT ROWID` table of `schema`.
    package static func all(in db: some SQLQuerying, schema: String = "main") throws -> [KeyedTableRows] {
        try db.textRows(sql: "SELECT name, sql FROM \(quoteIdentifier(schema)).sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY rowid")
            .compactMap { row -> KeyedTableRows? in
                guard let name = row[0], let sql = row[1], let definition = TableDefinition(sql: sql), !definition.isVirtual, !definition.hasRowid else { return nil }
                let info = try db.textRows(sql: "PRAGMA \(quoteIdentifier(schema)).table_info(\(quoteIdentifier(name)))")
                let columns = info.compactMap { $0[1] }
                let key = info.compactMap { row -> (Int, String)? in
                    guard let column = row[1], let position = row[5].flatMap({ Int($0) }), position > 0 else { return nil }
                    return (position, column)
                }.sorted { $0.0 < $1.0 }.map(\.1)
                return columns.isEmpty || key.isEmpty ? nil : KeyedTableRows(table: name, keyColumns: key, columns: columns)
            }
    }

    /// A query answering 1 when a row of the table in `source` has no twin in `target`: a
    /// row with the same key and the same values, compared byte for byte (`COLLATE
    /// BINARY`). With the same row count on both sides, none twinless means every row
    /// was kept.
    package func twinlessRowQuery(from source: String, in target: String) -> String {
        let copied = "\(quoteIdentifier(target)).\(quoteIdentifier(table))"
        let original = "\(quoteIdentifier(source)).\(quoteIdentifier(table))"
        let sameKey = keyColumns.map { "copied.\(quoteIdentifier($0)) = original.\(quoteIdentifier($0))" }.joined(separator: " AND ")
        return "SELECT EXISTS (SELECT 1 FROM \(original) AS original WHERE NOT EXISTS (SELECT 1 FROM \(copied) AS copied "
            + "WHERE \(sameKey) AND " + TableRowids.sameValues(columns) + "))"
    }
}

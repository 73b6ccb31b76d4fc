/// A table whose rows a copy of the database must keep at their rowids, and the SQL
/// that proves a copy did and copies the rows again where it did not.
///
/// A rowid is a row's identity beyond its values: an external-content FTS index
/// (`content=`) finds its rows by rowid, and apps keep rowids in other tables and
/// files. SQLite gives a table without an `INTEGER PRIMARY KEY` new rowids when it
/// copies its rows with `INSERT … SELECT` and the table has no index, which is what
/// `sqlcipher_export` does: `encrypt`, `decrypt` and `cipher-upgrade` copy through it,
/// so each of them proves every table of the copy with `twinlessRowQuery` and copies
/// again, rowid included, the tables that fail.
///
/// Written for two schemas of one connection (the database and the copy attached to
/// it), so that the proof compares rows, not counts.
package struct TableRowids: Sendable, Equatable {
    /// The table's name.
    package let table: String
    /// The name that reads its rowid (`TableDefinition.rowidName`).
    let rowidName: String
    /// The columns a copy writes, as `PRAGMA table_info` lists them: generated columns
    /// are computed, never written.
    package let columns: [String]

    /// Every table of `schema` with rowids a copy can keep: neither virtual nor `WITHOUT
    /// ROWID`, and with a name left for its rowid. SQLite's own tables are among them
    /// (`sqlite_sequence`, `sqlite_stat1`): a copy keeps them as the app's.
    package static func all(in db: some SQLQuerying, schema: String = "main") throws -> [TableRowids] {
        try db.textRows(sql: "SELECT name, sql FROM \(quoteIdentifier(schema)).sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY rowid")
            .compactMap { row -> TableRowids? in
                guard let name = row[0], let sql = row[1], let rowidName = TableDefinition(sql: sql)?.rowidName else { return nil }
                let columns = try db.textRows(sql: "PRAGMA \(quoteIdentifier(schema)).table_info(\(quoteIdentifier(name)))").compactMap { $0[1] }
                return columns.isEmpty ? nil : TableRowids(table: name, rowidName: rowidName, columns: columns)
            }
    }

    /// A query answering 1 when a row of the table in `source` has no twin in `target`:
    /// a row at the same rowid with the same values, compared byte for byte (`COLLATE
    /// BINARY`, which also spares a collation only the app registers). With the same row
    /// count on both sides (the copy's proof compares counts), none twinless means
    /// every row kept its rowid.
    package func twinlessRowQuery(from source: String, in target: String) -> String {
        let copied = "\(quoteIdentifier(target)).\(quoteIdentifier(table))"
        let original = "\(quoteIdentifier(source)).\(quoteIdentifier(table))"
        return "SELECT EXISTS (SELECT 1 FROM \(original) AS original WHERE NOT EXISTS (SELECT 1 FROM \(copied) AS copied "
            + "WHERE copied.\(rowidName) = original.\(rowidName) AND " + Self.sameValues(columns) + "))"
    }

    /// The condition that row `copied` holds the values of row `original` in `columns`,
    /// byte for byte (`COLLATE BINARY`), as the twinless-row queries compare them: row
    /// values of at most 100 columns each, so a wide table stays within SQLite's limits
    /// on an expression's depth.
    static func sameValues(_ columns: [String]) -> String {
        let groups = stride(from: 0, to: columns.count, by: 100).map { Array(columns[$0..<min($0 + 100, columns.count)]) }
        return groups.map { group in
            "(" + group.map { "copied.\(quoteIdentifier($0))" }.joined(separator: ", ") + ") IS ("
                + group.map { "original.\(quoteIdentifier($0)) COLLATE BINARY" }.joined(separator: ", ") + ")"
        }.joined(separator: " AND ")
    }

    /// The statements that copy the table's rows from `source` into `target` again, each
    /// at its rowid, replacing what `target` holds. Run with triggers and foreign keys
    /// off (the copy's triggers would write its full-text index again, its foreign keys
    /// would cascade), in one transaction.
    package func recopyStatements(from source: String, into target: String) -> [String] {
        let copied = "\(quoteIdentifier(target)).\(quoteIdentifier(table))"
        let names = columns.map(quoteIdentifier).joined(separator: ", ")
        return [
            "DELETE FROM \(copied)",
            "INSERT INTO \(copied) (\(rowidName), \(names)) SELECT \(rowidName), \(names) FROM \(quoteIdentifier(source)).\(quoteIdentifier(table)) ORDER BY \(rowidName)",
        ]
    }
}

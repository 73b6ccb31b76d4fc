import MigrationKitFiles

/// How a command that copied a database says what it proved the copy holds.
package enum RowCounts {
    /// "1 row in 1 table", "12 rows in 3 tables", from each table's row count.
    package static func rowsInTables(_ counts: [String: Int]) -> String {
        let rows = counts.values.reduce(0, +)
        return "\(rows) row\(rows == 1 ? "" : "s") in \(counts.count) table\(counts.count == 1 ? "" : "s")"
    }
}

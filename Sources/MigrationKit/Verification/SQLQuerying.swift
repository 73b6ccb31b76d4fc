import Foundation

/// What the checks, the schema dump and lint's look at a database need of a database
/// layer: the rows of one query, each column as text. The SQLCipher connection and
/// GRDB's `Database` conform, so the verifier's SQL is written once for both.
public protocol SQLQuerying {
    /// Calls `body` with each row of `sql`, binding `arguments` to its `?` in order.
    /// A column reads as SQLite's text for it (an integer as its digits), nil for NULL
    /// or a blob.
    func forEachTextRow(sql: String, arguments: [String], _ body: ([String?]) throws -> Void) throws

    /// The database's own words for a failure (SQLite's message, without the file and
    /// code around it), for a check's detail.
    static func message(of error: any Error) -> String

    /// The SQLite result code of a failure (extended or primary), for a check that
    /// decides on it; nil when `error` is not the database's.
    static func resultCode(of error: any Error) -> SQLiteResultCode?
}

extension SQLQuerying {
    package static func message(of error: any Error) -> String { String(describing: error) }

    package static func resultCode(of error: any Error) -> SQLiteResultCode? { nil }

    /// The first column of every row, NULLs skipped.
    package func textColumn(sql: String, arguments: [String] = []) throws -> [String] {
        var values: [String] = []
        try forEachTextRow(sql: sql, arguments: arguments) { row in
            if let value = row.first, let value { values.append(value) }
        }
        return values
    }

    /// Every row, each column as text (nil for NULL or a blob).
    package func textRows(sql: String, arguments: [String] = []) throws -> [[String?]] {
        var rows: [[String?]] = []
        try forEachTextRow(sql: sql, arguments: arguments) { rows.append($0) }
        return rows
    }

    /// Every table of the main database with its number of rows (SQLite's and
    /// MigrationKit's own tables included), as a copy's proof compares them.
    package func tableRowCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        // A virtual table's rows live in its shadow tables, counted as any table; counting
        // it would ask its module to scan (an external-content index scans the table it
        // indexes again, a contentless FTS4 one refuses).
        for table in try textColumn(sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'") {
            counts[table] = try textColumn(sql: "SELECT count(*) FROM main.\(quoteIdentifier(table))").first.flatMap { Int($0) } ?? 0
        }
        return counts
    }

    /// The names of the tables an app made (SQLite's own `sqlite_*` tables left out).
    func userTableNames() throws -> [String] {
        try textColumn(sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    }
}

/// Quotes an SQL identifier: `my "table"` becomes `"my ""table"""`.
package func quoteIdentifier(_ name: String) -> String {
    // Most names hold no quote; Foundation's search for one costs thousands of
    // instructions a call, and a run quotes a name for every table a step touches.
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Quotes an SQL string literal: `it's` becomes `'it''s'`.
func quoteLiteral(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
    return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}

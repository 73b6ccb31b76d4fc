import CSQLCipher
import Foundation
import MigrationKit

/// A column as `PRAGMA table_info` describes it.
public struct ColumnInfo: Hashable, Sendable {
    /// The column's name.
    public let name: String
    /// The declared type, as written ("TEXT", "" when none).
    public let type: String
    /// Whether the column is declared NOT NULL.
    public let isNotNull: Bool
    /// The default value's SQL text, or nil when there is no default.
    public let defaultValueSQL: String?
    /// 1-based position in the primary key, or 0 when not part of it.
    public let primaryKeyIndex: Int
}

/// An index as `PRAGMA index_list`/`index_info` describe it.
public struct IndexInfo: Hashable, Sendable {
    /// The index's name (`sqlite_autoindex_…` for one SQLite made for a constraint).
    public let name: String
    /// Whether the index is UNIQUE: two rows may not share its columns' values.
    public let isUnique: Bool
    /// "c" for CREATE INDEX, "u" for a UNIQUE constraint, "pk" for a PRIMARY KEY.
    public let origin: String
    /// Whether the index has a WHERE clause, so it covers only some rows.
    public let isPartial: Bool
    /// The indexed columns, in index order; an expression's column name is empty.
    public let columns: [String]
}

extension SQLCipherDatabase {
    /// Whether a table (not a view) with this name exists. SQL names are
    /// case-insensitive, and so is this check.
    public func tableExists(_ name: String) throws -> Bool {
        try fetchOne(
            sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
            arguments: [.text(name)]) != nil
    }

    /// Whether the schema this connection has loaded holds a table (not a view) of this
    /// name in the main database, names compared as SQLite compares them. A lookup in
    /// SQLite's own table of tables, where `tableExists` scans the schema table, which
    /// has no index by name: a run of many steps asking this after each one on a
    /// growing schema spent most of its foreign-key bookkeeping in those scans.
    ///
    /// The loaded schema is what `PRAGMA foreign_key_list` answers from too: current
    /// inside a transaction once a statement has run in it (a statement checks the
    /// schema's version and reloads it), but blind to another connection's change until
    /// then. Use `tableExists` anywhere else.
    package func loadedSchemaHasTable(_ name: String) throws -> Bool {
        guard !isClosed else { throw closedError() }
        // With no column named, SQLite only looks the table up (a view is "not found").
        let code = sqlite3_table_column_metadata(handle, "main", name, nil, nil, nil, nil, nil, nil)
        switch code {
        case SQLITE_OK: return true
        case SQLITE_ERROR: return false
        default: throw lastError(code: code)
        }
    }

    /// The columns of a table, in declaration order; empty when the table does not exist.
    public func columns(in table: String) throws -> [ColumnInfo] {
        try fetchAll(sql: "PRAGMA table_info(\(quoteIdentifier(table)))").map { row in
            ColumnInfo(
                name: row["name"].string ?? "",
                type: row["type"].string ?? "",
                isNotNull: row["notnull"].int == 1,
                defaultValueSQL: row["dflt_value"].string,
                primaryKeyIndex: row["pk"].int ?? 0)
        }
    }

    /// The indexes on a table, sorted by name; empty when the table does not exist.
    public func indexes(on table: String) throws -> [IndexInfo] {
        let list = try fetchAll(sql: "PRAGMA index_list(\(quoteIdentifier(table)))")
        return try list.map { row in
            let name = row["name"].string ?? ""
            let columns = try fetchAll(sql: "PRAGMA index_info(\(quoteIdentifier(name)))")
                .sorted { ($0["seqno"].int ?? 0) < ($1["seqno"].int ?? 0) }
                .map { $0["name"].string ?? "" }
            return IndexInfo(
                name: name,
                isUnique: row["unique"].int == 1,
                origin: row["origin"].string ?? "c",
                isPartial: row["partial"].int == 1,
                columns: columns)
        }
        .sorted { MigrationIdentifierOrder.precedes($0.name, $1.name) }
    }
}

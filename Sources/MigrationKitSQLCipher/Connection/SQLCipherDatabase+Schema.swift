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

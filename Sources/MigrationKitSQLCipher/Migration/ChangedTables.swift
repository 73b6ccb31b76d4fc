import Foundation
import MigrationKit

/// The tables a migration wrote (`SQLCipherDatabase.recordingWrittenTables`), and what
/// verifying only them means: `quick_check` of each, and `foreign_key_check` of each
/// and of every table whose foreign keys point at one of them (a deleted parent row
/// breaks its children, which were not written).
struct ChangedTables: Sendable {
    /// Folded as SQLite compares names (`sqlNameFolded`); the ledger, the history
    /// table and SQLite's own tables left out.
    private(set) var names: Set<String> = []
    /// Whether a table was altered: a rename also rewrites the tables pointing at it.
    private(set) var altersTable = false

    init() {}

    mutating func add(_ written: Set<String>, altersTable: Bool = false) {
        let bookkeeping: Set<String> = [MigrationLedger.tableName.sqlNameFolded, MigrationHistoryTable.name.sqlNameFolded]
        names.formUnion(written.filter { !$0.hasPrefix("sqlite_") && !bookkeeping.contains($0) })
        self.altersTable = self.altersTable || altersTable
    }

    mutating func add(_ other: ChangedTables) {
        names.formUnion(other.names)
        altersTable = altersTable || other.altersTable
    }

    var isEmpty: Bool { names.isEmpty }

    /// The changed tables that exist now (a step may drop one, or rename it away), as
    /// the schema spells them, sorted.
    func existing(in db: SQLCipherDatabase) throws -> [String] {
        guard !names.isEmpty else { return [] }
        return try tableNames(in: db).filter { names.contains($0.sqlNameFolded) }
    }

    /// The tables whose foreign keys the change may have broken, as the schema spells
    /// them, sorted: the changed tables and every table with a foreign key to one.
    func foreignKeyScope(using graph: ForeignKeyGraph, in db: SQLCipherDatabase) throws -> [String] {
        guard !names.isEmpty else { return [] }
        return try graph.tables(affectedBy: self, in: db)
    }

    private func tableNames(in db: SQLCipherDatabase) throws -> [String] {
        try db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
    }
}

/// Which tables have foreign keys to which, kept for a run. Built once from every
/// table's foreign-key list; after that only the changed tables' lists are read again
/// (a step can only change the foreign keys of tables it creates, drops or alters), or
/// every list after an `ALTER TABLE` (a rename rewrites the tables pointing at the
/// renamed one). Listing every table's foreign keys at every step made a run of many
/// small steps cost more than checking them all.
final class ForeignKeyGraph {
    private struct Table {
        let name: String
        let sql: String
        var parents: Set<String>
    }

    /// By folded name; nil until built.
    private var tables: [String: Table]?
    private var schemaVersion: Int?

    init() {}

    /// The changed tables and those with a foreign key to one of them, as the schema
    /// spells them, sorted.
    func tables(affectedBy changed: ChangedTables, in db: SQLCipherDatabase) throws -> [String] {
        let version = try db.fetchInt(sql: "PRAGMA schema_version")
        if tables == nil || changed.altersTable {
            tables = try read(db, only: nil)
        } else if version != schemaVersion {
            // Re-read the changed tables that the schema change can concern.
            let fresh = try read(db, only: changed.names)
            for name in changed.names { tables?[name] = fresh[name] }
        }
        schemaVersion = version
        let names = changed.names
        return (tables ?? [:]).filter { names.contains($0.key) || !$0.value.parents.isDisjoint(with: names) }
            .map(\.value.name).sorted()
    }

    /// The tables (or only those named, folded) with their foreign keys' parents;
    /// a table's list is read again only when its `CREATE TABLE` text changed.
    private func read(_ db: SQLCipherDatabase, only names: Set<String>?) throws -> [String: Table] {
        var current: [String: Table] = [:]
        var unread: [String] = []
        var sql = "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        var arguments: [DatabaseValue] = []
        if let names {
            guard !names.isEmpty else { return [:] }
            // NOCASE folds ASCII only, as `sqlNameFolded` does (lower() may fold more).
            sql += " AND name COLLATE NOCASE IN (" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
            arguments = names.sorted().map { .text($0) }
        }
        try db.forEachRow(sql: sql, arguments: arguments) { row in
            guard let name = row[0].string else { return }
            let text = row[1].string ?? ""
            let key = name.sqlNameFolded
            if let known = tables?[key], known.sql == text {
                current[key] = known
            } else {
                current[key] = Table(name: name, sql: text, parents: [])
                unread.append(key)
            }
        }
        for key in unread {
            guard let name = current[key]?.name else { continue }
            // Bound where SQLite has pragma functions: one statement for the run.
            let rows = SQLCipherLibrary.hasPragmaFunctions
                ? try db.fetchAll(sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [.text(name)])
                : try db.fetchAll(sql: "PRAGMA foreign_key_list(\(quoteIdentifier(name)))")
            current[key]?.parents = Set(rows.compactMap { $0["table"].string?.sqlNameFolded })
        }
        return current
    }
}

extension String {
    /// The name as SQLite compares names: ASCII letters folded to lower case, every
    /// other character as it is ("Ärzte" and "ärzte" are two tables to SQLite).
    /// Works on the UTF-8 bytes: an ASCII byte never occurs inside a multi-byte
    /// character, and most names have no upper case letter to fold.
    var sqlNameFolded: String {
        let upper: ClosedRange<UInt8> = 65...90
        guard utf8.contains(where: upper.contains) else { return self }
        return String(decoding: utf8.map { upper.contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

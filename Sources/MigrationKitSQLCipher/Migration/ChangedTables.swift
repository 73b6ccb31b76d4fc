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
    /// Whether a table was renamed: a rename also rewrites the tables pointing at it.
    private(set) var renamesTable = false

    init() {}

    mutating func add(_ written: Set<String>, renamesTable: Bool = false) {
        let bookkeeping: Set<String> = [MigrationLedger.tableName.sqlNameFolded, MigrationHistoryTable.name.sqlNameFolded]
        names.formUnion(written.filter { !$0.hasPrefix("sqlite_") && !bookkeeping.contains($0) })
        self.renamesTable = self.renamesTable || renamesTable
    }

    mutating func add(_ other: ChangedTables) {
        names.formUnion(other.names)
        renamesTable = renamesTable || other.renamesTable
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
/// table's foreign-key list; after that a step re-reads only what it can have changed:
/// the tables it named, and after a table rename also every table whose text has
/// `REFERENCES` (a rename rewrites the foreign keys of the tables pointing at the
/// renamed one, and only a table with that word has foreign keys). A table's list is
/// read again only when its `CREATE TABLE` text changed. Listing every table's foreign
/// keys at every step made a run of many small steps cost more than checking them all;
/// reading every table again after each `ALTER TABLE … ADD COLUMN` was most of what was
/// left.
final class ForeignKeyGraph {
    private struct Table {
        let name: String
        /// The `CREATE TABLE` text when it has `REFERENCES`; nil for a table without
        /// foreign keys, whose text is never needed.
        let sql: String?
        var parents: Set<String>
    }

    /// Which tables a read covers.
    private enum Selection {
        case every
        /// These (folded) names.
        case named(Set<String>)
        /// These names, and every table whose text has `REFERENCES`.
        case namedOrReferencing(Set<String>)

        /// The names selected by name.
        var names: Set<String> {
            switch self {
            case .every: []
            case .named(let names), .namedOrReferencing(let names): names
            }
        }
    }

    /// By folded name; nil until built.
    private var tables: [String: Table]?
    private var schemaVersion: Int?

    init() {}

    /// The changed tables and those with a foreign key to one of them, as the schema
    /// spells them, sorted.
    func tables(affectedBy changed: ChangedTables, in db: SQLCipherDatabase) throws -> [String] {
        let version = try db.fetchInt(sql: "PRAGMA schema_version")
        if let known = tables {
            let selection: Selection
            if changed.renamesTable {
                selection = .namedOrReferencing(changed.names)
            } else if version != schemaVersion {
                selection = .named(changed.names)
            } else {
                // No schema change: only a table the graph has not met yet (the new
                // name of a renamed table without foreign keys) needs reading.
                selection = .named(changed.names.filter { known[$0] == nil })
            }
            let fresh = try read(db, selection)
            // A name read and not found is gone (dropped, renamed away).
            for name in selection.names { tables?[name] = fresh[name] }
            for (name, table) in fresh { tables?[name] = table }
        } else {
            tables = try read(db, .every)
        }
        schemaVersion = version
        let names = changed.names
        var affected: [String] = []
        for (key, table) in tables ?? [:] where names.contains(key) || !table.parents.isDisjoint(with: names) {
            affected.append(table.name)
        }
        return affected.sorted()
    }

    /// The selected tables with their foreign keys' parents, by folded name.
    private func read(_ db: SQLCipherDatabase, _ selection: Selection) throws -> [String: Table] {
        // `instr(lower(…))` and not LIKE, which a migration can make case-sensitive.
        let referencing = "instr(lower(sql), 'references') > 0"
        var arguments: [DatabaseValue] = []
        func naming(_ names: Set<String>) -> String {
            arguments = names.sorted().map { .text($0) }
            // NOCASE folds ASCII only, as `sqlNameFolded` does (lower() may fold more).
            return "name COLLATE NOCASE IN (" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        }
        // The selective condition first: SQLite scans the schema table, testing each
        // row's conditions in order.
        var conditions: [String] = []
        switch selection {
        case .every:
            break
        case .named(let names):
            guard !names.isEmpty else { return [:] }
            conditions.append(naming(names))
        case .namedOrReferencing(let names):
            conditions.append(names.isEmpty ? referencing : "(\(naming(names)) OR \(referencing))")
        }
        conditions += ["type = 'table'", "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"]
        let sql = "SELECT name, CASE WHEN \(referencing) THEN sql END FROM sqlite_master WHERE "
            + conditions.joined(separator: " AND ")
        var current: [String: Table] = [:]
        var unread: [String] = []
        try db.forEachRow(sql: sql, arguments: arguments) { row in
            guard let name = row[0].string else { return }
            let key = name.sqlNameFolded
            guard let text = row[1].string else {
                current[key] = Table(name: name, sql: nil, parents: [])
                return
            }
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

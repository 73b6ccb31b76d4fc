import Foundation

/// The tables a migration wrote (`MigrationConnection.recordingWrittenTables`), and what
/// verifying only them means: `quick_check` of each, and `foreign_key_check` of each
/// and of every table whose foreign keys point at one of them (a deleted parent row
/// breaks its children, which were not written).
package struct ChangedTables: Sendable {
    /// The tables by folded name (`sqlNameFolded`), each with a spelling a statement
    /// used: SQLite accepts any spelling of a name, so that is what a table new to
    /// `ForeignKeyGraph` is asked by. The ledger, the history table and SQLite's own
    /// tables left out.
    private(set) var spellings: [String: String] = [:]
    /// The tables, folded as SQLite compares names.
    var names: Dictionary<String, String>.Keys { spellings.keys }
    /// Whether a table was renamed: a rename also rewrites the tables pointing at it.
    private(set) var renamesTable = false

    package init() {}

    /// Adds tables as `MigrationConnection.recordingWrittenTables` names them.
    package mutating func add(_ written: Set<String>, renamesTable: Bool = false) {
        for name in written {
            let folded = name.sqlNameFolded
            guard !folded.hasPrefix("sqlite_"), !SchemaDump.isBookkeeping(name) else { continue }
            spellings[folded] = name
        }
        self.renamesTable = self.renamesTable || renamesTable
    }

    mutating func add(_ other: ChangedTables) {
        spellings.merge(other.spellings) { _, newer in newer }
        renamesTable = renamesTable || other.renamesTable
    }

    var isEmpty: Bool { spellings.isEmpty }

    /// The changed tables that exist now (a step may drop one, or rename it away), as
    /// the schema spells them, sorted.
    package func existing(in db: some MigrationConnection) throws -> [String] {
        guard !names.isEmpty else { return [] }
        return try tableNames(in: db).filter { names.contains($0.sqlNameFolded) }
    }

    /// The tables whose foreign keys the change may have broken, as the schema spells
    /// them, sorted: the changed tables and every table with a foreign key to one.
    func foreignKeyScope(using graph: ForeignKeyGraph, in db: some MigrationConnection) throws -> [String] {
        guard !names.isEmpty else { return [] }
        return try graph.tables(affectedBy: self, in: db)
    }

    private func tableNames(in db: some MigrationConnection) throws -> [String] {
        try db.textColumn(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    }
}

/// Which tables have foreign keys to which, kept for a run. Built once from every
/// table's foreign-key list; after that a step re-reads only what it can have changed:
/// the tables it named, and after a table rename also every table whose text has
/// `REFERENCES` (a rename rewrites the foreign keys of the tables pointing at the
/// renamed one, and only a table with that word has foreign keys).
///
/// A step's own tables are looked up by name in the schema SQLite has loaded
/// (`loadedSchemaHasTable`, `PRAGMA foreign_key_list`), never by scanning the schema
/// table: it has no index by name, and a scan for each step that creates or alters a
/// table was most of the graph's cost (50 M of 66 M instructions over 300 small steps on
/// SQLCipher 3.4.1). Only a rename, whose new name no statement hands the authorizer,
/// scans.
package final class ForeignKeyGraph {
    private struct Table {
        /// As the schema or a statement spelled it; any spelling does for SQLite.
        let name: String
        /// The folded names of the tables its foreign keys point at.
        let parents: Set<String>
    }

    /// By folded name; nil until built.
    private var tables: [String: Table]?
    /// The folded names of the tables with a foreign key to each table, by its folded
    /// name: a step's affected tables are found without visiting every table.
    private var children: [String: Set<String>] = [:]
    private var schemaVersion: Int?

    package init() {}

    /// The changed tables and those with a foreign key to one of them, as the schema
    /// spells them, sorted.
    func tables(affectedBy changed: ChangedTables, in db: some MigrationConnection) throws -> [String] {
        let version = try db.fetchInteger(sql: "PRAGMA schema_version")
        if let known = tables {
            let named: [String]
            if changed.renamesTable {
                // The new names: only the schema table knows them.
                let fresh = try scan(db, alsoNamed: Set(changed.names))
                for name in changed.names where fresh[name] == nil { set(name, to: nil) }
                for (name, table) in fresh { set(name, to: table) }
                named = []
            } else if version != schemaVersion {
                named = Array(changed.names)
            } else {
                // No schema change: only a table the graph has not met yet (the new
                // name of a renamed table without foreign keys) needs reading.
                named = changed.names.filter { known[$0] == nil }
            }
            for key in named {
                // A name read and not found is gone (dropped, renamed away).
                set(key, to: try lookUp(changed.spellings[key] ?? known[key]?.name ?? key, in: db))
            }
        } else {
            tables = [:]
            for (name, table) in try scan(db, alsoNamed: nil) { set(name, to: table) }
        }
        schemaVersion = version
        var affected: Set<String> = []
        for name in changed.names {
            if let table = tables?[name] { affected.insert(table.name) }
            for child in children[name] ?? [] {
                if let table = tables?[child] { affected.insert(table.name) }
            }
        }
        return affected.sorted()
    }

    /// Records what is known of one table, keeping `children` in step.
    private func set(_ key: String, to table: Table?) {
        for parent in tables?[key]?.parents ?? [] { children[parent]?.remove(key) }
        tables?[key] = table
        for parent in table?.parents ?? [] { children[parent, default: []].insert(key) }
    }

    /// One table by name, from the loaded schema; nil when there is no such table.
    private func lookUp(_ name: String, in db: some MigrationConnection) throws -> Table? {
        guard try db.loadedSchemaHasTable(name) else { return nil }
        return Table(name: name, parents: try parents(of: name, in: db))
    }

    /// From the schema table, by folded name: every table when `names` is nil, else
    /// these and every table whose text has `REFERENCES`.
    private func scan(_ db: some MigrationConnection, alsoNamed names: Set<String>?) throws -> [String: Table] {
        // `instr(lower(…))` and not LIKE, which a migration can make case-sensitive.
        let referencing = "instr(lower(sql), 'references') > 0"
        var conditions = ["type = 'table'", "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"]
        var arguments: [String] = []
        if let names {
            arguments = names.sorted()
            // NOCASE folds ASCII only, as `sqlNameFolded` does (lower() may fold more).
            let named = "name COLLATE NOCASE IN (" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
            // The selective condition first: SQLite tests each row's conditions in order.
            conditions.insert(names.isEmpty ? referencing : "(\(named) OR \(referencing))", at: 0)
        }
        var found: [(name: String, hasForeignKeys: Bool)] = []
        try db.forEachTextRow(sql: "SELECT name, \(referencing) FROM sqlite_master WHERE " + conditions.joined(separator: " AND "),
                              arguments: arguments) { row in
            if let name = row[0] { found.append((name, row[1] == "1")) }
        }
        var result: [String: Table] = [:]
        for table in found {
            // Only a table whose text has `REFERENCES` can have a foreign key.
            result[table.name.sqlNameFolded] = Table(name: table.name, parents: table.hasForeignKeys ? try parents(of: table.name, in: db) : [])
        }
        return result
    }

    /// The folded names of the tables `table`'s foreign keys point at.
    private func parents(of table: String, in db: some MigrationConnection) throws -> Set<String> {
        // Bound where SQLite has pragma functions: one statement for the run. The
        // pragma's third column is the parent table.
        let parents = db.sqlite >= .pragmaFunctions
            ? try db.textColumn(sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [table])
            : try db.textRows(sql: "PRAGMA foreign_key_list(\(quoteIdentifier(table)))").compactMap { $0.count > 2 ? $0[2] : nil }
        return Set(parents.map(\.sqlNameFolded))
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

import Foundation
import MigrationKit

/// The tables a migration wrote (`SQLCipherDatabase.recordingWrittenTables`), and what
/// verifying only them means: `quick_check` of each, and `foreign_key_check` of each
/// and of every table whose foreign keys point at one of them (a deleted parent row
/// breaks its children, which were not written).
struct ChangedTables: Sendable {
    /// Lowercased; the ledger, the history table and SQLite's own tables left out.
    private(set) var names: Set<String> = []

    init() {}

    init(written: Set<String>) {
        add(written)
    }

    mutating func add(_ written: Set<String>) {
        let bookkeeping: Set<String> = [MigrationLedger.tableName.lowercased(), MigrationHistoryTable.name.lowercased()]
        names.formUnion(written.filter { !$0.hasPrefix("sqlite_") && !bookkeeping.contains($0) })
    }

    var isEmpty: Bool { names.isEmpty }

    /// The changed tables that exist now (a step may drop one, or rename it away), as
    /// the schema spells them, sorted.
    func existing(in db: SQLCipherDatabase) throws -> [String] {
        guard !names.isEmpty else { return [] }
        return try tableNames(in: db).filter { names.contains($0.lowercased()) }
    }

    /// The tables whose foreign keys the change may have broken, sorted; nil when the
    /// linked SQLite (before 3.16) cannot list them in one query, meaning all of them.
    func foreignKeyScope(in db: SQLCipherDatabase) throws -> [String]? {
        guard !names.isEmpty else { return [] }
        guard SQLCipherLibrary.hasPragmaFunctions else { return nil }
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let arguments = names.sorted().map { DatabaseValue.text($0) }
        return try db.fetchAll(
            sql: """
                SELECT m.name FROM sqlite_master AS m
                WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                  AND (lower(m.name) IN (\(placeholders))
                       OR EXISTS (SELECT 1 FROM pragma_foreign_key_list(m.name) AS f WHERE lower(f."table") IN (\(placeholders))))
                ORDER BY m.name
                """,
            arguments: arguments + arguments).compactMap { $0[0].string }
    }

    private func tableNames(in db: SQLCipherDatabase) throws -> [String] {
        try db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
    }
}

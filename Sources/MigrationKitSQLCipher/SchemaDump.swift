import MigrationKit

/// The schema as canonical SQL: every table, index, view and trigger, sorted by kind
/// and then by name (byte-wise), one statement each, so equal schemas give identical
/// text whatever order they were created in, and a diff shows real changes only.
///
/// Left out: SQLite's internal objects (`sqlite_*`, including automatic indexes) and
/// migration bookkeeping (the `grdb_migrations` ledger and MigrationKit's own tables),
/// since they say nothing about the app's schema.
public enum SchemaDump {
    /// Bookkeeping tables left out of dumps and schema comparisons.
    public static let bookkeepingTables: Set<String> = ["grdb_migrations", "migrationkit_history"]

    private static let kindOrder = ["table": 0, "index": 1, "view": 2, "trigger": 3]

    /// One schema object.
    public struct Object: Hashable, Sendable {
        public let type: String
        public let name: String
        public let tableName: String
        public let sql: String
    }

    /// The schema's objects in canonical order.
    /// - Parameter includingBookkeeping: keep the ledger and MigrationKit's tables
    ///   (for comparing whole copies of a database).
    public static func objects(in db: SQLCipherDatabase, includingBookkeeping: Bool = false) throws -> [Object] {
        var objects: [Object] = []
        try db.forEachRow(sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE sql IS NOT NULL") { row in
            let object = Object(
                type: row[0].string ?? "", name: row[1].string ?? "",
                tableName: row[2].string ?? "", sql: row[3].string ?? "")
            guard !object.name.lowercased().hasPrefix("sqlite_"),
                  includingBookkeeping || !bookkeepingTables.contains(object.tableName.lowercased())
            else { return }
            objects.append(object)
        }
        return objects.sorted { lhs, rhs in
            let left = kindOrder[lhs.type] ?? 9
            let right = kindOrder[rhs.type] ?? 9
            if left != right { return left < right }
            return lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
    }

    /// The canonical dump: each object's SQL with trailing whitespace trimmed and a `;`.
    public static func canonicalSQL(of db: SQLCipherDatabase) throws -> String {
        try objects(in: db).map { object in
            var sql = Substring(object.sql)
            while let last = sql.last, last.isWhitespace || last == ";" { sql.removeLast() }
            return sql + ";\n"
        }
        .joined()
    }
}

extension SchemaDump {
    /// The schema reduced to what SQLite means by it, for comparing two schemas built
    /// by different statements: comments and spacing dropped, names compared as SQLite
    /// compares them (case-insensitively, quoted or not: `CREATE TABLE "Books"` and
    /// `create table books` are the same table), string literals kept exactly. Two
    /// databases with equal comparable forms have the same tables, columns,
    /// constraints, indexes, views and triggers.
    public static func comparableForm(of db: SQLCipherDatabase) throws -> String {
        try objects(in: db)
            .map { object in
                "\(object.type) \(object.name.lowercased()): " + normalized(object.sql)
            }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .joined(separator: "\n")
    }

    /// One statement's tokens, normalised (see `comparableForm`).
    static func normalized(_ sql: String) -> String {
        SQLTokenizer.tokenize(sql)
            .filter { !$0.isTrivia }
            .map { token -> String in
                switch token.kind {
                case .word:
                    return token.text.lowercased()
                case .quotedIdentifier:
                    let name = token.nameValue ?? token.text
                    return isPlainIdentifier(name) ? name.lowercased() : token.text
                default:
                    return token.text
                }
            }
            .filter { $0 != ";" }
            .joined(separator: " ")
    }

    private static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}

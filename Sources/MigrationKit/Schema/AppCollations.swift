/// The collations a schema names that SQLite does not have built in: an app registers
/// each on every connection it opens (Anki's `unicase`), and no other program has it,
/// so SQLite cannot use an index ordered by one ("no such collation sequence"), nor
/// build one in a copy. The copying commands refuse such a database, naming the
/// collation and what uses it, unless a built-in collation stands in for it
/// (`CollationStandIn`).
package struct AppCollation: Hashable, Sendable {
    /// The collation's name, as the schema first spells it.
    package let name: String
    /// The tables and indexes whose SQL names it, in the schema's order.
    package let objects: [String]

    /// SQLite's own collations, which every connection has.
    package static let builtIn: Set<String> = ["binary", "nocase", "rtrim"]

    /// Whether the connection `db` has a collation named `name`: a stand-in, or one an
    /// extension or the host registered. Asked by comparing two constants with it
    /// (SQLite says "no such collation sequence" only when it is missing):
    /// `PRAGMA collation_list` also lists, without a comparison, every collation a schema
    /// it has read names.
    static func isRegistered(_ name: String, in db: some SQLQuerying) -> Bool {
        do {
            _ = try db.textColumn(sql: "SELECT 'a' = 'b' COLLATE \(quoteIdentifier(name))")
            return true
        } catch {
            return DatabaseChecks.appExtensionNeed(of: error, in: db)?.kind != .collation
        }
    }

    /// The collations of `named(in:)` the connection `db` does not have (`isRegistered`).
    package static func missing(in db: some SQLQuerying) throws -> [AppCollation] {
        try named(in: db).filter { !isRegistered($0.name, in: db) }
    }

    /// Every collation the main schema of `db` names (after `COLLATE`) that SQLite does
    /// not have built in.
    static func named(in db: some SQLQuerying) throws -> [AppCollation] {
        var order: [String] = []
        var spelled: [String: String] = [:]
        var objects: [String: [String]] = [:]
        try db.forEachTextRow(sql: "SELECT name, sql FROM main.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid", arguments: []) { row in
            guard let object = row[0], let sql = row[1] else { return }
            let code = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
            for (index, token) in code.enumerated() where token.isWord("COLLATE") && index + 1 < code.count {
                guard let name = code[index + 1].nameValue, !builtIn.contains(name.lowercased()) else { continue }
                let key = name.lowercased()
                if spelled[key] == nil {
                    spelled[key] = name
                    order.append(key)
                }
                if objects[key, default: []].last != object { objects[key, default: []].append(object) }
            }
        }
        return order.map { AppCollation(name: spelled[$0]!, objects: objects[$0] ?? []) }
    }
}

/// A built-in collation standing in for one only the app registers, while a copying
/// command reads the database and writes its copy (`--collation unicase=NOCASE`).
///
/// It orders text as the built-in does, not as the app's collation does: for text both
/// order alike (ASCII, for NOCASE standing in for a Unicode case-folding one) nothing
/// differs, for other text the copy's indexes ordered by the collation may be in another
/// order than the app's. So the command says which indexes those are, and the app
/// rebuilds them once it has registered its collation (`REINDEX name`).
package enum CollationStandIn: String, CaseIterable, Hashable, Sendable {
    /// Bytes compared as they are.
    case binary = "BINARY"
    /// The 26 ASCII capital letters folded to lower case first.
    case nocase = "NOCASE"
    /// Trailing spaces ignored.
    case rtrim = "RTRIM"
}

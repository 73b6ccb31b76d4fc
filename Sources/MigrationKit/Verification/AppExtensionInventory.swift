/// What a database's schema uses that only its app registers and the connection at hand
/// lacks (`AppExtensionNeed`), by where a statement meets it: writing a table runs its
/// triggers (which call the app's functions, or write a full-text index that needs its
/// tokenizer); naming a full-text index or a view uses it; and `ALTER TABLE … RENAME` or
/// `DROP COLUMN`, on any table, makes SQLite parse every trigger again, which loads each
/// index a trigger writes. So lint can say, before a migration or its rollback runs,
/// which statement will fail for want of the app's extension (`--load-extension`).
///
/// Found by asking the connection, never by running anything of the app's: each
/// full-text index is searched (which needs its tokenizer) and each other virtual table
/// read for no row (which loads its module), each function a trigger or view calls is
/// named in a query that never calls it (which says "no such function" only when it is
/// missing), and each collation the schema names is used to compare two constants
/// (`AppCollation.isRegistered`).
struct AppExtensionInventory: Sendable {
    /// One object of the schema and what it needs.
    struct Use: Hashable, Sendable {
        /// The trigger, view, index or table, as the schema names it.
        let object: String
        let need: AppExtensionNeed
        /// For a trigger, the write that fires it (`INSERT`, `UPDATE` or `DELETE`); nil
        /// for what every write meets.
        var event: String? = nil

        /// Whether a write of `verb` (`INSERT`, `UPDATE`, `DELETE`) meets it.
        func isMet(by verb: String) -> Bool { event == nil || event == verb }
    }

    /// By table (lower-cased): what writing it runs that needs what is missing.
    var onWrite: [String: [Use]] = [:]
    /// By full-text index or view (lower-cased): what a statement naming it needs.
    var onUse: [String: [Use]] = [:]
    /// What SQLite's check of the whole schema after a rename or a dropped column meets.
    var onSchemaCheck: [Use] = []

    init() {}

    /// Whether nothing the schema uses is missing.
    package var isEmpty: Bool { onWrite.isEmpty && onUse.isEmpty && onSchemaCheck.isEmpty }

    /// What `db`'s main schema uses that `db` lacks.
    static func reading(_ db: some SQLQuerying) throws -> AppExtensionInventory {
        var inventory = AppExtensionInventory()
        let objects = try db.textRows(sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        // What each virtual table needs and lacks: to be searched or written (a full-text
        // index's tokenizer: a search of its index), and, apart, to be connected at all,
        // which is all a trigger naming it needs when SQLite parses the schema again
        // (FTS5 loads its tokenizer only when it tokenizes, from SQLite 3.53 on; FTS4
        // when it connects).
        func need(_ sql: String) -> AppExtensionNeed? {
            do {
                _ = try db.textColumn(sql: sql)
                return nil
            } catch {
                return DatabaseChecks.appExtensionNeed(of: error, in: db)
            }
        }
        var missingIndexes: [String: AppExtensionNeed] = [:]
        var unconnectable: Set<String> = []
        for row in objects where row[0] == "table" {
            guard let name = row[1], let sql = row[3], let definition = TableDefinition(sql: sql), definition.isVirtual else { continue }
            let table = quoteIdentifier(name)
            let isFullText = ["fts3", "fts4", "fts5"].contains(definition.module ?? "")
            guard let missing = need(isFullText ? "SELECT 1 FROM main.\(table) WHERE \(table) MATCH 'x' LIMIT 1" : "SELECT 1 FROM main.\(table) WHERE 0")
            else { continue }
            missingIndexes[name.lowercased()] = missing
            let use = Use(object: name, need: missing)
            inventory.onUse[name.lowercased(), default: []].append(use)
            inventory.onWrite[name.lowercased(), default: []].append(use)
            // Prepared only: on a look's query-only connection it writes nothing.
            if !isFullText || need("INSERT INTO main.\(table)(\(table)) SELECT NULL WHERE 0") != nil { unconnectable.insert(name.lowercased()) }
        }
        var functionIsMissing: [String: Bool] = [:]
        func missingFunctions(in sql: String) -> [AppExtensionNeed] {
            calledFunctions(in: sql).compactMap { name in
                let key = name.lowercased()
                if functionIsMissing[key] == nil {
                    do {
                        _ = try db.textColumn(sql: "SELECT \(quoteIdentifier(name))() WHERE 0")
                        functionIsMissing[key] = false
                    } catch {
                        functionIsMissing[key] = DatabaseChecks.appExtensionNeed(of: error, in: db)?.kind == .function
                    }
                }
                return functionIsMissing[key] == true ? AppExtensionNeed(.function, name) : nil
            }
        }
        for row in objects where row[0] == "trigger" || row[0] == "view" {
            guard let name = row[1], let table = row[2], let sql = row[3] else { continue }
            let named = Set(SQLTokenizer.tokenize(sql).compactMap { $0.isTrivia ? nil : $0.nameValue?.lowercased() })
            let indexUses = missingIndexes.filter { named.contains($0.key) }.sorted { $0.key < $1.key }.map { Use(object: name, need: $0.value) }
            let uses = indexUses + missingFunctions(in: sql).map { Use(object: name, need: $0) }
            guard !uses.isEmpty else { continue }
            if row[0] == "trigger" {
                let event = triggerEvent(sql)
                inventory.onWrite[table.lowercased(), default: []] += uses.map { Use(object: $0.object, need: $0.need, event: event) }
                inventory.onSchemaCheck += missingIndexes.filter { named.contains($0.key) && unconnectable.contains($0.key) }
                    .sorted { $0.key < $1.key }.map { Use(object: name, need: $0.value) }
            } else {
                inventory.onUse[name.lowercased(), default: []] += uses
            }
        }
        let tableOf = Dictionary(objects.compactMap { row in row[1].map { ($0.lowercased(), row[2] ?? $0) } }, uniquingKeysWith: { first, _ in first })
        for collation in try AppCollation.missing(in: db) {
            for object in collation.objects {
                let table = tableOf[object.lowercased()] ?? object
                inventory.onWrite[table.lowercased(), default: []].append(Use(object: object, need: AppExtensionNeed(.collation, collation.name)))
            }
        }
        return inventory
    }

    /// The write that fires a trigger: `INSERT`, `UPDATE` or `DELETE`, the first of them
    /// before `ON`; nil when it cannot be told.
    static func triggerEvent(_ sql: String) -> String? {
        for token in SQLTokenizer.tokenize(sql) where !token.isTrivia {
            if token.isWord("ON") { return nil }
            for verb in ["INSERT", "UPDATE", "DELETE"] where token.isWord(verb) { return verb }
        }
        return nil
    }

    /// The names a statement calls as functions, `name(`: not keywords, and not the
    /// table a `FROM`, `INTO`, `TABLE`, `JOIN`, `ON`, `UPDATE`, `USING` or `REFERENCES`
    /// names before its column list.
    static func calledFunctions(in sql: String) -> [String] {
        let tokens = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
        let namingTables: Set<String> = ["FROM", "INTO", "TABLE", "JOIN", "ON", "UPDATE", "USING", "REFERENCES", "INDEX", "VIEW", "TRIGGER", "EXISTS"]
        var names: [String] = []
        for index in tokens.indices.dropLast() where tokens[index + 1].isSymbol("(") {
            let token = tokens[index]
            guard token.kind == .word || token.kind == .quotedIdentifier, let name = token.nameValue,
                  token.kind == .quotedIdentifier || !SQLKeywords.all.contains(name.uppercased()) else { continue }
            if index > 0, let previous = tokens[index - 1].nameValue, tokens[index - 1].kind == .word, namingTables.contains(previous.uppercased()) { continue }
            if index > 1, tokens[index - 1].isSymbol("."), let previous = tokens[index - 3 < 0 ? 0 : index - 3].nameValue,
               namingTables.contains(previous.uppercased()) { continue }
            if !names.contains(where: { $0.lowercased() == name.lowercased() }) { names.append(name) }
        }
        return names
    }
}

/// What the migrations linted so far in one batch did to tables and views.
///
/// A batch of pending migrations runs in order against one database, so a table
/// created by 0001 and dropped by 0005 never held the database's data, and a view
/// dropped by 0003 no longer blocks a rename in 0004. Rules read this state before
/// each statement; the linter records the statement afterwards.
struct BatchSchema {
    /// A statement of the batch as a finding names it: its migration, its kind, and
    /// where it is, so a person finds it in a batch of files written years apart.
    struct Statement: Hashable {
        /// The migration's identifier.
        let migration: String
        /// What it is, as written: `INSERT`, `REPLACE`, `CREATE TABLE … AS SELECT`.
        let kind: String
        /// The file, as findings name it.
        let path: String
        /// The file line of its first word.
        let line: Int

        /// `migration "0001_seed" (the INSERT at migrations/0001_seed.sql:4)`.
        var described: String {
            "migration \"\(migration)\" (the \(kind) at \(path):\(line))"
        }
    }

    /// Where a table known to the batch came from.
    enum TableOrigin: Hashable {
        /// Created by an earlier statement; `filledBy` the first that put rows in it
        /// (an `INSERT`, or the `CREATE TABLE … AS SELECT` itself), nil while none did.
        case created(filledBy: Statement?)
        /// An existing table of the database, renamed by the batch; the name is the
        /// one the database knows it by.
        case renamed(fromDatabaseName: String)
    }

    /// A view created by the batch: its name as written and its body's tokens.
    struct View {
        let name: String
        let body: [SQLToken]
    }

    /// Tables created or renamed by the batch, by lowercased name.
    private(set) var tables: [String: TableOrigin] = [:]
    /// Tables the batch dropped and has not created again: lowercased name → name
    /// as written. Views still referencing them are left without their table.
    private(set) var droppedTables: [String: String] = [:]
    /// Tables the batch renamed to something else (and has not created again), by
    /// lowercased name: gone, but their views moved with them where SQLite does that.
    private(set) var renamedAwayTables: Set<String> = []
    /// For each table the batch renamed, by its new lowercased name: the names it had
    /// before (a chain of renames, oldest first). From SQLite 3.25 a rename takes the
    /// views referring to the table along, so they refer to the new name afterwards.
    private(set) var formerNames: [String: [String]] = [:]
    /// Views created by the batch and not dropped, by lowercased name.
    private(set) var views: [String: View] = [:]
    /// Views the batch dropped (whether or not it recreated them), by lowercased name:
    /// the database's definition of them no longer applies.
    private(set) var droppedViews: Set<String> = []
    /// Tables whose rows an earlier statement copied elsewhere (`INSERT … SELECT … FROM t`,
    /// `CREATE TABLE … AS SELECT … FROM t`), by lowercased name: the 12-step procedure
    /// copies a table's rows into its replacement before dropping it, which loses nothing.
    private(set) var copiedOutTables: Set<String> = []

    /// Updates the state with a top-level statement of an up section that ran.
    /// - Parameters:
    ///   - migration: the identifier of the migration it belongs to.
    ///   - section: the section that holds it, for its file and line.
    mutating func record(_ statement: StatementReader, of migration: String, in section: SQLSection, context: LintContext) {
        func located(_ kind: String) -> Statement {
            Statement(migration: migration, kind: kind, path: section.path,
                      line: section.fileLine(forSectionLine: statement.statement.startLine))
        }
        switch statement.shape {
        case .createTable(let name, _, let isAsSelect, let ifNotExists):
            if ifNotExists, tables[name.key] == nil, !isGone(name.key), context.rowCount(name.name) != 0 {
                // The table may already exist with its rows; IF NOT EXISTS then does nothing.
                return
            }
            tables[name.key] = .created(filledBy: isAsSelect ? located("CREATE TABLE … AS SELECT") : nil)
            forgetGone(name.key)
            formerNames.removeValue(forKey: name.key)
            if isAsSelect { copiedOutTables.formUnion(Self.sourceTables(statement.tokens)) }
        case .insert(let name):
            if case .created(nil) = tables[name.key] {
                tables[name.key] = .created(filledBy: located(statement.tokens[0].text.uppercased()))
            }
            copiedOutTables.formUnion(Self.sourceTables(statement.tokens).subtracting([name.key]))
        case .alterTable(let name, .renameTable(let newName)):
            let origin = tables.removeValue(forKey: name.key) ?? .renamed(fromDatabaseName: name.name)
            tables[newName.key] = origin
            forgetGone(newName.key)
            renamedAwayTables.insert(name.key)
            formerNames[newName.key] = (formerNames.removeValue(forKey: name.key) ?? []) + [name.name]
        case .dropTable(let name):
            tables.removeValue(forKey: name.key)
            droppedTables[name.key] = name.name
            copiedOutTables.remove(name.key)
        case .createView(let name, let body):
            views[name.key] = View(name: name.name, body: Array(statement.tokens[body]))
        case .dropView(let name):
            views.removeValue(forKey: name.key)
            droppedViews.insert(name.key)
        default:
            break
        }
    }

    private func isGone(_ key: String) -> Bool {
        droppedTables[key] != nil || renamedAwayTables.contains(key)
    }

    private mutating func forgetGone(_ key: String) {
        droppedTables.removeValue(forKey: key)
        renamedAwayTables.remove(key)
    }

    /// What is known about the rows `table` holds when the statement runs.
    enum TableContents: Hashable {
        /// Created by the batch and nothing put rows in it, or dropped by it already.
        case empty
        /// The database's table, with this many rows.
        case rows(Int)
        /// Created by the batch, then filled by this statement (the first that put rows
        /// in it: an INSERT, or CREATE TABLE … AS SELECT).
        case filledByBatch(Statement)
        /// No database, or the database could not say.
        case unknown
    }

    func contents(of table: NameReference, context: LintContext) -> TableContents {
        let databaseName: String
        switch tables[table.key] {
        case .created(let filledBy)?:
            return filledBy.map(TableContents.filledByBatch) ?? .empty
        case .renamed(let name)?:
            databaseName = name
        case nil:
            if isGone(table.key) { return .empty }
            databaseName = table.name
        }
        guard let count = context.rowCount(databaseName) else { return .unknown }
        return count > 0 ? .rows(count) : .empty
    }

    /// Names of views that reference the table `name` once the batch has run so far:
    /// the database's (minus those the batch dropped) and the batch's own, sorted.
    ///
    /// - Parameter followingRenames: views that referred to the table under a name it
    ///   had before a rename refer to it now (SQLite 3.25 and later).
    func views(referencing name: String, context: LintContext, followingRenames: Bool = true) -> [String] {
        let tableNames = [name] + (followingRenames ? formerNames[NameReference.key(name)] ?? [] : [])
        var names: [String: String] = [:]
        for tableName in tableNames {
            let tableKey = NameReference.key(tableName)
            for view in context.viewsReferencing(tableName) where !droppedViews.contains(NameReference.key(view)) {
                names[NameReference.key(view)] = view
            }
            for (key, view) in views where Self.mentions(view.body, tableKey) {
                names[key] = view.name
            }
        }
        return names.values.sorted()
    }

    /// Views left referencing a table the batch dropped, with that table's name,
    /// ordered by table then view.
    func viewsWithoutTheirTable(context: LintContext) -> [(view: String, table: String)] {
        droppedTables.sorted { $0.key < $1.key }.flatMap { _, table in
            // A table renamed and then dropped took its views along to the name dropped.
            views(referencing: table, context: context).map { (view: $0, table: table) }
        }
    }

    /// Whether an earlier statement of the batch copied `table`'s rows elsewhere.
    func rowsWereCopiedOut(of table: NameReference) -> Bool {
        copiedOutTables.contains(table.key)
    }

    /// The tables a statement reads rows from: the names after FROM and JOIN
    /// (a schema prefix such as `main.t` is skipped to the table name).
    static func sourceTables(_ tokens: [SQLToken]) -> Set<String> {
        var sources = Set<String>()
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            guard tokens[index].isWord("FROM") || tokens[index].isWord("JOIN"), index + 1 < tokens.count else { continue }
            var nameIndex = index + 1
            if nameIndex + 2 < tokens.count, tokens[nameIndex + 1].isSymbol(".") { nameIndex += 2 }
            let token = tokens[nameIndex]
            guard token.kind == .word || token.kind == .quotedIdentifier, let name = token.nameValue else { continue }
            sources.insert(NameReference.key(name))
        }
        return sources
    }

    private static func mentions(_ tokens: [SQLToken], _ key: String) -> Bool {
        tokens.contains { token in
            guard token.kind == .word || token.kind == .quotedIdentifier, let name = token.nameValue else { return false }
            return NameReference.key(name) == key
        }
    }
}

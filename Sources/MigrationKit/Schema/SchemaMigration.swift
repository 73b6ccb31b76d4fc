/// The migration that turns one schema into another, written the way sqlite.org's
/// `ALTER TABLE` page says to: new tables, indexes, views and triggers by their own
/// statements; a column added at the end by `ALTER TABLE … ADD COLUMN`, or dropped by
/// `DROP COLUMN`, where the SQLite it must run on allows it; every other change to a
/// table by the 12-step rebuild (new table under a temporary name, copy of the columns
/// both have, drop, rename, then its indexes, triggers and the views that read it made
/// again, and `ANALYZE` of it when the database had statistics for it). The runner's
/// foreign-key handling (`PRAGMA foreign_keys = OFF` around the transaction,
/// `foreign_key_check` before commit) is what makes the rebuild safe for the tables
/// that point at the rebuilt one.
///
/// Renames are never guessed: a table or column that one schema has and the other has
/// not is a drop and an add, and a drop is named in `destructiveChanges`, unless the
/// desired schema declares the rename with sqldef's `-- @renamed from=OLD` comment
/// (`SchemaRenames`); then `ALTER TABLE … RENAME TO`, `RENAME COLUMN` (SQLite 3.25), or a
/// rebuild that copies the old column into the new.
///
/// Over any `SQLQuerying`, so a GRDB app can write the migration between its writer and
/// a scratch database holding the schema it wants. The statements are not run here:
/// `migrationkit diff --to` proves them on scratch copies before it shows them.
public struct SchemaMigration: Hashable, Sendable {
    /// The statements that turn the current schema into the desired one, in order.
    public let up: [String]
    /// The statements that turn it back.
    public let down: [String]
    /// One phrase per change of `up` that can lose rows or values ("drops table notes"),
    /// for a caller to refuse unless asked.
    public let destructiveChanges: [String]

    /// Whether the schemas are the same (nothing to migrate).
    public var isEmpty: Bool { up.isEmpty }

    /// The migration as a dbmate-style file, as `migrationkit new` writes one.
    package var fileText: String {
        "-- migrate:up\n\(upText)\n\n-- migrate:down\n\(downText)\n"
    }

    /// The up section's statements, one a line, each ended by `;`: the body of the
    /// file's up section, or of an `.up.sql` file.
    package var upText: String { Self.text(of: up) }
    /// The down section's statements, as `upText` has the up section's.
    package var downText: String { Self.text(of: down) }

    private static func text(of statements: [String]) -> String {
        statements.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n")
    }

    /// The migration from `current`'s schema to `desired`'s.
    /// - Parameters:
    ///   - current: the database as it is (only read; its rows decide which changes
    ///     lose data).
    ///   - desired: a database holding the schema wanted, with its `@renamed`
    ///     comments (a scratch database the schema file ran on).
    ///   - oldestSQLite: the oldest SQLite the migration must run on (the linked one,
    ///     or an older `--min-sqlite`): `RENAME COLUMN` needs 3.25, `DROP COLUMN` 3.35.
    public static func between(current: some SQLQuerying, desired: some SQLQuerying, oldestSQLite: SQLiteVersion) throws -> SchemaMigration {
        try between(current: SchemaSnapshot(reading: current), desired: SchemaSnapshot(reading: desired), oldestSQLite: oldestSQLite) { table, column in
            try current.textColumn(sql: "SELECT EXISTS (SELECT 1 FROM main.\(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NULL)").first == "1"
        }
    }

    /// - Parameter holdsNull: whether the current database has a row whose `column` of
    ///   `table` is NULL: asked only of a column that is to become NOT NULL without a
    ///   default, which that row would fail.
    package static func between(current: SchemaSnapshot, desired: SchemaSnapshot, oldestSQLite: SQLiteVersion,
                                holdsNull: (_ table: String, _ column: String) throws -> Bool) throws -> SchemaMigration {
        let abilities = SchemaMigrationPlan.Abilities(oldestSQLite: oldestSQLite)
        let renames = SchemaRenames(declaredIn: desired, over: current)
        let up = try SchemaMigrationPlan(from: current, to: desired, renames: renames, abilities: abilities, holdsNull: holdsNull)
        // Going back is the migration's own undo: what it loses is not asked about.
        let down = try SchemaMigrationPlan(from: desired, to: current, renames: renames.reversed, abilities: abilities, holdsNull: { _, _ in false })
        return SchemaMigration(up: up.statements, down: down.statements, destructiveChanges: up.destructiveChanges)
    }
}

/// One direction of a `SchemaMigration`: the statements from one snapshot to another.
extension SchemaMigration {
    /// For a full-text index over another table's rows (FTS4 or FTS5 with `content=`),
    /// the `'rebuild'` command that fills it from them, as their documentation says, so
    /// it does not start empty; nil for any other table.
    package static func fill(_ table: SchemaDump.Object) -> String? {
        let tokens = SQLTokenizer.tokenize(table.sql).filter { !$0.isTrivia }
        let isFullText = tokens.contains { $0.isWord("FTS5") || $0.isWord("FTS4") }
        let hasContentTable = tokens.indices.contains { index in
            tokens[index].isWord("CONTENT") && index + 2 < tokens.count && tokens[index + 1].isSymbol("=")
                && !(tokens[index + 2].nameValue ?? "").isEmpty
        }
        guard isFullText, hasContentTable else { return nil }
        let name = quoteIdentifier(table.name)
        return "INSERT INTO \(name)(\(name)) VALUES ('rebuild')"
    }
}

struct SchemaMigrationPlan {
    private(set) var statements: [String] = []
    private(set) var destructiveChanges: [String] = []

    /// What the oldest SQLite the migration must run on can do.
    struct Abilities {
        let renameColumn: Bool
        let dropColumn: Bool

        init(oldestSQLite: SQLiteVersion) {
            // Lint's catalog of SQLite's features says from which release.
            renameColumn = SQLFeature.renameColumn.addedIn <= oldestSQLite
            dropColumn = SQLFeature.dropColumn.addedIn <= oldestSQLite
        }
    }

    private enum TableChange {
        /// Only renamed (the table, or columns by `RENAME COLUMN`).
        case none
        case addColumns([String])
        case dropColumns([String])
        case rebuild
    }

    /// A changed table: the statements `RENAME COLUMN` runs first (when SQLite has it),
    /// then its change.
    private struct ChangedTable {
        let old: SchemaDump.Object
        let new: SchemaDump.Object
        let columnRenames: [SchemaRenames.Rename]
        let renamesColumnsFirst: Bool
        let change: TableChange
    }

    init(from current: SchemaSnapshot, to desired: SchemaSnapshot, renames: SchemaRenames, abilities: Abilities,
         holdsNull: (_ table: String, _ column: String) throws -> Bool) throws {
        func key(_ object: SchemaDump.Object) -> String { object.type + " " + object.name.lowercased() }
        // A renamed table of the current schema is matched with its new name.
        func currentKey(_ object: SchemaDump.Object) -> String {
            object.type == "table" ? "table " + renames.desiredName(ofTable: object.name).lowercased() : key(object)
        }
        let before = Dictionary(current.objects.map { (currentKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(desired.objects.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        func same(_ lhs: SchemaDump.Object, _ rhs: SchemaDump.Object) -> Bool {
            let sql = lhs.type == "index" ? renames.indexSQLAfterRenames(lhs) : lhs.sql
            return SQLCanonicalText.canonical(sql) == SQLCanonicalText.canonical(rhs.sql)
        }
        let removed = current.objects.filter { after[currentKey($0)] == nil }
        let added = desired.objects.filter { before[key($0)] == nil }
        let changed = desired.objects.compactMap { object in before[key(object)].flatMap { same($0, object) ? nil : ($0, object) } }

        // Tables: what each changed one needs.
        var tableChanges: [ChangedTable] = []
        var recreatedVirtual: [(old: SchemaDump.Object, new: SchemaDump.Object)] = []
        for (old, new) in changed where new.type == "table" {
            guard var oldDefinition = TableDefinition(sql: old.sql), let newDefinition = TableDefinition(sql: new.sql),
                  !oldDefinition.isVirtual, !newDefinition.isVirtual else {
                recreatedVirtual.append((old, new))
                continue
            }
            let columnRenames = renames.columns(ofTable: new.name)
            var renamesColumnsFirst = !columnRenames.isEmpty && abilities.renameColumn
            if renamesColumnsFirst { oldDefinition = TableDefinition(sql: oldDefinition.renamingColumns(renames.columnMap(ofTable: new.name)))! }
            let isRenamed = !columnRenames.isEmpty || old.name.lowercased() != new.name.lowercased()
            let change = !columnRenames.isEmpty && !renamesColumnsFirst ? .rebuild
                : Self.change(from: oldDefinition, to: newDefinition, isRenamed: isRenamed, in: current, canDropColumn: abilities.dropColumn)
            // A table rebuilt anyway has its columns renamed by the copy.
            if case .rebuild = change { renamesColumnsFirst = false }
            tableChanges.append(ChangedTable(old: old, new: new, columnRenames: columnRenames, renamesColumnsFirst: renamesColumnsFirst, change: change))
        }
        // A rebuilt table goes by both names, in case it is renamed too.
        let rebuilt = Set(tableChanges.filter { if case .rebuild = $0.change { return true } else { return false } }
            .flatMap { [$0.old.name.lowercased(), $0.new.name.lowercased()] })
        let gone = rebuilt
            .union(removed.filter { $0.type == "table" }.map { $0.name.lowercased() })
            .union(recreatedVirtual.map { $0.old.name.lowercased() })

        // Views and triggers that read a table about to go (or be rebuilt), or a view
        // about to change, are dropped first and made again last: `ALTER TABLE … RENAME`
        // refuses a schema whose views name a missing table.
        var remade = Set(changed.filter { $0.1.type == "view" || $0.1.type == "trigger" }.map { key($0.1) })
        // SQLite before 3.26 leaves a view's SQL naming a renamed table as it was.
        var unreadable = gone.union(changed.filter { $0.1.type == "view" }.map { $0.1.name.lowercased() })
            .union(removed.filter { $0.type == "view" }.map { $0.name.lowercased() })
            .union(renames.tables.map { $0.from.lowercased() })
        var grew = true
        while grew {
            grew = false
            for object in current.objects where (object.type == "view" || object.type == "trigger") && !remade.contains(key(object)) {
                let tokens = SQLTokenizer.tokenize(object.sql)
                let readsGone = tokens.contains { $0.nameValue.map { unreadable.contains($0.lowercased()) } ?? false }
                if readsGone || gone.contains(object.tableName.lowercased()) {
                    remade.insert(key(object))
                    if object.type == "view" { unreadable.insert(object.name.lowercased()) }
                    grew = true
                }
            }
        }

        // 1. Triggers, then views, that go or are remade, latest first.
        for type in ["trigger", "view"] {
            for object in current.objects.reversed() where object.type == type && (after[key(object)] == nil || remade.contains(key(object))) {
                statements.append("DROP \(type.uppercased()) \(quoteIdentifier(object.name))")
            }
        }
        // 2. Indexes that go or change, unless their table goes with them.
        for object in current.objects where object.type == "index" && !gone.contains(object.tableName.lowercased()) {
            if let new = after[key(object)], same(object, new) { continue }
            statements.append("DROP INDEX \(quoteIdentifier(object.name))")
        }
        // 3. Tables that go, and virtual tables that are made again.
        // A drop beside an add may be an undeclared rename: only then is one suggested.
        let tablesAppear = added.contains { $0.type == "table" }
        for object in removed.reversed() where object.type == "table" {
            statements.append("DROP TABLE \(quoteIdentifier(object.name))")
            destructiveChanges.append("drops table \(object.name)" + (tablesAppear ? Self.renameHint(object.name, "table") : ""))
        }
        for (old, new) in recreatedVirtual {
            statements.append("DROP TABLE \(quoteIdentifier(old.name))")
            statements.append(new.sql)
            // A full-text index over another table's rows is filled again from them
            // (`fill`): nothing is lost. Any other virtual table starts empty.
            if SchemaMigration.fill(new) == nil { destructiveChanges.append("makes virtual table \(old.name) again, which empties it") }
        }
        // 4. Renamed tables under their new names, new tables, then changed ones.
        for rename in renames.tables {
            statements.append("ALTER TABLE \(quoteIdentifier(rename.from)) RENAME TO \(quoteIdentifier(rename.to))")
        }
        for object in added where object.type == "table" { statements.append(object.sql) }
        for changedTable in tableChanges {
            let (old, new) = (changedTable.old, changedTable.new)
            let oldColumns = current.columns[old.name.lowercased()] ?? []
            let newColumns = desired.columns[new.name.lowercased()] ?? []
            let columnMap = renames.columnMap(ofTable: new.name)
            destructiveChanges += try Self.losses(table: old.name, from: oldColumns, to: newColumns, renamed: columnMap,
                                                  hasRows: current.tablesWithRows.contains(old.name.lowercased()),
                                                  strict: TableDefinition(sql: new.sql)?.isStrict ?? false, holdsNull: holdsNull)
            let table = quoteIdentifier(new.name)
            var sourceColumns = oldColumns
            if changedTable.renamesColumnsFirst {
                statements += changedTable.columnRenames.map { "ALTER TABLE \(table) RENAME COLUMN \(quoteIdentifier($0.from)) TO \(quoteIdentifier($0.to))" }
                sourceColumns = oldColumns.map { column in
                    SchemaSnapshot.Column(name: columnMap[column.name.lowercased()] ?? column.name, declaredType: column.declaredType,
                                          notNull: column.notNull, defaultValue: column.defaultValue, primaryKeyPosition: column.primaryKeyPosition)
                }
            }
            switch changedTable.change {
            case .none:
                break
            case .addColumns(let definitions):
                statements += definitions.map { "ALTER TABLE \(table) ADD COLUMN \($0)" }
            case .dropColumns(let names):
                statements += names.map { "ALTER TABLE \(table) DROP COLUMN \(quoteIdentifier($0))" }
            case .rebuild:
                statements += Self.rebuild(new.name, as: new.sql, from: sourceColumns, to: newColumns,
                                           renamed: changedTable.renamesColumnsFirst ? [:] : columnMap,
                                           keeping: RebuildKeeps(old: old.sql, new: new.sql))
            }
        }
        // A new full-text index over another table's rows is filled from them, once
        // every table is there.
        statements += (added + recreatedVirtual.map(\.new)).filter { $0.type == "table" }.compactMap(SchemaMigration.fill)
        // 5. Indexes, views and triggers that are new, changed, or were dropped above,
        //    in the order the desired schema made them.
        for type in ["index", "view", "trigger"] {
            for object in desired.objects where object.type == type {
                let old = before[key(object)]
                let onRebuiltTable = type != "view" && gone.contains(object.tableName.lowercased())
                if old == nil || !same(old!, object) || remade.contains(key(object)) || onRebuiltTable {
                    statements.append(object.sql)
                }
            }
        }
        // 6. A rebuilt table that had statistics is analysed again, its indexes now back:
        //    the old table's `DROP TABLE` deleted its `sqlite_stat1` rows, and the query
        //    planner would otherwise guess until someone ran `ANALYZE`. The database read
        //    is `current` going up and `desired` coming back down; a scratch schema has none.
        for changedTable in tableChanges {
            guard case .rebuild = changedTable.change,
                  current.tablesWithStatistics.contains(changedTable.old.name.lowercased())
                    || desired.tablesWithStatistics.contains(changedTable.new.name.lowercased()) else { continue }
            statements.append("ANALYZE \(quoteIdentifier(changedTable.new.name))")
        }
    }


    /// How a table's definition changes: columns added at the end or dropped, where
    /// `ALTER TABLE` can do it and gives the same definition; otherwise a rebuild.
    private static func change(from old: TableDefinition, to new: TableDefinition, isRenamed: Bool,
                               in current: SchemaSnapshot, canDropColumn: Bool) -> TableChange {
        guard old.options == new.options else { return .rebuild }
        let oldItems = old.items.map(\.canonical)
        let newItems = new.items.map(\.canonical)
        if isRenamed, oldItems == newItems { return .none }
        if newItems.count > oldItems.count, Array(newItems.prefix(oldItems.count)) == oldItems {
            let addedItems = new.items[oldItems.count...]
            if addedItems.allSatisfy(canBeAdded) { return .addColumns(addedItems.map(\.text)) }
            return .rebuild
        }
        // Columns dropped from anywhere, the rest in order.
        guard canDropColumn, newItems.count < oldItems.count else { return .rebuild }
        var remaining = newItems[...]
        var dropped: [TableDefinition.Item] = []
        for item in old.items {
            if remaining.first == item.canonical { remaining = remaining.dropFirst() } else { dropped.append(item) }
        }
        guard remaining.isEmpty, dropped.allSatisfy({ canBeDropped($0, keeping: new.items, in: current) }) else { return .rebuild }
        return .dropColumns(dropped.compactMap(\.columnName))
    }

    /// `ADD COLUMN` refuses a primary key, a unique or generated-stored column, a
    /// `NOT NULL` column without a constant default, and (with foreign keys on) a
    /// reference with a default; what it cannot do surely is rebuilt instead.
    private static func canBeAdded(_ item: TableDefinition.Item) -> Bool {
        guard item.columnName != nil, !item.has(anyOf: ["PRIMARY", "UNIQUE", "REFERENCES", "GENERATED", "AS"]) else { return false }
        guard let defaultIndex = item.tokens.firstIndex(where: { $0.isWord("DEFAULT") }) else {
            return !item.has(anyOf: ["NOT"])
        }
        let value = item.tokens.dropFirst(defaultIndex + 1).first { !$0.isSymbol("-") && !$0.isSymbol("+") }
        switch value?.kind {
        case .number?, .string?, .blob?: return true
        case .word?: return value!.isWord("NULL") ? !item.has(anyOf: ["NOT"]) : value!.isWord("TRUE") || value!.isWord("FALSE")
        default: return false
        }
    }

    /// `DROP COLUMN` refuses a key, unique, indexed or referenced column, or one that a
    /// constraint, generated column, view or trigger names; any mention is left to a
    /// rebuild.
    private static func canBeDropped(_ item: TableDefinition.Item, keeping: [TableDefinition.Item], in current: SchemaSnapshot) -> Bool {
        guard let name = item.columnName, !item.has(anyOf: ["PRIMARY", "UNIQUE", "REFERENCES", "GENERATED", "AS", "CHECK"]) else { return false }
        if keeping.contains(where: { $0.mentions(name) }) { return false }
        return !current.objects.contains { object in
            object.type != "table" && SQLTokenizer.tokenize(object.sql).contains { $0.nameValue?.lowercased() == name.lowercased() }
        }
    }

    /// What a rebuild keeps beyond the columns' values: each an identity other rows,
    /// other tables or the app may hold.
    struct RebuildKeeps {
        /// The names that read the rowid in the old table and in the new one, when both
        /// have rowids (`TableDefinition.rowidName`): each row keeps its rowid, which the
        /// copy alone would renumber where the new table has no `INTEGER PRIMARY KEY`
        /// copied from the old one (an FTS index over the table points at rowids).
        let rowids: (old: String, new: String)?
        /// Both tables are `AUTOINCREMENT`: the new one takes the old one's
        /// `sqlite_sequence` value, which the copy alone would lower to its largest id,
        /// so that the ids of deleted rows are never given again (the promise
        /// `AUTOINCREMENT` makes).
        let sequence: Bool

        init(old: String, new: String) {
            let old = TableDefinition(sql: old), new = TableDefinition(sql: new)
            if let oldName = old?.rowidName, let newName = new?.rowidName {
                rowids = (oldName, newName)
            } else {
                rowids = nil
            }
            sequence = [old, new].allSatisfy { $0?.items.contains { $0.has(anyOf: ["AUTOINCREMENT"]) } == true }
        }
    }

    /// sqlite.org's steps 4 to 7: the wanted table under a temporary name, the columns
    /// both have copied (a renamed one into its new name), the old table dropped, the
    /// new one renamed into its place.
    private static func rebuild(_ table: String, as sql: String, from old: [SchemaSnapshot.Column], to new: [SchemaSnapshot.Column],
                                renamed: [String: String], keeping: RebuildKeeps) -> [String] {
        let temporary = table + "_migrationkit_new"
        let oldByName = Dictionary(old.map { ((renamed[$0.name.lowercased()] ?? $0.name).lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        let common = new.compactMap { column in oldByName[column.name.lowercased()].map { (old: $0, new: column) } }
        var names = common.map { quoteIdentifier($0.new.name) }
        // A column that becomes NOT NULL takes its new default where it was NULL.
        var values = common.map { pair in
            let name = quoteIdentifier(pair.old.name)
            guard pair.new.notNull, !pair.old.notNull, let fallback = pair.new.defaultValue else { return name }
            return "COALESCE(\(name), \(fallback))"
        }
        // An INTEGER PRIMARY KEY is the rowid: copied, it keeps the rowids itself.
        let keys = new.filter { $0.primaryKeyPosition > 0 }
        let rowidCopied = keys.count == 1 && keys[0].declaredType.uppercased() == "INTEGER"
            && common.contains { $0.new.name.lowercased() == keys[0].name.lowercased() }
        if let rowids = keeping.rowids, !rowidCopied, !common.isEmpty {
            names.insert(rowids.new, at: 0)
            values.insert(rowids.old, at: 0)
        }
        var statements = [TableDefinition(sql: sql)!.renamed(to: temporary)]
        if !common.isEmpty {
            statements.append("INSERT INTO \(quoteIdentifier(temporary)) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoteIdentifier(table))")
        }
        if keeping.sequence {
            statements.append("DELETE FROM sqlite_sequence WHERE name = \(quoteLiteral(temporary)) COLLATE NOCASE")
            statements.append("INSERT INTO sqlite_sequence (name, seq) SELECT \(quoteLiteral(temporary)), seq FROM sqlite_sequence WHERE name = \(quoteLiteral(table)) COLLATE NOCASE")
        }
        statements.append("DROP TABLE \(quoteIdentifier(table))")
        statements.append("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table))")
        return statements
    }

    /// " (if it was renamed, mark the new column with -- @renamed from=title)": said of a
    /// drop only when something else appears, which a rename would explain.
    private static func renameHint(_ name: String, _ kind: String) -> String {
        " (if it was renamed, mark the new \(kind) with -- @renamed from=\(name))"
    }

    /// What a table's change can lose: columns dropped, a `NOT NULL` column without a
    /// default added to rows, a column's type narrowed to a numeric affinity.
    private static func losses(table: String, from old: [SchemaSnapshot.Column], to new: [SchemaSnapshot.Column],
                               renamed: [String: String], hasRows: Bool, strict: Bool,
                               holdsNull: (String, String) throws -> Bool) throws -> [String] {
        func newName(_ column: SchemaSnapshot.Column) -> String { (renamed[column.name.lowercased()] ?? column.name).lowercased() }
        let oldByName = Dictionary(old.map { (newName($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.map { $0.name.lowercased() })
        let columnsAppear = new.contains { oldByName[$0.name.lowercased()] == nil }
        var losses = old.filter { !newNames.contains(newName($0)) }.map {
            "drops column \(table).\($0.name)" + (columnsAppear ? renameHint($0.name, "column") : "")
        }
        for column in new {
            guard let previous = oldByName[column.name.lowercased()] else {
                if hasRows, column.notNull, column.defaultValue == nil {
                    losses.append("adds column \(table).\(column.name) NOT NULL without a default to a table with rows")
                }
                continue
            }
            if hasRows, column.notNull, !previous.notNull, column.defaultValue == nil, try holdsNull(table, previous.name) {
                losses.append("makes column \(table).\(column.name) NOT NULL without a default, which fails on its rows that hold NULL")
            }
            let before = ColumnAffinity(declaredType: previous.declaredType)
            let after = ColumnAffinity(declaredType: column.declaredType, strict: strict)
            if before != after, after.isNumeric {
                losses.append("changes column \(table).\(column.name) from \(previous.declaredType.isEmpty ? "no type" : previous.declaredType) to \(column.declaredType), which can change its values")
            }
        }
        return losses
    }
}

/// SQLite's type affinity of a declared type (sqlite.org/datatype3.html, section 3.1),
/// to tell a type change that keeps every value (to TEXT or BLOB) from one that may not.
enum ColumnAffinity: Hashable {
    case integer, text, blob, real, numeric

    /// - Parameter strict: the column's table is `STRICT`, where `ANY` keeps every
    ///   value as it is (elsewhere it is a numeric type name like any other).
    init(declaredType: String, strict: Bool = false) {
        let type = declaredType.uppercased()
        if strict, type == "ANY" { self = .blob }
        else if type.contains("INT") { self = .integer }
        else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { self = .text }
        else if type.contains("BLOB") || type.isEmpty { self = .blob }
        else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { self = .real }
        else { self = .numeric }
    }

    var isNumeric: Bool { self == .integer || self == .real || self == .numeric }
}

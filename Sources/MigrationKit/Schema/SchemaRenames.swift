/// The renames a desired schema declares, with sqldef's convention: a comment
/// `-- @renamed from=OLD` on a table's `CREATE TABLE` line (before its first column), or
/// after a column's definition. Renames are never guessed; without the comment a new
/// name is a drop and an add.
///
/// A declaration counts only while it still applies (the current schema has the old
/// name and not the new one), so once the migration has run the comment can stay in
/// `schema.sql` and the next diff finds nothing to do.
struct SchemaRenames {
    /// A name and the one it becomes.
    struct Rename: Hashable {
        let from: String
        let to: String
    }

    /// Tables renamed, by their names in the current schema.
    private(set) var tables: [Rename] = []
    /// Columns renamed, by the lower-cased name of their table in the desired schema.
    private var columnsByTable: [String: [Rename]] = [:]

    private init() {}

    init(declaredIn desired: SchemaSnapshot, over current: SchemaSnapshot) {
        for object in desired.objects where object.type == "table" {
            guard let definition = TableDefinition(sql: object.sql), !definition.isVirtual else { continue }
            var currentName = object.name
            if let earlier = definition.renamedFrom, let old = current.object("table", earlier),
               TableDefinition(sql: old.sql)?.isVirtual == false,
               current.object("table", object.name) == nil, desired.object("table", earlier) == nil {
                tables.append(Rename(from: old.name, to: object.name))
                currentName = old.name
            }
            let currentColumns = (current.columns[currentName.lowercased()] ?? []).map { $0.name }
            let desiredColumns = Set(definition.items.compactMap { $0.columnName?.lowercased() })
            let renames = definition.items.compactMap { item -> Rename? in
                guard let earlier = item.renamedFrom, let name = item.columnName,
                      let old = currentColumns.first(where: { $0.lowercased() == earlier.lowercased() }),
                      !currentColumns.contains(where: { $0.lowercased() == name.lowercased() }),
                      !desiredColumns.contains(old.lowercased()) else { return nil }
                return Rename(from: old, to: name)
            }
            if !renames.isEmpty { columnsByTable[object.name.lowercased()] = renames }
        }
    }

    /// The same renames the other way, for the down section.
    var reversed: SchemaRenames {
        var reversed = SchemaRenames()
        reversed.tables = tables.map { Rename(from: $0.to, to: $0.from) }
        for (table, renames) in columnsByTable {
            let currentTable = tables.first { $0.to.lowercased() == table }?.from ?? table
            reversed.columnsByTable[currentTable.lowercased()] = renames.map { Rename(from: $0.to, to: $0.from) }
        }
        return reversed
    }

    /// The name a current table has in the desired schema.
    func desiredName(ofTable table: String) -> String {
        tables.first { $0.from.lowercased() == table.lowercased() }?.to ?? table
    }

    /// The columns renamed in the table named `table` in the desired schema.
    func columns(ofTable table: String) -> [Rename] {
        columnsByTable[table.lowercased()] ?? []
    }

    /// The columns renamed in `table`, as a lower-cased old name → new name map.
    func columnMap(ofTable table: String) -> [String: String] {
        Dictionary(columns(ofTable: table).map { ($0.from.lowercased(), $0.to) }, uniquingKeysWith: { first, _ in first })
    }

    /// An index of the current schema as `ALTER TABLE … RENAME` leaves it: its table's
    /// and its columns' new names in place of the old (SQLite rewrites an index's SQL on
    /// every version this project supports), so an index that needs nothing else is kept.
    func indexSQLAfterRenames(_ index: SchemaDump.Object) -> String {
        let table = desiredName(ofTable: index.tableName)
        var names = columnMap(ofTable: table)
        if table.lowercased() != index.tableName.lowercased() { names[index.tableName.lowercased()] = table }
        guard !names.isEmpty else { return index.sql }
        return SQLTokenizer.tokenize(index.sql).map { token in
            guard token.kind != .string, let name = token.nameValue, let renamed = names[name.lowercased()] else { return token.text }
            return quoteIdentifier(renamed)
        }.joined()
    }
}

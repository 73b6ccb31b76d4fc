/// `ALTER TABLE t ADD COLUMN c … NOT NULL` without a non-NULL `DEFAULT`.
///
/// SQLite refuses it ("Cannot add a NOT NULL column with default value NULL"): the
/// rows already in the table would hold NULL in a NOT NULL column. SQLite 3.15.2
/// refuses it even when the table is empty. `DEFAULT NULL` is no default.
struct NotNullColumnWithoutDefaultRule: LintRule {
    static let id = "not-null-column-without-default"

    var checksDownSections: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .alterTable(let table, .addColumn(let definition)) = statement.shape,
              let columnToken = statement.token(definition.lowerBound) else { return [] }
        let column = columnToken.nameValue ?? columnToken.text
        let baseDepth = statement.depth(definition.lowerBound)
        var notNull: Int?
        var defaultIsNull: Bool?
        for index in definition.dropFirst() where statement.depth(index) == baseDepth {
            if statement.isWord(index, "NOT"), statement.isWord(index + 1, "NULL"), notNull == nil {
                notNull = index
            } else if statement.isWord(index, "DEFAULT") {
                defaultIsNull = Self.isNull(statement, at: index + 1)
            } else if statement.isWord(index, "GENERATED") || (statement.isWord(index, "AS") && statement.isSymbol(index + 1, "(")) {
                // A generated column has no stored default; `unsupported-sql` covers
                // it where generated columns do not exist.
                return []
            }
        }
        guard let notNull, defaultIsNull != false else { return [] }
        let what = defaultIsNull == true ? "NOT NULL with DEFAULT NULL" : "NOT NULL without a DEFAULT"
        return [scope.finding(Self.id, .error, at: statement.token(notNull), in: statement,
                              message: "ALTER TABLE \(table.name) ADD COLUMN \(column) is \(what): SQLite refuses it (\"Cannot add a NOT NULL column with default value NULL\") because the table's existing rows would get NULL; SQLite 3.15.2 refuses it even on an empty table.",
                              fix: "Give the column a non-NULL DEFAULT (for example DEFAULT 0 or DEFAULT ''), or recreate the table with the new column (the 12-step procedure of sqlite.org/lang_altertable.html: create the new table, copy the rows filling the column, drop the old table, rename the new one).")]
    }

    /// Whether the default value starting at `index` is NULL: `NULL`, `(NULL)`,
    /// `((NULL))`, or nothing at all.
    private static func isNull(_ statement: StatementReader, at index: Int) -> Bool {
        guard let value = statement.token(index) else { return true }
        if value.isWord("NULL") { return true }
        guard value.isSymbol("(") else { return false }
        let inner = (index + 1)..<statement.closing(index)
        let meaningful = inner.filter { !statement.isSymbol($0, "(") && !statement.isSymbol($0, ")") }
        return meaningful.count == 1 && statement.isWord(meaningful[0], "NULL")
    }
}

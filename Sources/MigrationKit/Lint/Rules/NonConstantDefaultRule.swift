/// `ALTER TABLE t ADD COLUMN c … DEFAULT CURRENT_TIMESTAMP` (or `CURRENT_DATE`,
/// `CURRENT_TIME`, or an expression in parentheses that is not a plain literal).
///
/// SQLite refuses it with "Cannot add a column with non-constant default" as soon as
/// the table has rows — so it passes on a developer's empty database and fails on every
/// user's — and SQLite 3.15.2 refuses `CURRENT_…` even on an empty table.
struct NonConstantDefaultRule: LintRule {
    static let id = "non-constant-default"

    var checksDownSections: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .alterTable(let table, .addColumn(let definition)) = statement.shape,
              let columnToken = statement.token(definition.lowerBound) else { return [] }
        let column = columnToken.nameValue ?? columnToken.text
        let level = statement.depth(definition.lowerBound)
        for index in definition.dropFirst() where statement.depth(index) == level && statement.isWord(index, "DEFAULT") {
            guard let value = statement.token(index + 1), !Self.isConstant(statement, at: index + 1) else { return [] }
            return [scope.finding(Self.id, .error, at: value, in: statement,
                                  message: "ALTER TABLE \(table.name) ADD COLUMN \(column) has a non-constant DEFAULT (\(value.text)…): SQLite refuses it (\"Cannot add a column with non-constant default\") on any table that has rows, so it passes on an empty development database and fails on users' databases.",
                                  fix: "Add the column with a constant DEFAULT (or none), then fill it in the same migration: UPDATE \(table.name) SET \(column) = <expression>; or recreate the table with the 12-step procedure.")]
        }
        return []
    }

    /// A literal (number, string, blob, NULL, TRUE/FALSE, with a sign), alone or in
    /// parentheses, or a name right after DEFAULT: what SQLite accepts as a constant
    /// default for ADD COLUMN. SQLite's grammar reads `DEFAULT name` and `DEFAULT "name"`
    /// (`DEFAULT id`) as a string, whatever its double-quoted-string setting, so
    /// `NOT NULL DEFAULT "{}"` is the constant `'{}'`; only `CURRENT_TIME`,
    /// `CURRENT_DATE` and `CURRENT_TIMESTAMP` are words it evaluates.
    private static func isConstant(_ statement: StatementReader, at index: Int) -> Bool {
        guard let token = statement.token(index) else { return true }
        if token.kind == .quotedIdentifier { return true }
        if token.kind == .word, !["current_time", "current_date", "current_timestamp"].contains(token.text.lowercased()) { return true }
        if token.isSymbol("(") {
            let inner = (index + 1)..<statement.closing(index)
            let meaningful = inner.filter { !statement.isSymbol($0, "(") && !statement.isSymbol($0, ")") }
            guard let first = meaningful.first, let length = literalLength(statement, from: first) else { return false }
            return meaningful.count == length
        }
        return literalLength(statement, from: index) != nil
    }

    /// How many tokens the literal at `first` takes (a sign and a number take two), or
    /// nil when there is no literal there.
    private static func literalLength(_ statement: StatementReader, from first: Int) -> Int? {
        let signed = statement.isSymbol(first, "-") || statement.isSymbol(first, "+")
        let index = signed ? first + 1 : first
        guard let token = statement.token(index) else { return nil }
        let isLiteral: Bool
        switch token.kind {
        case .number, .string, .blob: isLiteral = true
        case .word: isLiteral = ["null", "true", "false"].contains(token.text.lowercased())
        default: isLiteral = false
        }
        return isLiteral ? (signed ? 2 : 1) : nil
    }
}

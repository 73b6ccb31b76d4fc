/// What SQLDelight's compiler reads in a `.sqm` file beyond SQL, and leaves out of the SQL
/// its generated `Schema.migrate` runs: `import` statements (the Kotlin types the file
/// names) and a column's Kotlin type, `AS Type`, after its SQL type (`isbn INTEGER AS
/// kotlin.Int`). SQLite reads neither, so a file holding one is refused naming the line
/// rather than failing half way through a migration; the way through is the SQL
/// SQLDelight runs, which its generated `Database.Schema` code shows.
enum SQLDelightSyntax {
    /// The refusal for the first such statement of `section`, or nil.
    static func refusal(in section: SQLSection) -> SQLMigrationFileError? {
        for statement in SQLStatementSplitter.split(section.sql) {
            let tokens = statement.tokens
            guard let first = tokens.first else { continue }
            if first.isWord("IMPORT") {
                return refusal(section, line: first.line,
                               "`import` is SQLDelight's, naming a Kotlin type for its compiler, and SQLDelight leaves it out of the SQL it runs")
            }
            if let typed = kotlinColumnType(in: tokens) {
                return refusal(section, line: typed.line,
                               "`AS \(typed.text)` gives a column SQLDelight's Kotlin type, which SQLDelight leaves out of the SQL it runs")
            }
        }
        return nil
    }

    private static func refusal(_ section: SQLSection, line: Int, _ what: String) -> SQLMigrationFileError {
        SQLMigrationFileError(code: .unsupportedFeature, path: section.path, line: section.fileLine(forSectionLine: line),
                              message: "\(what); SQLite does not read it, and MigrationKit runs the file as SQL: write the statement as SQLDelight runs it (its generated Database.Schema code shows it), or keep such files in a folder SQLDelight alone migrates.")
    }

    /// The type after `AS` in a column definition of `CREATE TABLE` (inside its
    /// parentheses, not nested deeper) or `ALTER TABLE … ADD`, where SQLite has `AS` only
    /// before a generated column's `(`: SQLDelight's Kotlin type. Nil when there is none.
    private static func kotlinColumnType(in tokens: [SQLToken]) -> SQLToken? {
        let words = tokens.prefix(4)
        let createsTable = words.first?.isWord("CREATE") == true && words.dropFirst().contains { $0.isWord("TABLE") }
        let altersTable = words.first?.isWord("ALTER") == true && words.dropFirst().first?.isWord("TABLE") == true
        guard createsTable || altersTable else { return nil }
        var depth = 0
        var columnDepth = createsTable ? 1 : -1
        for (index, token) in tokens.enumerated() {
            if token.isSymbol("(") { depth += 1; continue }
            if token.isSymbol(")") { depth -= 1; continue }
            if altersTable, token.isWord("ADD") { columnDepth = depth }
            guard token.isWord("AS"), depth == columnDepth, index + 1 < tokens.count, !tokens[index + 1].isSymbol("(") else { continue }
            return tokens[index + 1]
        }
        return nil
    }
}

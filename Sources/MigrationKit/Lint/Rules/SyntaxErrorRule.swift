/// SQL the linked SQLite cannot parse: a typo such as `CREATE TABEL`, a missing comma,
/// an unclosed parenthesis. Without it lint passed such a file and `migrate` found the
/// error, one migration too late. SQLite itself judges (`LintContext.parser`), reading
/// the statement without running it, and the finding points at the line where it
/// stopped, as the error `migrate` would report does.
struct SyntaxErrorRule: LintRule {
    static let id = "syntax-error"

    var checksDownSections: Bool { true }

    var isFallback: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard let problem = scope.context.parser?.problem(of: statement.statement.text) else { return [] }
        // The offset is in the statement's text, which starts at its first token.
        let stopped = problem.offset.map { (statement.tokens.first?.offset ?? 0) + $0 }
        let token = stopped.flatMap { offset in statement.tokens.last { $0.offset <= offset } }
        return [scope.finding(Self.id, .error, at: token, in: statement,
                              message: "SQLite cannot parse this statement: \(problem.message.split(whereSeparator: \.isNewline).joined(separator: " ")).",
                              fix: "Correct the SQL at this line; as written, the migration fails here when it runs.")]
    }
}

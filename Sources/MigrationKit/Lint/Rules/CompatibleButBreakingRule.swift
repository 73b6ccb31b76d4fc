/// A statement in a migration declared compatible with older releases
/// (`-- migrate:compatible`) that takes away or changes what their code reads and writes:
/// a dropped or renamed table, view or column, a changed constraint. The declaration is a
/// promise about the older releases' code, which lint cannot see, so this is a warning:
/// a table or column no older release ever used may go, and the warning is silenced for
/// that statement. Adding a table, an index or a column with a default keeps the promise.
struct CompatibleButBreakingRule: LintRule {
    static let id = "compatible-but-breaking"

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard scope.compatibility != nil else { return [] }
        let change: String
        let at: Int
        switch statement.shape {
        case .dropTable(let table): (change, at) = ("drops table \(table.name)", table.tokenIndex)
        case .dropView(let view): (change, at) = ("drops view \(view.name)", view.tokenIndex)
        case .alterTable(let table, .renameTable(let name)): (change, at) = ("renames table \(table.name) to \(name.name)", name.tokenIndex)
        case .alterTable(let table, .renameColumn(let index)): (change, at) = ("renames a column of \(table.name)", index)
        case .alterTable(let table, .dropColumn(let column, let index)): (change, at) = ("drops \(column.map { "column \($0.name)" } ?? "a column") of \(table.name)", index)
        case .alterTable(let table, .changeConstraint(let index)): (change, at) = ("changes a constraint of \(table.name)", index)
        default: return []
        }
        return [scope.finding(Self.id, .warning, at: statement.token(at), in: statement,
                              message: "This migration is declared compatible with older releases (`-- migrate:compatible`), but it \(change), which their code may still read or write.",
                              fix: "Remove the declaration unless no older release uses what this statement takes away (an older release then steps back with the down SQL, or refuses); if none does, keep it and silence this warning for the statement.")]
    }
}

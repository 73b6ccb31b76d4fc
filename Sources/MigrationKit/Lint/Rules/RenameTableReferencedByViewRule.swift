/// `ALTER TABLE t RENAME TO u` while views reference `t`.
///
/// From SQLite 3.26 the rename fails unless `legacy_alter_table=ON`; before that
/// (3.15.2 included) it succeeds and leaves the views pointing at a table that no
/// longer exists, so they fail the next time they are used. Views the batch dropped
/// earlier no longer count; views it created earlier do.
struct RenameTableReferencedByViewRule: LintRule {
    static let id = "rename-table-referenced-by-view"

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .alterTable(let table, .renameTable(let newName)) = statement.shape else { return [] }
        let views = scope.batch.viewsReferencing(table, context: scope.context)
        guard !views.isEmpty else { return [] }
        let list = views.map { "\"\($0)\"" }.joined(separator: ", ")
        let plural = views.count == 1 ? "view" : "views"
        return [scope.finding(Self.id, .warning, at: statement.token(0), in: statement,
                              message: "ALTER TABLE \(table.name) RENAME TO \(newName.name) while the \(plural) \(list) reference\(views.count == 1 ? "s" : "") \(table.name): SQLite 3.26 and later refuse the rename (unless legacy_alter_table=ON), and older versions rename anyway and leave the \(plural) pointing at a table that no longer exists.",
                              fix: "Drop the \(plural) first (DROP VIEW …) and create \(views.count == 1 ? "it" : "them") again after the rename, referring to \(newName.name).")]
    }
}

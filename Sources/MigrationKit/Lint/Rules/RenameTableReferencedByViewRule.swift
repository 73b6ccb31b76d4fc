/// `ALTER TABLE … RENAME TO …` that leaves views broken or that SQLite refuses.
///
/// SQLite 3.25.0 changed renames ("Fix table rename feature so that it also updates
/// references to the renamed table in triggers and views"), so what goes wrong
/// depends on the linked version (both checked against the real libraries):
/// - before 3.25 (SQLCipher 3.4.1's SQLite 3.15.2): `ALTER TABLE t RENAME TO u`
///   leaves every view on `t` still referring to `t`; they fail when next used;
/// - from 3.25: those views follow the table, but the rename re-checks every view
///   and fails ("error in view v: no such table: main.t") while any view refers to
///   a table that is gone, which is exactly the state the 12-step procedure's
///   `DROP TABLE t; ALTER TABLE new_t RENAME TO t` leaves when views are not dropped
///   first.
/// Views the batch dropped earlier no longer count; views it created earlier do.
struct RenameTableReferencedByViewRule: LintRule {
    static let id = "rename-table-referenced-by-view"
    /// The release from which a rename rewrites the views referring to the table.
    static let viewFollowingRename = SQLiteVersion(3, 25, 0)

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .alterTable(let table, .renameTable(let newName)) = statement.shape else { return [] }
        // With --min-sqlite, both ends of the range the migrations will meet.
        var findings: [LintFinding] = []
        if scope.context.sqliteVersion < Self.viewFollowingRename {
            findings += legacyRename(table, to: newName, statement, scope)
        }
        if scope.context.newestSQLiteVersion >= Self.viewFollowingRename {
            findings += renameAmidBrokenViews(table, to: newName, statement, scope)
        }
        return findings
    }

    private func legacyRename(_ table: NameReference, to newName: NameReference, _ statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        let views = scope.batch.views(referencing: table.name, context: scope.context, followingRenames: false)
        guard !views.isEmpty else { return [] }
        let (list, subject) = Self.describe(views)
        return [scope.finding(Self.id, .warning, at: statement.token(0), in: statement,
                              message: "ALTER TABLE \(table.name) RENAME TO \(newName.name) while \(subject) \(list) refer\(views.count == 1 ? "s" : "") to \(table.name): SQLite before 3.25 (here \(scope.context.libraryDescription)) renames without updating views, so \(views.count == 1 ? "it keeps" : "they keep") referring to \(table.name) and fail\(views.count == 1 ? "s" : "") whenever no table \(table.name) exists.",
                              fix: "Drop the \(views.count == 1 ? "view" : "views") first (DROP VIEW …) and create \(views.count == 1 ? "it" : "them") again after the rename, referring to \(newName.name).")]
    }

    private func renameAmidBrokenViews(_ table: NameReference, to newName: NameReference, _ statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        let broken = scope.batch.viewsWithoutTheirTable(context: scope.context)
        guard let first = broken.first else { return [] }
        let views = Array(Set(broken.map(\.view))).sorted()
        let tables = Array(Set(broken.map(\.table))).sorted().joined(separator: ", ")
        let (list, subject) = Self.describe(views)
        return [scope.finding(Self.id, .warning, at: statement.token(0), in: statement,
                              message: "ALTER TABLE \(table.name) RENAME TO \(newName.name) while \(subject) \(list) still refer\(views.count == 1 ? "s" : "") to \(tables), which an earlier statement of this batch dropped: from SQLite 3.25 a rename checks every view, so it fails (\"error in view \(first.view): no such table: main.\(first.table)\").",
                              fix: "Drop the \(views.count == 1 ? "view" : "views") before dropping \(tables) and create \(views.count == 1 ? "it" : "them") again after the rename (save the SQL from sqlite_master first), as sqlite.org/lang_altertable.html advises for views affected by a table change.")]
    }

    /// `"a", "b"` and "the view"/"the views".
    private static func describe(_ views: [String]) -> (list: String, subject: String) {
        (views.map { "\"\($0)\"" }.joined(separator: ", "), views.count == 1 ? "the view" : "the views")
    }
}

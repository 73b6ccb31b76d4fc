/// `DROP TABLE t` while `t` may hold rows.
///
/// Quiet when the database says the table is empty, when the batch created the
/// table itself and put nothing in it (a table created by 0001 and dropped by 0005),
/// or when an earlier statement copied its rows elsewhere (the 12-step procedure:
/// `INSERT INTO t_new SELECT … FROM t; DROP TABLE t;`).
struct DropTableWithDataRule: LintRule {
    static let id = "drop-table-with-data"

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .dropTable(let table) = statement.shape,
              !scope.batch.rowsWereCopiedOut(of: table),
              let holding = DataLossWording.rows(of: table, scope) else { return [] }
        return [scope.finding(Self.id, .warning, at: statement.token(0), in: statement,
                              message: "DROP TABLE \(table.name) deletes \(holding).",
                              fix: "Copy the rows somewhere first (for example CREATE TABLE \(table.name)_backup AS SELECT * FROM \(table.name)); if losing them is intended, keep the statement and silence this warning.")]
    }
}

/// `ALTER TABLE t DROP COLUMN c` while `t` may hold rows: the column's values go.
/// (Where DROP COLUMN does not exist, `unsupported-sql` reports it as well.)
struct DropColumnWithDataRule: LintRule {
    static let id = "drop-column-with-data"

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .alterTable(let table, .dropColumn(let column, let dropIndex)) = statement.shape,
              let holding = DataLossWording.rows(of: table, scope) else { return [] }
        let columnName = column?.name ?? "the column"
        return [scope.finding(Self.id, .warning, at: statement.token(dropIndex), in: statement,
                              message: "ALTER TABLE \(table.name) DROP COLUMN \(columnName) deletes the column's values in \(holding).",
                              fix: "Copy the values somewhere first (for example into a new table keyed by the row's primary key); if losing them is intended, keep the statement and silence this warning.")]
    }
}

/// How the data-loss rules describe a table's rows; nil when it holds none.
enum DataLossWording {
    static func rows(of table: NameReference, _ scope: LintScope) -> String? {
        switch scope.batch.contents(of: table, context: scope.context) {
        case .empty:
            return nil
        case .rows(let count):
            return "its \(count) row\(count == 1 ? "" : "s")"
        case .filledByBatch(let statement):
            return "the rows put in it by \(statement.described)"
        case .unknown:
            return "whatever rows it holds (it may hold data; no database was given to count them)"
        }
    }
}

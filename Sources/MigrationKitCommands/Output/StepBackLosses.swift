import MigrationKit

/// What stepping back drops, measured rather than guessed from the down SQL: the downs
/// are run on a scratch copy (`RollbackCommand`), and the app's tables and columns there
/// are compared with the database's. Tables and columns that vanish are named with the
/// rows (or values) they hold now, and tables that stay with the rows they lose.
struct StepBackLosses {
    /// An app table as one side holds it.
    struct Table {
        /// nil: could not be read (a virtual table whose module this build lacks).
        let columns: [String]?
        /// nil: could not be counted (a virtual table whose module this build lacks).
        let rows: Int?
    }

    private(set) var lines: [String] = []
    /// Tables that stay but could not be compared on both sides (a virtual table whose
    /// module this build lacks): named, never counted as losing nothing.
    private(set) var notCompared: [String] = []

    /// The app's tables in `db` (bookkeeping and virtual tables' shadow tables left out),
    /// with their columns and row counts.
    static func tables(in db: any SQLQuerying) throws -> [String: Table] {
        var sqlByName: [String: String] = [:]
        try db.forEachTextRow(sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", arguments: []) { row in
            if let name = row[0] { sqlByName[name] = row[1] ?? "" }
        }
        let virtual = sqlByName.filter { $0.value.uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.keys
        var tables: [String: Table] = [:]
        for name in sqlByName.keys where !SchemaDump.isBookkeeping(name) {
            if virtual.contains(where: { name != $0 && name.lowercased().hasPrefix($0.lowercased() + "_") }) { continue }
            var read: [String] = []
            let columns: [String]? = (try? db.forEachTextRow(sql: "PRAGMA main.table_info(\(quoteIdentifier(name)))", arguments: []) { row in
                if let column = row[1] { read.append(column) }
            }).map { read }
            let rows = (try? db.textColumn(sql: "SELECT count(*) FROM main.\(quoteIdentifier(name))")).flatMap { $0.first }.flatMap { Int($0) }
            tables[name] = Table(columns: columns, rows: rows)
        }
        return tables
    }

    /// The losses from `before` (the database) to `after` (the stepped-back copy), with
    /// vanished columns' values counted in `db`, the database.
    init(before: [String: Table], after: [String: Table], countingIn db: any SQLQuerying) {
        for name in before.keys.sorted() {
            let old = before[name]!
            guard let new = after[name] else {
                lines.append("table \(name) (\(Self.count(old.rows, "row")))")
                continue
            }
            // Columns are compared only where both sides could be read.
            if old.columns == nil || new.columns == nil || old.rows == nil || new.rows == nil { notCompared.append(name) }
            let kept = Set((new.columns ?? old.columns ?? []).map { $0.lowercased() })
            for column in old.columns ?? [] where !kept.contains(column.lowercased()) {
                let values = (try? db.textColumn(sql: "SELECT count(\(quoteIdentifier(column))) FROM main.\(quoteIdentifier(name))"))
                    .flatMap { $0.first }.flatMap { Int($0) }
                lines.append("column \(name).\(column) (\(Self.count(values, "value")))")
            }
            if let was = old.rows, let now = new.rows, now < was {
                lines.append("\(Self.count(was - now, "row")) of \(name)")
            }
        }
    }

    /// One sentence: "Stepping back drops table tags (1,204 rows), column notes.color (312
    /// values)." A table this build could not read on both sides is named as not compared.
    var sentence: String {
        let readable = notCompared.isEmpty ? "" : " that this version can read"
        let dropped = lines.isEmpty ? "Stepping back drops no table, column or row of the app's\(readable)"
            : "Stepping back drops " + lines.joined(separator: ", ")
        guard !notCompared.isEmpty else { return dropped + "." }
        return dropped + "; not compared: " + notCompared.joined(separator: ", ")
            + " (this version could not read \(notCompared.count == 1 ? "it" : "them"))."
    }

    private static func count(_ number: Int?, _ noun: String) -> String {
        guard let number else { return "\(noun)s not counted" }
        return "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

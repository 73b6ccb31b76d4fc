import MigrationKit
import MigrationKitFiles

/// The difference between two schema dumps, one line per changed statement: "-" for
/// a statement that goes, "+" for one that comes (a changed table is both), each on
/// one line with its spacing collapsed.
struct SchemaDiff {
    package let lines: [String]

    init(before: String, after: String) {
        let old = Self.statements(before)
        let new = Self.statements(after)
        var removed: [String] = []
        var inserted: [String] = []
        for change in new.difference(from: old) {
            switch change {
            case .remove(_, let element, _): removed.append("- " + element)
            case .insert(_, let element, _): inserted.append("+ " + element)
            }
        }
        // CollectionDifference lists removals last-first; show them in schema order.
        lines = removed.reversed() + inserted
    }

    /// The dump's statements, split as SQLite would (a trigger's body stays whole).
    private static func statements(_ dump: String) -> [String] {
        SQLStatementSplitter.split(dump).map { statement in
            statement.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        .filter { !$0.isEmpty }
    }
}

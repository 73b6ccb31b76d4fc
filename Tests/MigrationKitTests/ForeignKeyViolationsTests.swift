@testable import MigrationKit
import Testing

@Suite struct ForeignKeyViolationsTests {
    private func violations(_ rows: [(String, Int64?, String)]) -> ForeignKeyViolations {
        var result = ForeignKeyViolations()
        for (table, rowID, parent) in rows { result.add(table: table, rowID: rowID, parent: parent, foreignKey: 0) }
        return result
    }

    @Test func onlyWhatAGroupGainedIsAdded() {
        let before = violations([("books", 2, "authors"), ("books", 3, "authors")])
        let after = violations([("books", 1, "authors"), ("books", 2, "authors"), ("books", 3, "authors"), ("notes", 9, "folders")])
        let added = after.added(since: before)
        #expect(added.count == 2)
        #expect(added.summary() == "books rowid 1 → authors; notes rowid 9 → folders")
        #expect(before.isWithin(after) && !after.isWithin(before))
        // Fewer orphans than before (some deleted) adds nothing.
        #expect(violations([("books", 2, "authors")]).added(since: before).isEmpty)
    }

    @Test func renumberedRowsAreCountedNotNamedWrongly() {
        // A 12-step recreation may give the same orphans new row ids: same count, nothing added.
        let before = violations([("books", 2, "authors"), ("books", 3, "authors")])
        let after = violations([("books", 20, "authors"), ("books", 30, "authors")])
        #expect(after.added(since: before).isEmpty)
    }

    @Test func summariesAreShortAndNameNoValues() {
        let many = violations((1...50).map { ("books", Int64($0), "authors") } + [("a", nil, "b"), ("c", 1, "d"), ("e", 1, "f"), ("g", 1, "h"), ("i", 1, "j")])
        let text = many.summary()
        #expect(text.hasPrefix("books rowid 1, 2, 3 (50 rows) → authors; a 1 row → b"))
        #expect(text.hasSuffix("and 1 more row"))
        #expect(many.preexistingWarning.contains("55 rows") && many.preexistingWarning.contains("existing data is at fault"))
    }
}

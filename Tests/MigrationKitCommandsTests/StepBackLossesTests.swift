@testable import MigrationKit
@testable import MigrationKitCommands
import Testing

/// What `rollback --newer`'s preview says it drops, from the tables read before and after
/// the stored downs ran on a scratch copy: what vanished or shrank is named with its
/// count, and a table this version could not read on both sides is named as not compared,
/// never taken for one that loses nothing.
@Suite struct StepBackLossesTests {
    /// A database with no rows for the one count a vanished column asks of it.
    private struct NoRows: SQLQuerying {
        func forEachTextRow(sql: String, arguments: [String], _ body: ([String?]) throws -> Void) throws {}
    }

    @Test func whatVanishesOrShrinksIsNamedWithItsCount() {
        let losses = StepBackLosses(
            before: ["notes": .init(columns: ["id", "body"], rows: 5), "tags": .init(columns: ["id"], rows: 3)],
            after: ["notes": .init(columns: ["id", "body"], rows: 4)], countingIn: NoRows())
        #expect(losses.sentence == "Stepping back drops 1 row of notes, table tags (3 rows).")
    }

    @Test func nothingDroppedIsSaidOnlyWhenEveryTableWasCompared() {
        let same = ["notes": StepBackLosses.Table(columns: ["id"], rows: 2)]
        #expect(StepBackLosses(before: same, after: same, countingIn: NoRows()).sentence
            == "Stepping back drops no table, column or row of the app's.")

        var unreadable = same
        unreadable["search"] = StepBackLosses.Table(columns: nil, rows: nil)
        #expect(StepBackLosses(before: unreadable, after: unreadable, countingIn: NoRows()).sentence
            == "Stepping back drops no table, column or row of the app's that this version can read; not compared: search (this version could not read it).")
    }
}

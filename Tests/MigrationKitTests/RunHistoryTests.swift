@testable import MigrationKit
import Testing

/// When a step-by-step run writes its history rows (`RunHistory`): which transaction
/// writes which rows, decided without a database. `SafetyNetTests` runs the same rules
/// on encrypted files.
@Suite struct RunHistoryTests {
    private let steps = ["0001_a", "0002_b", "0003_c"].map { identifier in
        MigrationStep<Void>(identifier: identifier, checksum: "sum of \(identifier)", apply: { _ in })
    }

    /// The identifiers a transaction's statements write history rows for (INSERT OR
    /// REPLACE), and those they remove.
    private func historyRows(_ statements: [BookkeepingStatement]) -> (written: [String], removed: [String]) {
        var written: [String] = [], removed: [String] = []
        for statement in statements where statement.sql.contains("grdb_migrationkit_history") {
            let texts = statement.arguments.compactMap { value -> String? in
                if case .text(let text) = value { return text }
                return nil
            }
            if statement.sql.hasPrefix("INSERT OR REPLACE") {
                // Four values a row: identifier, checksum, time, duration.
                written += stride(from: 0, to: statement.arguments.count, by: 4).compactMap { index in
                    if case .text(let identifier) = statement.arguments[index] { return identifier }
                    return nil
                }
            } else if statement.sql.hasPrefix("DELETE") {
                removed += texts
            }
        }
        return (written, removed)
    }

    private func record(_ history: inout RunHistory, _ index: Int) -> (written: [String], removed: [String]) {
        let recording = history.recording(steps[index], followedBy: steps[(index + 1)...], duration: .milliseconds(3))
        #expect(recording.statements.contains(MigrationLedgerTable.insert(steps[index].identifier)))
        history.committed(recording)
        return historyRows(recording.statements)
    }

    @Test func theFirstStepWritesEveryRowAndTheLastGivesThemTheirTimes() {
        var history = RunHistory()
        #expect(record(&history, 0).written == ["0001_a", "0002_b", "0003_c"])
        #expect(record(&history, 1).written.isEmpty)
        #expect(record(&history, 2) == (["0001_a", "0002_b", "0003_c"], []))
        #expect(history.finishing.isEmpty)
    }

    @Test func aRunThatEndsEarlyKeepsWhatItAppliedAndRemovesTheRest() {
        var history = RunHistory()
        _ = record(&history, 0)
        // The second step failed: its transaction committed nothing.
        #expect(historyRows(history.finishing) == (["0001_a"], ["0002_b", "0003_c"]))
    }

    @Test func afterAnotherProcessChangedTheDatabaseTheRowsAreWrittenAgain() {
        var history = RunHistory()
        _ = record(&history, 0)
        history.forgetStandingRows()
        #expect(record(&history, 1).written == ["0002_b", "0003_c"])
        #expect(record(&history, 2).written == ["0001_a", "0002_b", "0003_c"])
    }

    @Test func aOneStepRunWritesItsRowOnce() {
        let recording = RunHistory().recording(steps[2], followedBy: [], duration: .zero)
        #expect(historyRows(recording.statements) == (["0003_c"], []))
    }

    @Test func manyRowsAreSplitWithinTheValuesAStatementMayBind() {
        let many = (1...500).map { MigrationStep<Void>(identifier: "step \($0)", checksum: "c", apply: { _ in }) }
        let recording = RunHistory().recording(many[0], followedBy: many[1...], duration: .zero)
        let inserts = recording.statements.filter { $0.sql.hasPrefix("INSERT OR REPLACE INTO grdb_migrationkit_history") }
        #expect(inserts.count == 3)
        #expect(inserts.allSatisfy { $0.arguments.count <= 999 })
        #expect(historyRows(recording.statements).written == many.map(\.identifier))
    }
}

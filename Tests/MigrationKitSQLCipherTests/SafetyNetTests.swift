import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

/// Steps whose checksum is given explicitly, like SQL files get one from their text.
private func step(_ identifier: String, _ sql: String, down: String? = nil, merging: [String] = []) -> SQLCipherMigrationStep {
    var rollback: (@Sendable (SQLCipherDatabase) throws -> Void)?
    if let down { rollback = { db in try db.execute(sql: down) } }
    return SQLCipherMigrationStep(
        identifier: identifier,
        sourceFile: "\(identifier).sql",
        checksum: SQLCipherMigrationStep.checksum(of: sql),
        merging: merging,
        apply: { db in try db.execute(sql: sql) },
        rollback: rollback)
}

@Suite struct EditedMigrationTests {
    @Test func anEditedAppliedStepIsFlaggedAndBlocksMigrate() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try SQLCipherMigrationRunner(steps: [step("0001_a", "CREATE TABLE a (x)")]).migrate(in: writer)

        // Someone edited the shipped file and added a new one.
        let edited = try SQLCipherMigrationRunner(steps: [step("0001_a", "CREATE TABLE a (x, y)"), step("0002_b", "CREATE TABLE b (z)")])
        let status = try edited.migrationStatus(in: writer)
        #expect(status.entries.map(\.state) == [.modified, .pending])
        #expect(status.modified == ["0001_a"])
        let before = try fileBytes(directory.path("app.db"))
        #expect(throws: MigrationKitError.modifiedMigrations(identifiers: ["0001_a"], files: ["0001_a.sql"])) { try edited.migrate(in: writer) }
        #expect(try fileBytes(directory.path("app.db")) == before)

        // Accepting it records the new checksum deliberately; the next run is clean.
        let report = try edited.migrate(in: writer, options: MigrateOptions(acceptModified: ["0001_a"]))
        #expect(report.identifiers == ["0002_b"])
        #expect(try edited.migrationStatus(in: writer).modified.isEmpty)
        #expect(try writer.read { try $0.columns(in: "a").map(\.name) } == ["x"])  // the edit did not run
    }

    @Test func stepsAppliedWithoutChecksumsAreAdoptedNotFlagged() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        // As GRDB leaves a database: the ledger only, no history table.
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: "CREATE TABLE a (x); INSERT INTO grdb_migrations VALUES ('0001_a');")
        }
        let runner = try SQLCipherMigrationRunner(steps: [step("0001_a", "CREATE TABLE a (x)"), step("0002_b", "CREATE TABLE b (z)")])
        #expect(try runner.migrationStatus(in: writer).entries.map(\.state) == [.applied, .pending])
        let report = try runner.migrate(in: writer)
        #expect(report.adoptedChecksums == ["0001_a"])
        #expect(report.identifiers == ["0002_b"])
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(history["0001_a"]?.checksum == SQLCipherMigrationStep.checksum(of: "CREATE TABLE a (x)"))
        #expect(history["0002_b"]?.checksum == SQLCipherMigrationStep.checksum(of: "CREATE TABLE b (z)"))
        // The ledger is still exactly GRDB's.
        #expect(try writer.read { try $0.columns(in: "grdb_migrations").map(\.name) } == ["identifier"])
    }

    /// A run of several steps records every planned step's checksum in its first step's
    /// transaction, so that no applied step is ever without one, wherever the run is
    /// cut short, and the time each step was applied in its last step's transaction. A
    /// run that fails keeps the rows of what it applied, with their times, and leaves
    /// none of what it did not apply.
    @Test func theHistoryIsWrittenAheadByARunsFirstStepAndTimedByItsLast() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let steps = [step("0001_a", "CREATE TABLE a (x)"), step("0002_b", "CREATE TABLE b (x)"),
                     step("0003_c", "CREATE TABLE c (x); INSERT INTO c VALUES (1)"), step("0004_d", "CREATE TABLE d (x)")]
        // What another connection reads after each step committed.
        let reader = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let sightings = HistorySightings()
        var runner = try SQLCipherMigrationRunner(steps: steps)
        runner.observer = { event in
            guard case .didApply(let identifier, _) = event else { return }
            sightings.record(identifier, (try? reader.read { try MigrationBookkeeping.history(in: $0) }) ?? [:])
        }
        try runner.migrate(in: writer)

        let afterFirst = sightings.seen["0001_a"] ?? [:]
        #expect(afterFirst.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d"])
        for planned in steps { #expect(afterFirst[planned.identifier]?.checksum == planned.checksum) }
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(history.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d"])
        for planned in steps { #expect(history[planned.identifier]?.checksum == planned.checksum) }
        // Each row has the time its own step was applied, in the order they were applied,
        // and in the format SQLite's strftime gives ("2026-11-21T23:15:30.123Z").
        let times = steps.map { history[$0.identifier]?.appliedAt ?? "" }
        #expect(times == times.sorted() && times.allSatisfy { $0.count == 24 && $0.hasSuffix("Z") }, "\(times)")
        #expect(history.values.allSatisfy { $0.durationMilliseconds >= 0 })

        // A run that fails at its second step: the first keeps its row, timed; the rows
        // written ahead for the failed step and the one after it are gone.
        let more = try SQLCipherMigrationRunner(steps: steps + [
            step("0005_e", "CREATE TABLE e (x)"), step("0006_f", "CREATE TABLE a (x)"), step("0007_g", "CREATE TABLE g (x)"),
        ])
        #expect(throws: MigrationStepError.self) { try more.migrate(in: writer) }
        let afterFailure = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(afterFailure.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d", "0005_e"])
        #expect(try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers } == ["0001_a", "0002_b", "0003_c", "0004_d", "0005_e"])
        #expect((afterFailure["0005_e"]?.appliedAt ?? "") > (afterFailure["0004_d"]?.appliedAt ?? "~"))
    }

    /// The rows are written in statements of many rows each: more steps than fit in one
    /// statement, written ahead, finished and removed all the same.
    @Test func aRunOfMoreStepsThanOneStatementHoldsKeepsEveryRow() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let steps = (1...520).map { number in
            // Step 300 fails: its table already exists.
            step(String(format: "%04d_t", number), number == 300 ? "CREATE TABLE t1 (x)" : "CREATE TABLE t\(number) (x)")
        }
        #expect(throws: MigrationStepError.self) { try SQLCipherMigrationRunner(steps: steps).migrate(in: writer) }
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(history.keys.sorted() == steps.prefix(299).map(\.identifier))
        #expect(history.keys.sorted() == (try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }))
        for applied in steps.prefix(299) { #expect(history[applied.identifier]?.checksum == applied.checksum) }

        let fixed = steps.prefix(299) + (300...520).map { step(String(format: "%04d_t", $0), "CREATE TABLE t\($0) (x)") }
        try SQLCipherMigrationRunner(steps: Array(fixed)).migrate(in: writer)
        let finished = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(finished.count == 520)
        for applied in fixed { #expect(finished[applied.identifier]?.checksum == applied.checksum) }
    }

    @Test func rollbackForgetsTheStepsHistory() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: [step("0001_a", "CREATE TABLE a (x)", down: "DROP TABLE a")])
        try runner.migrate(in: writer)
        #expect(try writer.read { try MigrationBookkeeping.history(in: $0) }.keys.sorted() == ["0001_a"])
        try runner.rollbackLastMigration(in: writer)
        #expect(try writer.read { try MigrationBookkeeping.history(in: $0) }.isEmpty)
    }
}

@Suite struct AtomicAndDryRunTests {
    private let fiveSteps = [
        step("0001_a", "CREATE TABLE a (x); INSERT INTO a VALUES (1);"),
        step("0002_b", "CREATE TABLE b (y)"),
        step("0003_broken", "CREATE TABLE c (z); INSERT INTO nowhere VALUES (1);"),
        step("0004_d", "CREATE TABLE d (w)"),
        step("0005_e", "CREATE TABLE e (v)"),
    ]

    @Test func anAtomicFailureInStepThreeOfFiveLeavesTheFileByteForByteUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try writer.write { try $0.execute(sql: "CREATE TABLE existing (k); INSERT INTO existing VALUES ('keep');") }
        }
        let before = try fileBytes(path)
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        #expect {
            try SQLCipherMigrationRunner(steps: fiveSteps).migrate(in: writer, options: MigrateOptions(mode: .atomic))
        } throws: { ($0 as? MigrationStepError)?.identifier == "0003_broken" }
        #expect(try fileBytes(path) == before)
        #expect(try writer.read { try $0.tableExists("a") } == false)
    }

    @Test func anAtomicRunFailingVerificationCommitsNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        _ = try SQLCipherWriter(path: path, key: .testRawKey)
        let before = try fileBytes(path)
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(
            steps: [step("0001_a", "CREATE TABLE a (x)")],
            verifier: SQLCipherMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "a", index: "a_x")]))
        #expect(throws: MigrationKitError.missingIndex(table: "a", index: "a_x")) {
            try runner.migrate(in: writer, options: MigrateOptions(mode: .atomic))
        }
        #expect(try fileBytes(path) == before)
    }

    @Test func anAtomicSuccessAppliesEverything() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let steps = [fiveSteps[0], fiveSteps[1], fiveSteps[3], fiveSteps[4]]
        let report = try SQLCipherMigrationRunner(steps: steps).migrate(in: writer, options: MigrateOptions(mode: .atomic))
        #expect(report.identifiers == ["0001_a", "0002_b", "0004_d", "0005_e"])
        #expect(try SQLCipherMigrationRunner(steps: steps).hasCompletedMigrations(in: writer))
    }

    /// A transaction larger than the page cache spills pages to the file and grows it
    /// before the commit. Checked inside the transaction, SQLCipher's
    /// cipher_integrity_check read those pages from the file and called them damaged,
    /// so every large atomic migrate, dry run and fleet failed verification.
    @Test func anAtomicRunLargerThanThePageCachePassesVerification() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let large = step("0001_large", """
            CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100000)
                INSERT INTO filler (text) SELECT printf('row %d of filler text', x) FROM n;
            """)
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try writer.write { try $0.execute(sql: "CREATE TABLE existing (k); INSERT INTO existing VALUES ('keep');") }
        }
        // Content, not bytes: pages the transaction spilled are put back from the
        // journal, and SQLCipher encrypts each page it writes with a fresh IV.
        func dump() throws -> String { try SQLCipherShell.run(path, keyPragma: DatabaseKey.testRawKeyPragma, ".dump").stdout }
        let before = try dump()
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        let dryRun = try SQLCipherMigrationRunner(steps: [large]).migrate(in: writer, options: MigrateOptions(mode: .dryRun))
        #expect(dryRun.identifiers == ["0001_large"])
        #expect(try dump() == before)
        #expect(before.contains("VALUES('keep');"), "\(before)")
        let report = try SQLCipherMigrationRunner(steps: [large]).migrate(in: writer, options: MigrateOptions(mode: .atomic))
        #expect(report.identifiers == ["0001_large"])
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM filler") } == 100_000)
        // And the file as committed is sound, page by page, to a second client.
        let shell = try SQLCipherShell.run(path, keyPragma: DatabaseKey.testRawKeyPragma, "PRAGMA integrity_check;")
        #expect(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(shell.output)")
    }

    @Test func aDryRunReportsStepsAndSchemaChangeAndLeavesTheFileUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let steps = [fiveSteps[0], fiveSteps[1]]
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try SQLCipherMigrationRunner(steps: [steps[0]]).migrate(in: writer)
        }
        let before = try fileBytes(path)
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        let report = try SQLCipherMigrationRunner(steps: steps).migrate(in: writer, options: MigrateOptions(mode: .dryRun))
        #expect(report.isDryRun)
        #expect(report.identifiers == ["0002_b"])
        #expect(report.schemaBefore == "CREATE TABLE a (x);\n")
        #expect(report.schemaAfter == "CREATE TABLE a (x);\nCREATE TABLE b (y);\n")
        #expect(try fileBytes(path) == before)
        #expect(try SQLCipherMigrationRunner(steps: steps).migrationStatus(in: writer).pending == ["0002_b"])
    }

    @Test func aDryRunOfAFailingStepReportsTheFailureAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        _ = try SQLCipherWriter(path: path, key: .testRawKey)
        let before = try fileBytes(path)
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        #expect(throws: MigrationStepError.self) {
            try SQLCipherMigrationRunner(steps: Array(fiveSteps.prefix(3))).migrate(in: writer, options: MigrateOptions(mode: .dryRun))
        }
        #expect(try fileBytes(path) == before)
    }
}

@Suite struct MergedMigrationTests {
    private let old = [
        step("0001_a", "CREATE TABLE a (x)", down: "DROP TABLE a"),
        step("0002_b", "CREATE TABLE b (y)", down: "DROP TABLE b"),
        step("0003_c", "CREATE TABLE c (z)", down: "DROP TABLE c"),
    ]
    /// 0001 and 0002 squashed into one step.
    private var squashed: [SQLCipherMigrationStep] {
        [step("0002_ab", "CREATE TABLE a (x); CREATE TABLE b (y);", down: "DROP TABLE b; DROP TABLE a;", merging: ["0001_a", "0002_b"]), old[2]]
    }

    private func ledger(_ writer: SQLCipherWriter) throws -> [String] {
        try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }
    }

    @Test func onAFreshDatabaseTheMergedStepRunsLikeAnyOther() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        #expect(try SQLCipherMigrationRunner(steps: squashed).migrate(in: writer).identifiers == ["0002_ab", "0003_c"])
        #expect(try ledger(writer) == ["0002_ab", "0003_c"])
    }

    @Test func whereEveryMergedStepIsAppliedTheLedgerIsRewritten() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try SQLCipherMigrationRunner(steps: old).migrate(in: writer, upTo: "0002_b")
        let runner = try SQLCipherMigrationRunner(steps: squashed)
        #expect(try runner.migrationStatus(in: writer).entries.map(\.state) == [.applied, .pending])
        let report = try runner.migrate(in: writer)
        #expect(report.identifiers == ["0003_c"])
        #expect(report.merges == [LedgerMerge(identifier: "0002_ab", replaces: ["0001_a", "0002_b"])])
        #expect(try Set(ledger(writer)) == ["0002_ab", "0003_c"])
        // Rolling the merged step back works from the rewritten ledger.
        try runner.rollbackMigrations(in: writer, steps: 2)
        #expect(try ledger(writer).isEmpty)
    }

    @Test func whereOnlySomeMergedStepsAreAppliedTheRunnerRefusesNamingBothSets() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try SQLCipherMigrationRunner(steps: old).migrate(in: writer, upTo: "0001_a")
        let before = try fileBytes(directory.path("app.db"))
        #expect(throws: MigrationKitError.partiallyAppliedMerge(step: "0002_ab", applied: ["0001_a"], missing: ["0002_b"])) {
            try SQLCipherMigrationRunner(steps: squashed).migrate(in: writer)
        }
        #expect(try fileBytes(directory.path("app.db")) == before)
    }
}

/// What the history held when each step had committed, by identifier.
private final class HistorySightings: @unchecked Sendable {
    private let lock = NSLock()
    private var sightings: [String: [String: MigrationHistoryTable.Entry]] = [:]
    func record(_ identifier: String, _ history: [String: MigrationHistoryTable.Entry]) { lock.withLock { sightings[identifier] = history } }
    var seen: [String: [String: MigrationHistoryTable.Entry]] { lock.withLock { sightings } }
}

import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// The history rows of a call through GRDB's migrator, written as the SQLCipher runner
/// writes them (`RunHistory`, `SafetyNetTests` on the tool's side): every planned step's
/// checksum in the call's first step's transaction, the times in its last one. What
/// another connection reads right after a commit is what a crash at any later moment
/// before the next commit leaves (SQLite rolls the unfinished transaction back), so the
/// sightings after each commit are every state a killed app can leave.
@Suite struct GRDBRunHistoryTests {
    private static func step(_ identifier: String, _ sql: String) -> MigrationStep<Database> {
        MigrationStep(identifier: identifier, checksum: "sum of \(identifier)", apply: { db in try db.execute(sql: sql) })
    }

    private static let fourSteps = [step("0001_a", "CREATE TABLE a (x)"), step("0002_b", "CREATE TABLE b (x)"),
                                    step("0003_c", "CREATE TABLE c (x); INSERT INTO c VALUES (1)"), step("0004_d", "CREATE TABLE d (x)")]

    /// GRDB can fail after a step's COMMIT and before the next step's closure (the next
    /// `BEGIN IMMEDIATE` finding another connection writing): the step GRDB's ledger then
    /// names is applied, in the report and with its history row, and the failure is no
    /// step's; a step whose transaction was rolled back after its closure (GRDB's ledger
    /// row or foreign-key check failed) is the one that failed, with no row.
    @Test func aFailureAfterAStepsCommitBlamesNoStep() throws {
        let scratch = try ScratchDatabase()
        let queue = try scratch.queue()
        let steps = [Self.step("0001_a", "CREATE TABLE a (x)"), Self.step("0002_b", "CREATE TABLE b (x)")]
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for committed in [false, true] {
                let run = GRDBMigrationRun(candidates: steps[...], watchesChanges: false, observer: nil)
                // The step's transaction as GRDB's migrator runs it, ledger row included
                // when it commits.
                try db.inTransaction(.immediate) {
                    try run.willRun(steps[0], checks: .immediate, in: db)
                    try db.execute(sql: "CREATE TABLE a (x)")
                    try run.recordHistory(of: steps[0], duration: .milliseconds(1), in: db)
                    try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('0001_a')")
                    return committed ? .commit : .rollback
                }
                let failure = run.stopped(by: DatabaseError(resultCode: .SQLITE_BUSY), in: db)
                run.finishHistory(in: db)
                let history = try MigrationBookkeeping.history(in: db)
                if committed {
                    #expect(failure == nil, "a committed step was blamed: \(String(describing: failure))")
                    #expect(run.outcome.identifiers == ["0001_a"])
                    #expect(history["0001_a"]?.checksum == steps[0].checksum)
                } else {
                    #expect(failure?.identifier == "0001_a")
                    #expect(run.outcome.identifiers.isEmpty)
                    #expect(history["0001_a"] == nil)
                }
            }
        }
    }

    /// A call of several steps records every step's checksum in its first step's
    /// transaction, so that no applied step is ever without one wherever the call is cut
    /// short, and each step's time in its last step's transaction. A call that fails
    /// keeps the rows of what it applied, with their times, and none of what it did not
    /// apply. With the commands' `.strict` checks too, whose reading of the ledger
    /// plans the rows.
    @Test(arguments: WriterKind.allCases, [HistoryChecks.grdb, .strict])
    func theHistoryIsWrittenAheadByACallsFirstStepAndTimedByItsLast(_ kind: WriterKind, checks: HistoryChecks) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        let sightings = try Sightings(of: scratch)
        var runner = try GRDBMigrationRunner(steps: Self.fourSteps)
        runner.historyChecks = checks
        runner.observer = sightings.afterEachCommit
        try runner.migrate(in: writer)

        let afterFirst = try #require(sightings.seen["0001_a"])
        #expect(afterFirst.ledger == ["0001_a"])
        #expect(afterFirst.history.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d"])
        for planned in Self.fourSteps { #expect(afterFirst.history[planned.identifier]?.checksum == planned.checksum) }
        sightings.expectEveryAppliedStepChecksummed()
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(history.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d"])
        for planned in Self.fourSteps { #expect(history[planned.identifier]?.checksum == planned.checksum) }
        // Each row has the time its own step was applied, in the order they were applied,
        // in the format SQLite's strftime gives ("2026-11-21T23:15:30.123Z").
        let times = Self.fourSteps.map { history[$0.identifier]?.appliedAt ?? "" }
        #expect(times == times.sorted() && times.allSatisfy { $0.count == 24 && $0.hasSuffix("Z") }, "\(times)")

        // A call that fails at its second step: the first keeps its row, timed; the rows
        // written ahead for the failed step and the one after it are gone.
        var more = try GRDBMigrationRunner(steps: Self.fourSteps + [
            Self.step("0005_e", "CREATE TABLE e (x)"), Self.step("0006_f", "CREATE TABLE a (x)"), Self.step("0007_g", "CREATE TABLE g (x)"),
        ])
        more.historyChecks = checks
        #expect(throws: DatabaseError.self) { try more.migrate(in: writer) }
        let afterFailure = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(afterFailure.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d", "0005_e"])
        #expect(try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers } == ["0001_a", "0002_b", "0003_c", "0004_d", "0005_e"])
        #expect(afterFailure["0005_e"]?.checksum == "sum of 0005_e")
        #expect((afterFailure["0005_e"]?.appliedAt ?? "") >= (afterFailure["0004_d"]?.appliedAt ?? "~"))
    }

    /// GRDB's `asyncMigrate` ends as `migrate` does: a call that fails keeps no row of
    /// what it did not apply, finished before the writer runs anything scheduled after.
    @Test(arguments: WriterKind.allCases)
    func anAsynchronousCallThatFailsFinishesItsHistoryToo(_ kind: WriterKind) async throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        let runner = try GRDBMigrationRunner(steps: Self.fourSteps + [Self.step("0005_e", "CREATE TABLE a (x)")])
        let failed: Bool = await withCheckedContinuation { continuation in
            runner.asyncMigrate(writer) { result in
                if case .failure = result { continuation.resume(returning: true) } else { continuation.resume(returning: false) }
            }
        }
        #expect(failed)
        let (ledger, history) = try await writer.read { db in
            (try MigrationBookkeeping.snapshot(in: db).identifiers, try MigrationBookkeeping.history(in: db))
        }
        #expect(ledger == ["0001_a", "0002_b", "0003_c", "0004_d"])
        #expect(history.keys.sorted() == ledger)
    }

    /// Another connection that commits between two of the call's steps may have removed
    /// rows the call wrote ahead (here it deletes them, as a rollback forgets a step's
    /// row): the next step's transaction, seeing `PRAGMA data_version` move, writes its
    /// row and those of the steps after it again, so a crash after it still leaves no
    /// applied step without its checksum.
    @Test(arguments: WriterKind.allCases)
    func rowsAnotherConnectionRemovedBetweenTwoStepsAreWrittenAgain(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        let other = try DatabaseQueue(path: scratch.path)
        let steps = [
            Self.step("0001_a", "CREATE TABLE a (x)"),
            MigrationStep<Database>(identifier: "0002_b", checksum: "sum of 0002_b", apply: { db in
                try db.execute(sql: "CREATE TABLE b (x)")
                db.afterNextTransaction { _ in
                    try? other.write { try $0.execute(sql: "DELETE FROM grdb_migrationkit_history WHERE identifier IN ('0003_c', '0004_d')") }
                }
            }),
            Self.fourSteps[2], Self.fourSteps[3],
        ]
        let sightings = try Sightings(of: scratch)
        var runner = try GRDBMigrationRunner(steps: steps)
        runner.observer = sightings.afterEachCommit
        try runner.migrate(in: writer)

        #expect(sightings.seen["0002_b"]?.history.keys.sorted() == ["0001_a", "0002_b"], "the other connection's delete")
        #expect(sightings.seen["0003_c"]?.history.keys.sorted() == ["0001_a", "0002_b", "0003_c", "0004_d"])
        sightings.expectEveryAppliedStepChecksummed()
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        for planned in steps { #expect(history[planned.identifier]?.checksum == planned.checksum) }
    }

    /// The runner's `migrator`, which an app hands to GRDB's own APIs, has no call around
    /// its steps: each step writes its own row in its own transaction.
    @Test func theMigratorForGRDBsOwnAPIsWritesEachStepsRowInItsTransaction() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        let seenBySecondStep = Sightings.Box()
        let runner = try GRDBMigrationRunner(steps: [
            Self.step("0001_a", "CREATE TABLE a (x)"),
            MigrationStep<Database>(identifier: "0002_b", checksum: "sum of 0002_b", apply: { db in
                seenBySecondStep.value = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrationkit_history ORDER BY identifier")
            }),
            Self.step("0003_c", "CREATE TABLE a (x)"),
        ])
        #expect(throws: DatabaseError.self) { try runner.migrator.migrate(writer) }
        #expect(seenBySecondStep.value == ["0001_a"])
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(history.mapValues(\.checksum) == ["0001_a": "sum of 0001_a", "0002_b": "sum of 0002_b"])
    }

    /// The rows are written in statements of many rows each: more steps than fit in one
    /// statement, written ahead, finished and removed all the same.
    @Test func aCallOfMoreStepsThanOneStatementHoldsKeepsEveryRow() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.pool()
        let steps = (1...520).map { number in
            // Step 300 fails: its table already exists.
            Self.step(String(format: "%04d_t", number), number == 300 ? "CREATE TABLE t1 (x)" : "CREATE TABLE t\(number) (x)")
        }
        #expect(throws: DatabaseError.self) { try GRDBMigrationRunner(steps: steps).migrate(in: writer) }
        let history = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(history.keys.sorted() == steps.prefix(299).map(\.identifier))
        #expect(history.keys.sorted() == (try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }))
        for applied in steps.prefix(299) { #expect(history[applied.identifier]?.checksum == applied.checksum) }

        let fixed = steps.prefix(299) + (300...520).map { Self.step(String(format: "%04d_t", $0), "CREATE TABLE t\($0) (x)") }
        try GRDBMigrationRunner(steps: Array(fixed)).migrate(in: writer)
        let finished = try writer.read { try MigrationBookkeeping.history(in: $0) }
        #expect(finished.count == 520)
        for applied in fixed { #expect(finished[applied.identifier]?.checksum == applied.checksum) }
    }
}

/// What another connection reads of the ledger and the history right after each step of
/// a call committed (the observer's `didApply`, heard once the step committed).
private final class Sightings: @unchecked Sendable {
    struct Sighting {
        let ledger: [String]
        let history: [String: MigrationHistoryTable.Entry]
    }

    private let reader: DatabaseQueue
    private let lock = NSLock()
    private var sightings: [String: Sighting] = [:]

    init(of scratch: ScratchDatabase) throws {
        reader = try DatabaseQueue(path: scratch.path)
    }

    var afterEachCommit: @Sendable (MigrationEvent) -> Void {
        { [self] event in
            guard case .didApply(let identifier, _) = event else { return }
            let sighting = Result {
                try reader.read { db in
                    Sighting(ledger: try MigrationBookkeeping.snapshot(in: db).identifiers, history: try MigrationBookkeeping.history(in: db))
                }
            }
            lock.withLock { sightings[identifier] = try? sighting.get() }
            #expect(throws: Never.self) { try sighting.get() }
        }
    }

    var seen: [String: Sighting] { lock.withLock { sightings } }

    /// What a step saw, kept for the test.
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String]?
        var value: [String]? {
            get { lock.withLock { seen } }
            set { lock.withLock { seen = newValue } }
        }
    }

    /// After every commit, every step in the ledger has its checksum in the history.
    func expectEveryAppliedStepChecksummed(sourceLocation: SourceLocation = #_sourceLocation) {
        for (identifier, sighting) in seen {
            let checksummed = Set(sighting.history.values.filter { $0.checksum != nil }.map(\.identifier))
            #expect(Set(sighting.ledger).isSubset(of: checksummed), "after \(identifier): \(sighting.ledger) applied, \(checksummed.sorted()) checksummed",
                    sourceLocation: sourceLocation)
        }
    }
}

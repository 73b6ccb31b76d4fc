import Foundation
import GRDB
@testable import MigrationKit
@testable import MigrationKitFiles
@testable import MigrationKitGRDB
import GRDBTestSupport
import Testing

private func tables(_ reader: any DatabaseReader) throws -> [String] {
    try reader.read { db in
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    }
}

private func ledger(_ reader: any DatabaseReader) throws -> [String] {
    try reader.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
}

@Suite struct GRDBMigrationRunnerTests {
    /// Every call that changes the database holds its change lock, as the tool's commands
    /// do (here another holder has it, as `migrationkit rekey` would): a writer whose busy
    /// mode does not wait, GRDB's default, fails at once with `SQLITE_BUSY` and changes
    /// nothing; one with a busy timeout waits for the holder to let go, then migrates.
    @Test(arguments: WriterKind.allCases)
    func aCallThatChangesTheDatabaseHoldsItsChangeLock(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        func open(_ configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
            kind == .queue ? try DatabaseQueue(path: scratch.path, configuration: configuration)
                : try DatabasePool(path: scratch.path, configuration: configuration)
        }
        var runner = GRDBMigrationRunner()
        runner.registerMigration("0001_notes", rollback: { db in try db.execute(sql: "DROP TABLE notes") }) { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY)")
        }
        let writer = try open()
        let held = try DatabaseFileLock.exclusive(path: scratch.path, timeout: .zero)
        #expect(held.locksAFile)
        func isBusy(_ error: any Error) -> Bool {
            (error as? DatabaseError)?.resultCode == .SQLITE_BUSY
                && "\(error)".contains("\(scratch.path): Another process (another run of the app, or a MigrationKit command such as a rekey) is changing this database and holds its change lock; try again when it is done, or let the writer wait for it with a busy timeout (Configuration.busyMode = .timeout(seconds)).")
        }
        #expect { try runner.migrate(in: writer, options: MigrateOptions(mode: .atomic)) } throws: { isBusy($0) }
        #expect { try runner.erase(writer) } throws: { isBusy($0) }
        #expect { try runner.migrate(writer) } throws: { isBusy($0) }
        var brief = Configuration()
        brief.busyMode = .timeout(0.2)
        let briefWriter = try open(brief)
        #expect { try runner.migrate(briefWriter) } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_BUSY
                && "\(error)".contains("\(scratch.path): Another process (another run of the app, or a MigrationKit command such as a rekey) kept changing this database for longer than the writer's busy timeout (0.2 s).")
        }
        #expect(try tables(writer).isEmpty)

        held.release()
        try runner.migrate(writer)
        let holder = try DatabaseFileLock.exclusive(path: scratch.path, timeout: .zero)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { holder.release() }
        var waits = Configuration()
        waits.busyMode = .timeout(30)
        let started = ContinuousClock.now
        try runner.rollbackLastMigration(in: try open(waits))
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(try ledger(writer).isEmpty)
    }

    /// A GRDB app's file imports GRDB and MigrationKit: `ResultCode` is GRDB's, with no
    /// module name (MigrationKit's is `SQLiteResultCode`), and a failed step's error is
    /// GRDB's, as `DatabaseMigrator` throws it.
    @Test func aGRDBAppNamesGRDBsResultCodeUnqualified() throws {
        var runner = GRDBMigrationRunner()
        try runner.registerMigration("0001_fails") { db in try db.execute(sql: "INSERT INTO nowhere VALUES (1)") }
        do {
            try runner.migrate(try DatabaseQueue())
            Issue.record("a step that fails did not throw")
        } catch let error as DatabaseError {
            let code: ResultCode = error.resultCode
            #expect(code == ResultCode.SQLITE_ERROR, "\(error)")
        }
    }

    /// The issue's example, as an app writes it.
    @Test(arguments: WriterKind.allCases)
    func theExampleRunsAsWritten(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let dbQueue = try kind.open(scratch)
        let steps = [
            MigrationStep<Database>(
                identifier: "0001_create_items",
                sourceFile: "M0001_CreateItems.swift",
                apply: { db in try db.create(table: "items") { t in t.column("id", .integer).primaryKey() } },
                rollback: { db in try db.drop(table: "items") }
            ),
        ]
        let runner = try GRDBMigrationRunner(steps: steps)
        #expect(try runner.hasCompletedMigrations(in: dbQueue) == false)
        try runner.migrate(in: dbQueue)
        #expect(try runner.hasCompletedMigrations(in: dbQueue))
        #expect(try runner.appliedIdentifiers(in: dbQueue) == ["0001_create_items"])
        #expect(try tables(dbQueue).contains("items"))
        #expect(try runner.rollbackLastMigration(in: dbQueue).identifiers == ["0001_create_items"])
        #expect(try !tables(dbQueue).contains("items"))
        #expect(try ledger(dbQueue).isEmpty)
        #expect(try runner.hasCompletedMigrations(in: dbQueue) == false)
    }

    /// A GRDB app that kept its version in `PRAGMA user_version` adopts its database at
    /// launch, before migrating: the ladder's N is the first N steps, proven against the
    /// schema (a schema that differs is refused with nothing written), then the rest runs.
    @Test(arguments: WriterKind.allCases)
    func anAppOnAUserVersionLadderAdoptsAtLaunch(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        try writer.write { db in try db.execute(sql: "CREATE TABLE a (x); INSERT INTO a VALUES (1); PRAGMA user_version = 2;") }
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
            MigrationStep(identifier: "0002_b", apply: { db in try db.execute(sql: "CREATE TABLE b (y)") }),
            MigrationStep(identifier: "0003_c", apply: { db in try db.execute(sql: "CREATE TABLE c (z)") }),
        ])
        #expect {
            try runner.adopt(in: writer)
        } throws: { error in
            guard case .schemaDiffers(let first, _, "0002_b")? = (error as? OtherToolAdoptionError)?.problems.first else { return false }
            return first.name == "b" && first.change == .missing
        }
        #expect(try runner.migrationStatus(in: writer).applied.isEmpty)

        try writer.write { db in try db.execute(sql: "CREATE TABLE b (y)") }
        #expect(try runner.adopt(in: writer, dryRun: true).identifiers == ["0001_a", "0002_b"])
        #expect(try runner.migrationStatus(in: writer).applied.isEmpty)
        let adoption = try runner.adopt(in: writer, from: .userVersion)
        #expect(adoption.identifiers == ["0001_a", "0002_b"] && adoption.retired.isEmpty)
        #expect(try runner.migrate(in: writer).identifiers == ["0003_c"])
        #expect(try ledger(writer) == ["0001_a", "0002_b", "0003_c"])
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT x FROM a") } == 1)
    }

    /// GRDB's migrator and the runner share one ledger: either continues the other.
    @Test(arguments: WriterKind.allCases)
    func grdbsMigratorAndTheRunnerContinueEachOther(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        var plain = DatabaseMigrator()
        plain.registerMigration("0001_a") { db in try db.execute(sql: "CREATE TABLE a (x)") }
        plain.registerMigration("0002_b") { db in try db.execute(sql: "CREATE TABLE b (x)") }
        try plain.migrate(writer)

        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", checksum: "sum-a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
            MigrationStep(identifier: "0002_b", apply: { db in try db.execute(sql: "CREATE TABLE b (x)") }),
            MigrationStep(identifier: "0003_c", apply: { db in try db.execute(sql: "CREATE TABLE c (x)") },
                          rollback: { db in try db.execute(sql: "DROP TABLE c") }),
        ])
        #expect(try runner.migrationStatus(in: writer).pending == ["0003_c"])
        try runner.migrate(in: writer)
        #expect(try ledger(writer) == ["0001_a", "0002_b", "0003_c"])

        // And back: GRDB's migrator with one more step carries on from the runner's work.
        plain.registerMigration("0003_c") { db in try db.execute(sql: "CREATE TABLE c (x)") }
        plain.registerMigration("0004_d") { db in try db.execute(sql: "CREATE TABLE d (x)") }
        try plain.migrate(writer)
        #expect(try ledger(writer) == ["0001_a", "0002_b", "0003_c", "0004_d"])
        #expect(try runner.hasBeenSuperseded(in: writer))
        // As GRDB's migrator: the older app's launch migrates what it has, nothing here;
        // whether to go on is the app's question (hasBeenSuperseded).
        #expect(try runner.migrate(in: writer).identifiers.isEmpty)
        var strict = runner
        strict.historyChecks = .strict
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0004_d"])) { try strict.migrate(in: writer) }
    }

    /// With strict checks (the commands'), the steps GRDB applied get their checksums on
    /// record, so that editing one is noticed; an app's launch (GRDB's rules) reads and
    /// writes nothing GRDB would not.
    @Test func strictChecksAdoptTheChecksumsOfStepsGRDBApplied() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var plain = DatabaseMigrator()
        plain.registerMigration("0001_a") { db in try db.execute(sql: "CREATE TABLE a (x)") }
        try plain.migrate(writer)
        func runner(checksum: String) throws -> GRDBMigrationRunner {
            try GRDBMigrationRunner(steps: [
                MigrationStep(identifier: "0001_a", checksum: checksum, apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
                MigrationStep(identifier: "0002_b", apply: { db in try db.execute(sql: "CREATE TABLE b (x)") }),
            ])
        }
        try runner(checksum: "sum-a").migrate(in: writer, upTo: "0001_a")
        #expect(try writer.read { try $0.tableExists(MigrationHistoryTable.name) } == false)
        var strict = try runner(checksum: "sum-a")
        strict.historyChecks = .strict
        #expect(try strict.migrate(in: writer).adoptedChecksums == ["0001_a"])
        #expect(try runner(checksum: "sum-a-edited").migrationStatus(in: writer).modified == ["0001_a"])
    }

    @Test(arguments: WriterKind.allCases)
    func aFailingStepLeavesNothingBehind(_ kind: WriterKind) throws {
        struct Broken: Error {}
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", checksum: "a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
            MigrationStep(identifier: "0002_b", checksum: "b", apply: { db in
                try db.execute(sql: "CREATE TABLE b (x); INSERT INTO b VALUES (1)")
                throw Broken()
            }),
        ])
        // As GRDB's migrator: what the step threw, unchanged. The observer hears which
        // step it was, where it was declared, and what it threw.
        let failures = EventRecorder()
        var observed = runner
        observed.observer = failures.record
        #expect(throws: Broken.self) { try observed.migrate(in: writer) }
        #expect(failures.failures.map(\.identifier) == ["0002_b"])
        #expect(failures.failures.first?.phase == .apply && failures.failures.first?.underlying is Broken)
        #expect(failures.failures.first?.sourceFile == #fileID)
        #expect(try tables(writer) == ["a", "grdb_migrationkit_history", "grdb_migrations"])
        #expect(try ledger(writer) == ["0001_a"])
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrationkit_history") } == ["0001_a"])
        #expect(try runner.migrationStatus(in: writer).pending == ["0002_b"])
    }

    @Test func anEditedStepIsReportedAndRefused() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        let original = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", sourceFile: "Migrations/0001_a.sql", checksum: "first", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
        ])
        try original.migrate(in: writer)
        let edited = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", sourceFile: "Migrations/0001_a.sql", checksum: "second", apply: { db in try db.execute(sql: "CREATE TABLE a (x, y)") }),
            MigrationStep(identifier: "0002_b", apply: { db in try db.execute(sql: "CREATE TABLE b (x)") }),
        ])
        #expect(try edited.migrationStatus(in: writer).entries.map(\.state) == [.modified, .pending])
        var strict = edited
        strict.historyChecks = .strict
        #expect(throws: MigrationKitError.modifiedMigrations(identifiers: ["0001_a"], files: ["Migrations/0001_a.sql"])) {
            try strict.migrate(in: writer)
        }
        #expect(try tables(writer).contains("b") == false)
        // GRDB's rules (an app's launch) do not compare checksums: the next step runs.
        #expect(try edited.migrate(in: writer).identifiers == ["0002_b"])
    }

    @Test func theVerifierCatchesAMissingRequiredIndex() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var runner = try GRDBMigrationRunner(
            steps: [MigrationStep(identifier: "0001_items", apply: { db in try db.execute(sql: "CREATE TABLE items (name TEXT)") })],
            verifier: GRDBMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "items", index: "items_name")]))
        #expect(throws: MigrationKitError.missingIndex(table: "items", index: "items_name")) { try runner.migrate(in: writer) }
        // The step itself committed; adding the index satisfies the verifier.
        try writer.write { try $0.execute(sql: "CREATE INDEX items_name ON items(name)") }
        try runner.runPostMigrationChecks(in: writer)
        // The host's own check replaces the default one.
        runner.host = MigrationHostIntegration(verifyPostMigration: { _ in throw MigrationKitError.missingIndex(table: "host", index: "check") })
        let failure = #expect(throws: HostVerificationError.self) { try runner.runPostMigrationChecks(in: writer) }
        #expect(failure?.part == .postMigration)
        #expect(failure?.underlying as? MigrationKitError == .missingIndex(table: "host", index: "check"))
        // The report names each check: the default integrity check, the host's in place
        // of the default post-migration ones.
        let report = try runner.verificationReport(in: writer)
        #expect(report.checks.map(\.name) == ["quick_check", "host post-migration"])
        #expect(report.checks.map(\.passed) == [true, false])
    }

    /// The verification after a run reads the tables the run changed, as the tool's
    /// migrate does by default (a small change to a large database does not read all of
    /// it back): rows written, an index built, a table rebuilt and renamed; `.wholeFile`
    /// reads everything.
    @Test func theVerificationReadsWhatTheRunChanged() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var plain = DatabaseMigrator()
        plain.registerMigration("tables") { db in
            try db.execute(sql: "CREATE TABLE big (x); CREATE TABLE small (y); CREATE TABLE other (z); INSERT INTO big VALUES (1), (2)")
        }
        try plain.migrate(writer)
        var runner = GRDBMigrationRunner()
        runner.registerMigration("tables") { _ in }
        runner.registerMigration("index small") { db in try db.execute(sql: "CREATE INDEX small_y ON small(y)") }
        runner.registerMigration("rebuild other") { db in
            try db.execute(sql: "CREATE TABLE other_new (z, w); INSERT INTO other_new (z) SELECT z FROM other; DROP TABLE other; ALTER TABLE other_new RENAME TO other")
        }
        runner.registerMigration("fill small") { db in try db.execute(sql: "INSERT INTO small VALUES (3)") }
        #expect(try runner.migrate(in: writer, upTo: "rebuild other").verification == ["quick_check of 2 changed tables", "foreign keys"])
        #expect(try runner.migrate(in: writer, options: MigrateOptions(verification: .wholeFile)).verification == ["quick_check", "foreign keys"])
    }

    /// A step that ends GRDB's transaction itself fails as under GRDB's migrator: with
    /// GRDB's own error, and the same file afterwards.
    @Test(arguments: ["COMMIT", "ROLLBACK"])
    func aStepThatEndsTheTransactionFailsAsUnderGRDB(_ statement: String) throws {
        func outcome(_ migrate: (DatabaseQueue) throws -> Void) throws -> (error: DatabaseError?, tables: [String], ledger: [String]) {
            let scratch = try ScratchDatabase()
            let queue = try scratch.queue()
            var caught: DatabaseError?
            do { try migrate(queue) } catch let error as DatabaseError { caught = error }
            return try queue.read { db in
                (caught,
                 try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'grdb%' ORDER BY name"),
                 try db.tableExists("grdb_migrations") ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : [])
            }
        }
        let body: @Sendable (Database) throws -> Void = { db in try db.execute(sql: "CREATE TABLE made (x); \(statement)") }
        var grdb = DatabaseMigrator()
        grdb.registerMigration("ends it", migrate: body)
        var runner = GRDBMigrationRunner()
        runner.registerMigration("ends it", migrate: body)
        let expected = try outcome { try grdb.migrate($0) }
        let actual = try outcome { try runner.migrate($0) }
        #expect(expected.error?.resultCode == .SQLITE_ABORT)
        #expect(actual.error?.resultCode == expected.error?.resultCode && actual.error?.message == expected.error?.message,
                "\(String(describing: actual.error))")
        #expect(actual.tables == expected.tables && actual.ledger == expected.ledger)
    }

    @Test func migratingBeyondOrToAnUnknownTargetIsAnErrorNotATrap() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
            MigrationStep(identifier: "0002_b", apply: { db in try db.execute(sql: "CREATE TABLE b (x)") }),
        ])
        try runner.migrate(in: writer)
        // GRDB itself stops the process here (a precondition); the runner throws.
        #expect(throws: MigrationKitError.databaseAlreadyMigratedBeyond("0001_a")) { try runner.migrate(in: writer, upTo: "0001_a") }
        #expect(throws: MigrationKitError.unknownMigration("0009_z")) { try runner.migrate(in: writer, upTo: "0009_z") }
        #expect(throws: MigrationKitError.rollbackNotDefined("0002_b")) { try runner.rollbackLastMigration(in: writer) }
        #expect(throws: MigrationKitError.rollbackBeyondApplied(requested: 3, applied: 2)) { try runner.rollbackMigrations(in: writer, steps: 3) }
        #expect(try ledger(writer) == ["0001_a", "0002_b"])

        // With eraseDatabaseOnSchemaChange too (its refusals were skipped, and GRDB's
        // precondition stopped the process).
        let erasing = try GRDBMigrationRunner(steps: runner.registry.steps, eraseDatabaseOnSchemaChange: true)
        #expect(throws: MigrationKitError.databaseAlreadyMigratedBeyond("0001_a")) { try erasing.migrate(in: writer, upTo: "0001_a") }
        #expect(try ledger(writer) == ["0001_a", "0002_b"])
    }

    /// A squash that cannot be told which of its steps are applied (here a Swift step
    /// made without `applyMerged`, as a migration file's squash is) runs when none is,
    /// only rewrites the ledger when all are, and is refused when some are.
    @Test func aSquashThatCannotBeToldRunsOnlyWhenNoneOfItsStepsIsApplied() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
            MigrationStep(identifier: "0002_b", apply: { db in try db.execute(sql: "CREATE TABLE b (x)") }),
        ]).migrate(in: writer)
        let squashed = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0002_ab", merging: ["0001_a", "0002_b"], apply: { db in
                try db.execute(sql: "CREATE TABLE a (x); CREATE TABLE b (x)")
            }),
        ])
        #expect(try squashed.migrationStatus(in: writer).entries.map(\.state) == [.applied])
        let report = try squashed.migrate(in: writer)
        #expect(report.identifiers.isEmpty && report.merges == [LedgerMerge(identifier: "0002_ab", replaces: ["0001_a", "0002_b"])])
        #expect(try ledger(writer) == ["0002_ab"])
        #expect(try squashed.hasCompletedMigrations(in: writer))

        // Nothing applied: it runs.
        let fresh = try ScratchDatabase()
        let freshWriter = try fresh.queue()
        #expect(try squashed.migrate(in: freshWriter).identifiers == ["0002_ab"])
        #expect(try tables(freshWriter).contains("b"))

        // Some applied: refused, inside the step's transaction, which leaves nothing.
        let partial = try ScratchDatabase()
        let partialWriter = try partial.queue()
        try GRDBMigrationRunner(steps: [MigrationStep(identifier: "0001_a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") })])
            .migrate(in: partialWriter)
        #expect(throws: MigrationKitError.partiallyAppliedMerge(step: "0002_ab", applied: ["0001_a"], missing: ["0002_b"])) {
            try squashed.migrate(in: partialWriter)
        }
        #expect(try ledger(partialWriter) == ["0001_a"])
    }

    /// GRDB's migrator runs behind a barrier: a pool reader that starts while a step is
    /// running waits for the migration and then sees all of it, never a database half
    /// way between two steps (and never the step's uncommitted work).
    @Test func poolReadersSeeTheDatabaseBeforeOrAfterTheMigrationNeverHalfWay() throws {
        let scratch = try ScratchDatabase()
        let pool = try scratch.pool()
        try pool.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY); INSERT INTO notes DEFAULT VALUES") }
        let started = DispatchSemaphore(value: 0)
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: "0001_big", apply: { db in
                try db.execute(sql: "CREATE TABLE big (n INTEGER)")
                started.signal()
                usleep(300_000)
                try db.execute(sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
                    INSERT INTO big SELECT i FROM c;
                    """)
            }),
            MigrationStep(identifier: "0002_index", apply: { db in try db.execute(sql: "CREATE INDEX big_n ON big(n)") }),
        ])
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        DispatchQueue.global().async {
            do { try runner.migrate(in: pool) } catch { failure = error }
            finished.signal()
        }
        #expect(started.wait(timeout: .now() + 30) == .success, "the step never started")
        let seen = try pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM notes"),
             try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM big"))
        }
        #expect(seen.0 == 1)
        #expect(seen.1 == ["0001_big", "0002_index"], "a reader saw the database half way")
        #expect(seen.2 == 100_000)
        #expect(finished.wait(timeout: .now() + 30) == .success, "the migration never finished")
        if let failure { throw failure }
        #expect(try runner.hasCompletedMigrations(in: pool))
    }
}

/// What an observer heard.
final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [MigrationEvent] = []

    var record: @Sendable (MigrationEvent) -> Void { { [self] event in lock.withLock { events.append(event) } } }

    /// The events, each as a line: `willApply a 1/2`, `didApply a`, `didFail b`, …
    var lines: [String] {
        lock.withLock {
            events.map { event in
                switch event {
                case .willApply(let id, let position, let total): return "willApply \(id) \(position)/\(total)"
                case .didApply(let id, _): return "didApply \(id)"
                case .willRollback(let id, let position, let total): return "willRollback \(id) \(position)/\(total)"
                case .didRollback(let id, _): return "didRollback \(id)"
                case .willVerify: return "willVerify"
                case .didVerify: return "didVerify"
                case .didFail(let failure): return "didFail \(failure.identifier)"
                }
            }
        }
    }

    /// The failures heard (`didFail`).
    var failures: [MigrationStepError] {
        lock.withLock { events.compactMap { if case .didFail(let failure) = $0 { return failure } else { return nil } } }
    }
}

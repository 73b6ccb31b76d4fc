import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct RunnerTests {
    private func openWriter(_ directory: TemporaryDirectory, _ name: String = "app.db") throws -> SQLCipherWriter {
        try SQLCipherWriter(path: directory.path(name), key: .testRawKey)
    }

    private func ledger(_ writer: SQLCipherWriter) throws -> [String] {
        try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }
    }

    @Test func freshInstallAppliesEveryStepAndRecordsThemInGRDBsLedger() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        let report = try runner.migrate(in: writer)
        #expect(report.identifiers == ["0001_create_authors", "0002_create_books", "0003_add_year"])
        #expect(try ledger(writer) == report.identifiers)
        try writer.read { db throws in
            #expect(try db.tableExists("authors") && db.tableExists("books"))
            #expect(try db.columns(in: "books").map(\.name) == ["id", "authorId", "title", "year"])
            // GRDB's exact ledger table.
            let ledgerSQL = try db.fetchString(sql: "SELECT sql FROM sqlite_master WHERE name = 'grdb_migrations'")
            #expect(ledgerSQL == "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        #expect(try runner.hasCompletedMigrations(in: writer))
        #expect(try !runner.hasBeenSuperseded(in: writer))
    }

    @Test func upgradeFromAnOlderVersionKeepsTheRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            // Version 1 of the app shipped two steps and users stored data.
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            let v1 = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks])
            try v1.migrate(in: writer)
            try writer.write { db throws in
                for author in 1...20 {
                    try db.execute(sql: "INSERT INTO authors (id, name) VALUES (?, ?)", arguments: [.integer(Int64(author)), .text("Author \(author)")])
                    for book in 1...5 {
                        try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (?, ?)", arguments: [.integer(Int64(author)), .text("Book \(book)")])
                    }
                }
            }
        }
        // Version 2 opens the same file, with the same key, and adds a step.
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        let report = try SQLCipherMigrationRunner(steps: SampleSteps.all).migrate(in: writer)
        #expect(report.identifiers == ["0003_add_year"])
        try writer.read { db throws in
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM authors") == 20)
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM books") == 100)
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM books WHERE year IS NULL") == 100)
        }
    }

    @Test func migratingTwiceIsANoOpThatLeavesTheFileUnchanged() throws {
        let directory = try TemporaryDirectory()
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        do { try runner.migrate(in: try openWriter(directory)) }
        let before = try fileBytes(directory.path("app.db"))
        let report = try runner.migrate(in: try openWriter(directory))
        #expect(report.steps.isEmpty)
        #expect(try fileBytes(directory.path("app.db")) == before)
    }

    @Test func aFailingStatementRollsBackItsWholeStepOnly() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let declared = #line + 1
        let broken = SQLCipherMigrationStep(identifier: "0002_broken", sourceFile: "M0002_Broken.swift") { db in
            try db.execute(sql: """
                CREATE TABLE half (x);
                INSERT INTO half VALUES (1);
                INSERT INTO no_such_table VALUES (2);
                CREATE TABLE never (y);
                """)
        }
        let later = SQLCipherMigrationStep(identifier: "0003_later") { db in try db.execute(sql: "CREATE TABLE later (z)") }
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, broken, later])
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            guard let error = error as? MigrationStepError else { return false }
            // A Swift step: where it was declared, not the line of its SQL string.
            return error.identifier == "0002_broken" && error.line == declared && error.phase == .apply
                && "\(error)".hasPrefix("M0002_Broken.swift:\(declared): Migration \"0002_broken\" failed")
                && (error.underlying as? SQLCipherError)?.message == "no such table: no_such_table"
        }
        try writer.read { db throws in
            #expect(try db.tableExists("authors"))  // the earlier step stays
            #expect(try !db.tableExists("half"))    // nothing of the failing step
            #expect(try !db.tableExists("never"))
            #expect(try !db.tableExists("later"))   // later steps did not run
        }
        #expect(try ledger(writer) == ["0001_create_authors"])
    }

    @Test func aSwiftStepThatThrowsRollsBackToo() throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let step = SQLCipherMigrationStep(identifier: "0001_x") { db in
            try db.execute(sql: "CREATE TABLE x (a)")
            throw Refused()
        }
        #expect {
            try SQLCipherMigrationRunner(steps: [step]).migrate(in: writer)
        } throws: { ($0 as? MigrationStepError)?.underlying is Refused }
        #expect(try writer.read { try $0.tableExists("x") } == false)
        #expect(try ledger(writer).isEmpty)
    }

    @Test func upToStopsAtTheTargetAndRefusesGoingBack() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        #expect(try runner.migrate(in: writer, upTo: "0002_create_books").identifiers == ["0001_create_authors", "0002_create_books"])
        #expect(try runner.migrate(in: writer, upTo: "0002_create_books").steps.isEmpty)
        #expect(throws: MigrationKitError.unknownMigration("0009_nope")) { try runner.migrate(in: writer, upTo: "0009_nope") }
        try runner.migrate(in: writer)
        #expect(throws: MigrationKitError.databaseAlreadyMigratedBeyond("0001_create_authors")) {
            try runner.migrate(in: writer, upTo: "0001_create_authors")
        }
    }

    @Test func statusListsAppliedPendingAndUnknownSteps() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        let empty = try runner.migrationStatus(in: writer)
        #expect(empty.pending == ["0001_create_authors", "0002_create_books", "0003_add_year"])
        #expect(try writer.read { try MigrationBookkeeping.Tables(in: $0).ledger } == false)  // status does not write

        try runner.migrate(in: writer, upTo: "0001_create_authors")
        let partial = try runner.migrationStatus(in: writer)
        #expect(partial.entries.map(\.state) == [.applied, .pending, .pending])
        #expect(try runner.appliedIdentifiers(in: writer) == ["0001_create_authors"])
        #expect(try !runner.hasCompletedMigrations(in: writer))

        try writer.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('0099_from_the_future')") }
        let superseded = try runner.migrationStatus(in: writer)
        #expect(superseded.unknownApplied == ["0099_from_the_future"])
        #expect(try runner.hasBeenSuperseded(in: writer))
    }

    @Test func aSupersededDatabaseIsRefusedAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            let writer = try openWriter(directory)
            // A newer app version applied a step this one does not know.
            try SQLCipherMigrationRunner(steps: SampleSteps.all + [
                SQLCipherMigrationStep(identifier: "0004_newer") { try $0.execute(sql: "CREATE TABLE newer (a)") },
            ]).migrate(in: writer, upTo: "0001_create_authors")
            try writer.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('0004_newer')") }
        }
        let before = try fileBytes(path)
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0004_newer"])) { try runner.migrate(in: try openWriter(directory)) }
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0004_newer"])) { try runner.rollbackLastMigration(in: try openWriter(directory)) }
        #expect(try fileBytes(path) == before)
    }

    @Test func aPendingStepThatSortsBeforeAnAppliedOneIsRefusedUnlessAllowed() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.addYearIndependent]).migrate(in: writer)
        // A teammate's branch slipped 0002 in between.
        var runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks, SampleSteps.addYearIndependent])
        #expect(throws: MigrationKitError.pendingMigrationsOutOfOrder(pending: ["0002_create_books"], latestApplied: "0003_add_year")) {
            try runner.migrate(in: writer)
        }
        #expect(try writer.read { try $0.tableExists("books") } == false)
        runner.allowOutOfOrder = true
        #expect(try runner.migrate(in: writer).identifiers == ["0002_create_books"])
    }

    @Test func rollbackUndoesOnlyTheLatestAppliedStep() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        try runner.migrate(in: writer)
        try writer.write { try $0.execute(sql: "INSERT INTO authors VALUES (1, 'A'); INSERT INTO books (authorId, title, year) VALUES (1, 'B', 1999);") }

        #expect(try runner.rollbackLastMigration(in: writer).identifiers == ["0003_add_year"])
        #expect(try ledger(writer) == ["0001_create_authors", "0002_create_books"])
        try writer.read { db throws in
            #expect(try db.columns(in: "books").map(\.name) == ["id", "authorId", "title"])
            #expect(try db.fetchString(sql: "SELECT title FROM books") == "B")
        }
        #expect(throws: MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: "0002_create_books", requested: "0001_create_authors")) {
            try runner.rollbackMigration("0001_create_authors", in: writer)
        }
        #expect(throws: MigrationKitError.rollbackStepCountMustBeNonNegative) { try runner.rollbackMigrations(in: writer, steps: -1) }
        #expect(throws: MigrationKitError.rollbackBeyondApplied(requested: 3, applied: 2)) { try runner.rollbackMigrations(in: writer, steps: 3) }
        #expect(try runner.rollbackMigrations(in: writer, steps: 0).steps.isEmpty)
        #expect(try ledger(writer) == ["0001_create_authors", "0002_create_books"])
    }

    @Test func rollingBackSeveralStepsGoesLatestFirst() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        try runner.migrate(in: writer)
        #expect(try runner.rollbackMigrations(in: writer, steps: 2).identifiers == ["0003_add_year", "0002_create_books"])
        #expect(try ledger(writer) == ["0001_create_authors"])
        try runner.migrate(in: writer)
        #expect(try runner.rollbackMigrations(in: writer, to: "0001_create_authors").identifiers == ["0003_add_year", "0002_create_books"])
        #expect(try runner.rollbackMigrations(in: writer, to: "0001_create_authors").steps.isEmpty)
        #expect(try writer.read { try $0.tableExists("books") } == false)
    }

    @Test func aStepWithoutRollbackIsRefusedByNameBeforeAnythingChanges() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let oneWay = SQLCipherMigrationStep(identifier: "0002_one_way") { db in try db.execute(sql: "CREATE TABLE one_way (a)") }
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, oneWay, SampleSteps.addYearIndependent])
        try runner.migrate(in: writer)
        let before = try fileBytes(directory.path("app.db"))
        #expect(throws: MigrationKitError.rollbackNotDefined("0002_one_way")) { try runner.rollbackMigrations(in: writer, steps: 2) }
        // Nothing was rolled back, not even the reversible latest step.
        #expect(try ledger(writer).count == 3)
        #expect(try fileBytes(directory.path("app.db")) == before)
    }

    @Test func recreatingAParentTableKeepsEveryCascadingChildRow() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks, SampleSteps.recreateAuthors])
        try runner.migrate(in: writer, upTo: "0002_create_books")
        try writer.write { db throws in
            for author in 1...10 {
                try db.execute(sql: "INSERT INTO authors (id, name) VALUES (?, ?)", arguments: [.integer(Int64(author)), .text("A\(author)")])
                try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (?, 'x'), (?, 'y')", arguments: [.integer(Int64(author)), .integer(Int64(author))])
            }
        }
        // With foreign keys left on, DROP TABLE authors would cascade and empty books.
        try runner.migrate(in: writer)
        try writer.read { db throws in
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM books") == 20)
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM authors") == 10)
            #expect(try db.columns(in: "authors").map(\.name) == ["id", "name", "born"])
            #expect(try db.foreignKeysEnabled())  // switched back on afterwards
        }
    }

    @Test func aRecreationThatLosesParentRowsFailsItsForeignKeyCheck() throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let lossy = SQLCipherMigrationStep(identifier: "0003_lossy") { db in
            try db.execute(sql: """
                CREATE TABLE authors_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO authors_new SELECT id, name FROM authors WHERE id > 1;
                DROP TABLE authors;
                ALTER TABLE authors_new RENAME TO authors;
                """)
        }
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks, lossy])
        try runner.migrate(in: writer, upTo: "0002_create_books")
        try writer.write { try $0.execute(sql: "INSERT INTO authors VALUES (1, 'a'), (2, 'b'); INSERT INTO books (authorId, title) VALUES (1, 't');") }
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            guard let error = error as? MigrationStepError, error.identifier == "0003_lossy",
                  case .foreignKeyViolationsAdded(let added) = error.underlying as? MigrationKitError else { return false }
            return added.count == 1 && added.summary() == "books rowid 1 → authors"
        }
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM authors") } == 2)
        #expect(try ledger(writer) == ["0001_create_authors", "0002_create_books"])
        #expect(try writer.read { try $0.foreignKeysEnabled() })
    }

    @Test func hostIntegrationReplacesTheDefaultChecks() throws {
        struct AppCheckFailed: Error {}
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        let calls = Counter()
        let host = MigrationHostIntegration<SQLCipherDatabase>(
            verifyIntegrity: { _ in calls.increment() },
            verifyPostMigration: { db in
                calls.increment()
                if try db.tableExists("books") { throw AppCheckFailed() }
            })
        // A missing required index would fail the default post-migration check, but the host replaced it.
        let runner = try SQLCipherMigrationRunner(
            steps: [SampleSteps.createAuthors], host: host,
            verifier: SQLCipherMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "authors", index: "nope")]))
        try runner.migrate(in: writer)
        #expect(calls.value == 2)
        let failing = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks], host: host)
        #expect {
            try failing.migrate(in: writer)
        } throws: { error in
            (error as? HostVerificationError)?.part == .postMigration && (error as? HostVerificationError)?.underlying is AppCheckFailed
        }
    }

    @Test func observerSeesEachStepInOrder() throws {
        let directory = try TemporaryDirectory()
        let events = EventLog()
        var runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        runner.observer = { events.append($0) }
        try runner.migrate(in: try openWriter(directory))
        #expect(events.descriptions == [
            "willApply 0001_create_authors 1/3", "didApply 0001_create_authors",
            "willApply 0002_create_books 2/3", "didApply 0002_create_books",
            "willApply 0003_add_year 3/3", "didApply 0003_add_year",
            "willVerify", "didVerify",
        ])
    }

    /// Each step's transaction commits by truncating the rollback journal rather than
    /// deleting it (the journal is there, empty, when the next step starts), for the run
    /// only: afterwards, succeeded or failed, migrated or rolled back, no journal is left
    /// and the connection is back in DELETE mode; a database in WAL mode stays in it.
    @Test func stepsCommitByTruncatingTheJournalAndLeaveNoneBehind() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let journal = path + "-journal"
        let journalAtStart = JournalSightings()
        var runner = try SQLCipherMigrationRunner(steps: SampleSteps.all)
        runner.observer = { event in
            if case .willApply(let identifier, _, _) = event { journalAtStart.record(identifier, FileManager.default.fileExists(atPath: journal)) }
            if case .willRollback(let identifier, _, _) = event { journalAtStart.record(identifier, FileManager.default.fileExists(atPath: journal)) }
        }
        let writer = try openWriter(directory)
        try runner.migrate(in: writer)
        #expect(journalAtStart.seen["0002_create_books"] == true && journalAtStart.seen["0003_add_year"] == true, "\(journalAtStart.seen)")
        #expect(!FileManager.default.fileExists(atPath: journal))
        #expect(try writer.read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "delete")

        try runner.rollbackMigrations(in: writer, steps: 2)
        #expect(journalAtStart.seen["0002_create_books"] == true, "rolling back 0003 left the journal for 0002")
        #expect(!FileManager.default.fileExists(atPath: journal))

        let failing = try SQLCipherMigrationRunner(steps: SampleSteps.all + [SQLCipherMigrationStep(
            identifier: "0004_fails", apply: { db in try db.execute(sql: "CREATE TABLE authors (id INTEGER)") })])
        #expect(throws: (any Error).self) { try failing.migrate(in: writer) }
        #expect(try ledger(writer) == ["0001_create_authors", "0002_create_books", "0003_add_year"])
        #expect(!FileManager.default.fileExists(atPath: journal))
        #expect(try writer.read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "delete")

        let walPath = directory.path("wal.db")
        let walWriter = try SQLCipherWriter(path: walPath, key: .testRawKey)
        #expect(try walWriter.writeWithoutTransaction { try $0.fetchString(sql: "PRAGMA journal_mode = WAL") } == "wal")
        try SQLCipherMigrationRunner(steps: SampleSteps.all).migrate(in: walWriter)
        #expect(try walWriter.read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "wal")
        #expect(try SQLCipherWriter(path: walPath, key: .testRawKey).read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "wal")
        #expect(!FileManager.default.fileExists(atPath: walPath + "-journal"))
    }

    @Test func concurrentRunnersApplyEachStepExactlyOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let counting = CountingSteps()
        _ = try SQLCipherWriter(path: path, key: .testRawKey)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // Each task is its own connection, as separate processes would be.
                    let writer = try SQLCipherWriter(path: path, key: .testRawKey)
                    try SQLCipherMigrationRunner(steps: counting.steps).migrate(in: writer)
                }
            }
            try await group.waitForAll()
        }
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM applications") } == counting.steps.count)
        #expect(try ledger(writer).count == counting.steps.count)
    }
}

extension RunnerTests {
    /// Two runs in one process (two threads of an app) take turns as two processes do:
    /// while one is between two of its steps, the other waits for the change lock and
    /// is busy past its timeout, instead of applying a step in between.
    @Test func aSecondRunInTheSameProcessWaitsForTheFirstBetweenItsSteps() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        _ = try SQLCipherWriter(path: path, key: .testRawKey)
        let betweenSteps = DispatchSemaphore(value: 0)
        let goOn = DispatchSemaphore(value: 0)
        var pausing = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks])
        pausing.observer = { event in
            guard case .didApply("0001_create_authors", _) = event else { return }
            betweenSteps.signal()
            goOn.wait()
        }
        let first = pausing
        let firstRun = DispatchGroup()
        nonisolated(unsafe) var firstError: (any Error)?
        DispatchQueue.global().async(group: firstRun) {
            do { try first.migrate(in: try SQLCipherWriter(path: path, key: .testRawKey)) } catch { firstError = error }
        }
        #expect(betweenSteps.wait(timeout: .now() + 60) == .success)
        var configuration = SQLCipherConfiguration()
        configuration.busyTimeout = .milliseconds(200)
        let second = try SQLCipherWriter(path: path, key: .testRawKey, configuration: configuration)
        #expect {
            try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks]).migrate(in: second)
        } throws: { ($0 as? any KindedDatabaseError)?.kind == .busy }
        goOn.signal()
        #expect(firstRun.wait(timeout: .now() + 60) == .success)
        #expect(firstError == nil, "\(String(describing: firstError))")
        #expect(try ledger(second) == ["0001_create_authors", "0002_create_books"])
    }

    @Test func concurrentRunnersCanCreateTheSameNewDatabase() async throws {
        // Two launches of a new app race to create its database. Each connection keys
        // the file; without the creation lock, the one that keyed an empty file would
        // hold its own random salt and fail to read what the other wrote.
        for round in 0..<3 {
            let directory = try TemporaryDirectory()
            let path = directory.path("new-\(round).db")
            let counting = CountingSteps()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let writer = try SQLCipherWriter(path: path, key: .testPassphrase)
                        try SQLCipherMigrationRunner(steps: counting.steps).migrate(in: writer)
                    }
                }
                try await group.waitForAll()
            }
            let writer = try SQLCipherWriter(path: path, key: .testPassphrase)
            #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM applications") } == counting.steps.count)
            #expect(try fileMode(path) == 0o600)
        }
    }
}

extension SampleSteps {
    /// 0003 without a dependency on 0002's table, for ordering tests.
    static let addYearIndependent = SQLCipherMigrationStep(
        identifier: "0003_add_year",
        apply: { db in try db.execute(sql: "ALTER TABLE authors ADD COLUMN year INTEGER") },
        rollback: { db in
            try db.execute(sql: """
                CREATE TABLE authors_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO authors_new SELECT id, name FROM authors;
                DROP TABLE authors;
                ALTER TABLE authors_new RENAME TO authors;
                CREATE INDEX authors_name ON authors(name);
                """)
        })

    /// The 12-step recreation of a parent table that has ON DELETE CASCADE children.
    static let recreateAuthors = SQLCipherMigrationStep(
        identifier: "0003_recreate_authors",
        apply: { db in
            try db.execute(sql: """
                CREATE TABLE authors_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER);
                INSERT INTO authors_new (id, name) SELECT id, name FROM authors;
                DROP TABLE authors;
                ALTER TABLE authors_new RENAME TO authors;
                CREATE INDEX authors_name ON authors(name);
                """)
        })
}

/// Steps that each record their own application, to count duplicates under concurrency.
struct CountingSteps {
    let steps: [SQLCipherMigrationStep] = (1...12).map { number in
        let identifier = String(format: "%04d_step", number)
        return SQLCipherMigrationStep(identifier: identifier) { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS applications (identifier TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO applications VALUES (?)", arguments: [.text(identifier)])
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Whether the rollback journal existed as each step started, by identifier.
final class JournalSightings: @unchecked Sendable {
    private let lock = NSLock()
    private var sightings: [String: Bool] = [:]
    func record(_ identifier: String, _ exists: Bool) { lock.withLock { sightings[identifier] = exists } }
    var seen: [String: Bool] { lock.withLock { sightings } }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [MigrationEvent] = []
    func append(_ event: MigrationEvent) { lock.withLock { events.append(event) } }
    var descriptions: [String] {
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
}

@Suite struct StepTransactionOwnershipTests {
    private func stepRunning(_ sql: String) -> SQLCipherMigrationStep {
        SQLCipherMigrationStep(identifier: "0002_rogue", sourceFile: "0002_rogue.sql") { db in try db.execute(sql: sql) }
    }

    /// The cases a step can end the runner's transaction with. None may leave anything
    /// behind, and the step must not be recorded.
    @Test(arguments: [
        "INSERT INTO a VALUES (1); COMMIT; INSERT INTO a VALUES (2);",
        "INSERT INTO a VALUES (1); END; INSERT INTO a VALUES (2);",
        "INSERT INTO a VALUES (1); ROLLBACK; INSERT INTO a VALUES (2);",
        "INSERT INTO a VALUES (1); ROLLBACK;",
        "INSERT INTO a VALUES (1); COMMIT;",
    ])
    func aStepThatEndsTheTransactionKeepsNothingAndIsNotRecorded(_ sql: String) throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let create = SQLCipherMigrationStep(identifier: "0001_a") { db in try db.execute(sql: "CREATE TABLE a (x)") }
        for mode in [MigrateOptions.Mode.perStep, .atomic] {
            #expect {
                try SQLCipherMigrationRunner(steps: [create, stepRunning(sql)]).migrate(in: writer, options: MigrateOptions(mode: mode))
            } throws: { error in
                guard let error = error as? MigrationStepError else { return false }
                return error.identifier == "0002_rogue" && error.underlying is StepEndedTransaction
                    && error.description.contains("ended the runner's transaction")
            }
            let ledger = try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }
            #expect(!ledger.contains("0002_rogue"))
            if try writer.read({ try $0.tableExists("a") }) {
                #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM a") } == 0)
            }
        }
    }

    @Test func aSwiftStepCannotCommitEither() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let rogue = SQLCipherMigrationStep(identifier: "0001_rogue") { db in
            try db.execute(sql: "CREATE TABLE a (x)")
            try db.execute(sql: "COMMIT", arguments: [])
        }
        #expect(throws: MigrationStepError.self) { try SQLCipherMigrationRunner(steps: [rogue]).migrate(in: writer) }
        #expect(try writer.read { try $0.tableExists("a") } == false)
        #expect(try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }.isEmpty)
        // The connection works normally afterwards: the veto is only for steps.
        try writer.write { try $0.execute(sql: "CREATE TABLE b (y)") }
        #expect(try writer.read { try $0.tableExists("b") })
    }
}

extension RunnerTests {
    /// An error about the files, not the SQL, explains itself in the library: an app
    /// that embeds it prints the tool's sentence, with the step named.
    @Test func aFileProblemInAStepIsExplainedByTheLibrary() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let full = SQLCipherError(kind: .sqlite, resultCode: .SQLITE_FULL, message: "database or disk is full", sql: "COMMIT")
        let declared = #line + 1
        let step = SQLCipherMigrationStep(identifier: "0001_fills_the_disk", sourceFile: "M0001.swift") { _ in throw full }
        let runner = try SQLCipherMigrationRunner(steps: [step])
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            guard let error = error as? MigrationStepError else { return false }
            return error.explanation?.name == "diskFull"
                && error.description == "M0001.swift:\(declared): Migration \"0001_fills_the_disk\" failed because the disk is full, and was rolled back; "
                    + "free some space (SQLite also needs room for a journal beside the file it writes), then run the command again."
        }
        #expect(full.at(path: "/data/app.db").description.hasPrefix("/data/app.db: Stopped because the disk is full; free some space"))
        // A journal that cannot be made beside the database: SQLite 3.22+ says the
        // folder is read-only, older ones only that the file cannot be opened.
        let readOnlyFolder = SQLCipherError(kind: .sqlite, resultCode: .SQLITE_READONLY_DIRECTORY, message: "attempt to write a readonly database")
        #expect(readOnlyFolder.explanation?.name == "cannotOpenJournal" && readOnlyFolder.explanation?.cause.hasSuffix(": the folder is read-only") == true)
        let cannotOpen = SQLCipherError(kind: .sqlite, resultCode: .SQLITE_CANTOPEN, message: "unable to open database file")
        #expect(cannotOpen.explanation?.name == "cannotOpenJournal" && cannotOpen.explanation?.cause.hasSuffix("(its journal)") == true)
        #expect(SQLCipherError(kind: .sqlite, resultCode: .SQLITE_READONLY, message: "readonly").explanation?.name == "readOnly")
        // An error about the SQL keeps SQLite's words, and no explanation.
        let syntax = SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR, message: "near \"CREAT\": syntax error")
        #expect(syntax.explanation == nil && syntax.description == "near \"CREAT\": syntax error")
    }
}

extension RunnerTests {
    /// The plan made before the write lock can be stale: another process applied its
    /// next step meanwhile. Under the lock the run plans again, and the step that now
    /// comes next may want its foreign keys handled otherwise than the step's
    /// transaction was set up for (enforcement is set outside the transaction): the
    /// transaction is set up again for that step before it runs. Either way round, the
    /// step then does what it would have done without the race: an `.immediate` step
    /// fails at the statement that breaks a foreign key, a deferred one may break one on
    /// the way if it mends it before it commits.
    @Test(arguments: [ForeignKeyChecks.deferred, .immediate])
    func aStepThatComesNextOnlyUnderTheLockRunsWithItsOwnForeignKeyHandling(_ firstStep: ForeignKeyChecks) throws {
        let directory = try TemporaryDirectory()
        let writer = try openWriter(directory)
        var family = SQLCipherMigrationStep(identifier: "0001_family") { db in
            try db.execute(sql: "CREATE TABLE parents (id INTEGER PRIMARY KEY); CREATE TABLE children (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parents(id));")
        }
        family.foreignKeyChecks = firstStep
        var mend = SQLCipherMigrationStep(identifier: "0002_mend") { db in
            try db.execute(sql: "INSERT INTO children VALUES (11, 99); INSERT INTO parents VALUES (99);")
        }
        mend.foreignKeyChecks = firstStep == .deferred ? .immediate : .deferred
        let runner = try SQLCipherMigrationRunner(steps: [family, mend])
        // The ledger as this connection read it, its plan starting with 0001_family…
        let stale = try runner.readLedger(in: writer)
        // …which another process applies before this run takes the write lock.
        try SQLCipherMigrationRunner(steps: [family]).migrate(in: try openWriter(directory))
        #expect(try writer.read { try $0.foreignKeysEnabled() }, "enforcement is what an immediate step keeps on")

        if mend.foreignKeyChecks == .immediate {
            #expect {
                try runner.migrate(in: writer, upTo: nil, options: MigrateOptions(), from: stale)
            } throws: { error in
                guard let failure = error as? MigrationStepError else { return false }
                return failure.identifier == "0002_mend" && "\(failure.underlying)".contains("FOREIGN KEY constraint failed")
            }
            #expect(try ledger(writer) == ["0001_family"])
        } else {
            let report = try runner.migrate(in: writer, upTo: nil, options: MigrateOptions(), from: stale)
            #expect(report.identifiers == ["0002_mend"])
            #expect(try ledger(writer) == ["0001_family", "0002_mend"])
        }
        #expect(try writer.read { try $0.foreignKeysEnabled() }, "enforcement is back on after the run")
    }
}

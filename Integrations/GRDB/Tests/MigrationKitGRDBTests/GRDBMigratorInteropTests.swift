import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// GRDB's own documentation example (the migrations guide's `DatabaseMigrator`, its
/// migration names and closures), moved to `GRDBMigrationRunner` half way and back:
/// both keep one ledger, so an app adopts the runner, or leaves it, on its users'
/// databases as they are.
@Suite struct GRDBMigratorInteropTests {
    static let createAuthors = "Create authors"
    static let addBooks = "Add books and author.birthYear"

    @Sendable static func createAuthorTable(_ db: Database) throws {
        try db.create(table: "author") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("creationDate", .datetime)
            t.column("name", .text)
        }
    }

    @Sendable static func addBookTableAndBirthYear(_ db: Database) throws {
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("author").notNull()
            t.column("title", .text).notNull()
        }
        try db.alter(table: "author") { t in
            t.add(column: "birthYear", .integer)
        }
    }

    /// As GRDB's documentation writes it.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(createAuthors, migrate: createAuthorTable)
        migrator.registerMigration(addBooks, migrate: addBookTableAndBirthYear)
        return migrator
    }

    /// The same, registered on the runner in GRDB's style.
    static func runner() -> GRDBMigrationRunner {
        var runner = GRDBMigrationRunner()
        runner.registerMigration(createAuthors, migrate: createAuthorTable)
        runner.registerMigration(addBooks, migrate: addBookTableAndBirthYear)
        return runner
    }

    private func schemaHasEverything(_ writer: any DatabaseWriter) throws {
        try writer.read { db throws in
            #expect(try db.tableExists("book"))
            #expect(try db.columns(in: "author").map(\.name).contains("birthYear"))
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") == [Self.createAuthors, Self.addBooks])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func grdbsMigratorFirstThenTheRunnerContinues(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        defer { withExtendedLifetime(scratch) {} }
        let writer = try kind.open(scratch)
        try Self.migrator.migrate(writer, upTo: Self.createAuthors)

        let runner = Self.runner()
        #expect(try runner.appliedIdentifiers(in: writer) == [Self.createAuthors])
        #expect(try runner.migrationStatus(in: writer).pending == [Self.addBooks])
        let report = try runner.migrate(in: writer)
        #expect(report.identifiers == [Self.addBooks])
        try schemaHasEverything(writer)
        // GRDB's migrator reads the result as its own, complete.
        #expect(try writer.read { try Self.migrator.hasCompletedMigrations($0) })
        #expect(try writer.read { try Self.migrator.appliedIdentifiers($0) } == [Self.createAuthors, Self.addBooks])
    }

    @Test(arguments: WriterKind.allCases)
    func theRunnerFirstThenGRDBsMigratorContinues(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        defer { withExtendedLifetime(scratch) {} }
        let writer = try kind.open(scratch)
        let runner = Self.runner()
        #expect(try runner.migrate(in: writer, upTo: Self.createAuthors).identifiers == [Self.createAuthors])
        #expect(try writer.read { try Self.migrator.appliedMigrations($0) } == [Self.createAuthors])

        try Self.migrator.migrate(writer)
        try schemaHasEverything(writer)
        #expect(try runner.hasCompletedMigrations(in: writer))
        #expect(try runner.completedMigrations(in: writer) == [Self.createAuthors, Self.addBooks])
        // The runner then finds nothing to do, and its checks pass.
        #expect(try runner.migrate(in: writer).identifiers.isEmpty)
    }

    /// The array initializer takes the same names in the same order: registration order
    /// is the order, not the identifiers' byte order ("Create…" sorts after "Add…").
    @Test func theArrayInitializerTakesGRDBsNamesInRegistrationOrder() throws {
        let scratch = try ScratchDatabase()
        defer { withExtendedLifetime(scratch) {} }
        let writer = try WriterKind.queue.open(scratch)
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep(identifier: Self.createAuthors, apply: Self.createAuthorTable),
            MigrationStep(identifier: Self.addBooks, apply: Self.addBookTableAndBirthYear),
        ])
        try runner.migrate(in: writer)
        try schemaHasEverything(writer)
        #expect(try writer.read { try Self.migrator.hasCompletedMigrations($0) })
    }

    /// `appliedIdentifiers` is GRDB's: every identifier the ledger holds, registered or
    /// not; `appliedMigrations` and `completedMigrations` the registered ones.
    @Test func appliedIdentifiersIncludeWhatANewerVersionApplied() throws {
        let scratch = try ScratchDatabase()
        defer { withExtendedLifetime(scratch) {} }
        let writer = try WriterKind.queue.open(scratch)
        try Self.migrator.migrate(writer)
        var older = GRDBMigrationRunner()
        older.registerMigration(Self.createAuthors, migrate: Self.createAuthorTable)
        #expect(try older.appliedIdentifiers(in: writer) == [Self.createAuthors, Self.addBooks])
        #expect(try older.appliedMigrations(in: writer) == [Self.createAuthors])
        #expect(try older.completedMigrations(in: writer) == [Self.createAuthors])
        #expect(try older.hasBeenSuperseded(in: writer))
        #expect(try writer.read { try Self.migrator.appliedIdentifiers($0) } == Set(try older.appliedIdentifiers(in: writer)))
    }

    /// Registering an identifier twice stops the process, as GRDB's precondition does:
    /// a mistake in the app's code, found at its first launch, not an error to handle.
    @Test func registeringAnIdentifierTwiceStopsTheProcessAsGRDBDoes() async {
        await #expect(processExitsWith: .failure) {
            var runner = GRDBMigrationRunner()
            runner.registerMigration("Create authors") { _ in }
            runner.registerMigration("Create authors") { _ in }
        }
    }

    /// A Swift step's failure reaches the app as GRDB's own error, and the observer
    /// hears the line the step was registered on, not a line of the SQL string it ran.
    @Test func aSwiftStepsFailureIsGRDBsErrorAndTheObserverNamesItsFileAndLine() throws {
        let scratch = try ScratchDatabase()
        defer { withExtendedLifetime(scratch) {} }
        let writer = try WriterKind.queue.open(scratch)
        var runner = GRDBMigrationRunner()
        let events = EventRecorder()
        runner.observer = events.record
        let line = #line + 1
        runner.registerMigration("broken") { db in try db.execute(sql: "CREATE TABLE a (x);\nCREATE TABLE b (y);\nINSERT INTO nowhere VALUES (1);") }
        let error = #expect(throws: DatabaseError.self) { try runner.migrate(writer) }
        #expect(error?.message == "no such table: nowhere")
        let failure = events.failures.first
        #expect(failure?.sourceFile == #fileID && failure?.line == line, "\(String(describing: failure))")
        #expect(failure?.description.hasPrefix("\(#fileID):\(line): Migration \"broken\" failed and was rolled back: no such table: nowhere in `") == true,
                "\(String(describing: failure))")
        #expect(events.lines == ["willApply broken 1/1", "didFail broken"])
    }
}

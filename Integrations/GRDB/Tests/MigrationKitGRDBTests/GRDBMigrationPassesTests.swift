import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// An app that registers its steps in two passes, as GRDB lets it and as Signal does:
/// the schema steps, `migrate`, then (after what the app does between the passes) the
/// data steps, `migrate` again; each launch a new runner. Under `.strict` history checks
/// the first pass names the identifiers the second registers (`MigrateOptions.acceptUnknown`,
/// docs/grdb-apps.md), and a newer version's steps are still refused.
@Suite struct GRDBMigrationPassesTests {
    /// How the app runs its second pass: on the runner of the first, with the data
    /// steps registered after the schema ones (GRDB's and Signal's way), or on a runner
    /// of its own.
    enum SecondPass: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sameRunner, newRunner
        var testDescription: String { rawValue }
    }

    /// The app's schema steps: version 2 adds a column.
    static func registerSchemaSteps(_ runner: inout GRDBMigrationRunner, version: Int) {
        runner.registerMigration("schema_1_notes") { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        if version >= 2 {
            runner.registerMigration("schema_2_word_count") { db in try db.execute(sql: "ALTER TABLE note ADD COLUMN wordCount INTEGER") }
        }
    }

    /// The app's data steps, which need every schema step before them: version 2's
    /// fills the column version 2's schema step adds.
    static func registerDataSteps(_ runner: inout GRDBMigrationRunner, version: Int) {
        runner.registerMigration("data_1_welcome_note") { db in try db.execute(sql: "INSERT INTO note (body) VALUES ('welcome to notes')") }
        if version >= 2 {
            runner.registerMigration("data_2_count_words") { db in
                for row in try Row.fetchAll(db, sql: "SELECT id, body FROM note") {
                    let body: String = row["body"]
                    try db.execute(sql: "UPDATE note SET wordCount = ? WHERE id = ?", arguments: [body.split(separator: " ").count, row["id"]])
                }
            }
        }
    }

    /// One launch of the app at `version`: a new runner, strict checks, both passes.
    static func launch(version: Int, _ writer: any DatabaseWriter, secondPass: SecondPass) throws -> [String] {
        var runner = GRDBMigrationRunner()
        runner.historyChecks = .strict
        registerSchemaSteps(&runner, version: version)
        // Registering runs nothing: the later pass's identifiers, for the first pass.
        var later = GRDBMigrationRunner()
        later.historyChecks = .strict
        registerDataSteps(&later, version: version)
        var ran = try runner.migrate(in: writer, options: MigrateOptions(acceptUnknown: Set(later.migrations))).identifiers
        switch secondPass {
        case .sameRunner:
            registerDataSteps(&runner, version: version)
            ran += try runner.migrate(in: writer).identifiers
        case .newRunner:
            ran += try later.migrate(in: writer, options: MigrateOptions(acceptUnknown: Set(runner.migrations))).identifiers
        }
        return ran
    }

    private static func ledger(_ reader: any DatabaseReader) throws -> [String] {
        try reader.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
    }

    @Test(arguments: WriterKind.allCases, SecondPass.allCases)
    func aMigratorRegisteredInTwoPassesRunsUnderStrictChecksAtEveryLaunch(_ kind: WriterKind, _ secondPass: SecondPass) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        #expect(try Self.launch(version: 1, writer, secondPass: secondPass) == ["schema_1_notes", "data_1_welcome_note"])
        // The relaunch: the first pass meets the data step in the ledger before the
        // runner has it.
        #expect(try Self.launch(version: 1, writer, secondPass: secondPass).isEmpty)
        // An upgrade: the new schema step runs in the first pass, before the data step
        // that needs its column, though a data step was applied before it.
        #expect(try Self.launch(version: 2, writer, secondPass: secondPass) == ["schema_2_word_count", "data_2_count_words"])
        #expect(try Self.launch(version: 2, writer, secondPass: secondPass).isEmpty)
        #expect(try Self.ledger(writer) == ["schema_1_notes", "data_1_welcome_note", "schema_2_word_count", "data_2_count_words"])
        #expect(try writer.read { try Int.fetchOne($0, sql: "SELECT wordCount FROM note") } == 3)
    }

    /// What the first pass says when it is not told of the second: the unknown
    /// identifiers, and how to accept them, not a backup to restore; and what the
    /// acceptance leaves refused: a newer version's step.
    @Test func theFirstPassNamesTheStepsItDoesNotKnowAndAcceptsOnlyThoseItIsTold() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        _ = try Self.launch(version: 1, writer, secondPass: .sameRunner)
        var firstPass = GRDBMigrationRunner()
        firstPass.historyChecks = .strict
        Self.registerSchemaSteps(&firstPass, version: 1)
        let refusal = MigrationKitError.databaseSuperseded(unknown: ["data_1_welcome_note"])
        #expect(throws: refusal) { try firstPass.migrate(in: writer) }
        #expect(refusal.description.contains("(`MigrateOptions.acceptUnknown`: \"data_1_welcome_note\")"), "\(refusal)")
        #expect(!refusal.description.contains("backup"), "\(refusal)")
        #expect(refusal.remedy == .acceptUnknown(["data_1_welcome_note"]))

        // Version 2 migrated it; version 1 again (a downgrade) accepts its own data step
        // and is still refused for version 2's steps, before anything runs.
        _ = try Self.launch(version: 2, writer, secondPass: .sameRunner)
        let before = try Self.ledger(writer)
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["schema_2_word_count", "data_2_count_words"])) {
            _ = try Self.launch(version: 1, writer, secondPass: .sameRunner)
        }
        #expect(try Self.ledger(writer) == before)
    }
}

import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// `RunnerScenarios` (shared with the SQLCipher runner's tests) through the GRDB runner.
@Suite struct GRDBRunnerScenarioTests {
    private struct GRDBHarness: RunnerScenarios.Harness {
        let writer: any DatabaseWriter

        func runner(_ steps: [RunnerScenarios.Step]) throws -> GRDBMigrationRunner {
            try GRDBMigrationRunner(steps: steps.map { step -> MigrationStep<Database> in
                let up = step.up
                var rollback: (@Sendable (Database) throws -> Void)?
                if let down = step.down { rollback = { db in try db.execute(sql: down) } }
                var made = MigrationStep<Database>(identifier: step.identifier, checksum: step.checksum, merging: step.merging,
                                                   apply: { db in try db.execute(sql: up) }, rollback: rollback)
                made.foreignKeyChecks = step.foreignKeyChecks
                return made
            })
        }

        /// GRDB's migrator throws what the step threw; the observer hears the step's
        /// failure, the shape the scenarios compare on every runner.
        func migrate(_ steps: [RunnerScenarios.Step], erasingOnSchemaChange: Bool) throws {
            var runner = try runner(steps)
            runner.eraseDatabaseOnSchemaChange = erasingOnSchemaChange
            let events = EventRecorder()
            runner.observer = events.record
            do {
                try runner.migrate(in: writer)
            } catch {
                throw events.failures.last ?? error
            }
        }

        func rollback(_ steps: [RunnerScenarios.Step], count: Int, acceptModified: Set<String>) throws -> [String] {
            try runner(steps).rollbackMigrations(in: writer, steps: count, acceptModified: acceptModified).identifiers
        }

        func execute(_ sql: String) throws {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.execute(sql: sql)
            }
        }

        func applied(_ steps: [RunnerScenarios.Step]) throws -> [String] { try runner(steps).appliedIdentifiers(in: writer) }

        func ledger() throws -> [String] {
            try writer.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
        }
    }

    @Test(arguments: RunnerScenarios.all.indices, WriterKind.allCases)
    func scenario(_ index: Int, _ kind: WriterKind) throws {
        let scenario = RunnerScenarios.all[index]
        let scratch = try ScratchDatabase()
        let harness = GRDBHarness(writer: try kind.open(scratch))
        let outcome = try scenario.run(harness)
        #expect(outcome == scenario.expected, "\(scenario.name): \(outcome)")
        let ledger = try harness.ledger()
        #expect(ledger == scenario.ledgerAfter, "\(scenario.name): ledger \(ledger)")
    }
}

@testable import MigrationKit
import MigrationKitTestSupport
import Testing
@testable import MigrationKitSQLCipher

/// `RunnerScenarios` (shared with the GRDB runner's tests) through the SQLCipher runner.
@Suite struct RunnerScenarioTests {
    private struct SQLCipherHarness: RunnerScenarios.Harness {
        let writer: SQLCipherWriter

        func runner(_ steps: [RunnerScenarios.Step]) throws -> SQLCipherMigrationRunner {
            try SQLCipherMigrationRunner(steps: steps.map { step -> SQLCipherMigrationStep in
                let up = step.up
                var rollback: (@Sendable (SQLCipherDatabase) throws -> Void)?
                if let down = step.down { rollback = { db in try db.execute(sql: down) } }
                var made = SQLCipherMigrationStep(identifier: step.identifier, checksum: step.checksum, merging: step.merging,
                                                  apply: { db in try db.execute(sql: up) }, rollback: rollback)
                made.foreignKeyChecks = step.foreignKeyChecks
                return made
            })
        }

        func migrate(_ steps: [RunnerScenarios.Step], erasingOnSchemaChange: Bool) throws {
            var runner = try runner(steps)
            runner.eraseDatabaseOnSchemaChange = erasingOnSchemaChange
            try runner.migrate(in: writer)
        }

        func rollback(_ steps: [RunnerScenarios.Step], count: Int, acceptModified: Set<String>) throws -> [String] {
            try runner(steps).rollbackMigrations(in: writer, steps: count, acceptModified: acceptModified).steps.map(\.identifier)
        }

        func execute(_ sql: String) throws {
            try writer.writeWithoutTransaction { db throws in
                try db.setForeignKeysEnabled(false)
                try db.execute(sql: sql)
            }
        }

        func applied(_ steps: [RunnerScenarios.Step]) throws -> [String] { try runner(steps).appliedIdentifiers(in: writer) }

        func ledger() throws -> [String] { try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers } }
    }

    @Test(arguments: RunnerScenarios.all.indices)
    func scenario(_ index: Int) throws {
        let scenario = RunnerScenarios.all[index]
        let directory = try TemporaryDirectory()
        let harness = SQLCipherHarness(writer: try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey))
        let outcome = try scenario.run(harness)
        #expect(outcome == scenario.expected, "\(scenario.name): \(outcome)")
        let ledger = try harness.ledger()
        #expect(ledger == scenario.ledgerAfter, "\(scenario.name): ledger \(ledger)")
    }
}

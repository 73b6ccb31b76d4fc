import Foundation
import MigrationKitTestSupport
import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct VerifierTests {
    @Test func anOrphanedRowFailsTheForeignKeyCheck() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks])
        try runner.migrate(in: writer)
        try writer.writeWithoutTransaction { db throws in
            try db.setForeignKeysEnabled(false)
            try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (404, 'orphan')")
            try db.setForeignKeysEnabled(true)
        }
        #expect(throws: MigrationKitError.foreignKeyViolations(count: 1)) { try runner.runPostMigrationChecks(in: writer) }
        let report = try runner.verificationReport(in: writer)
        #expect(!report.passed)
        #expect(report.failures.map(\.name) == ["foreign_key_check"])
        #expect(report.checks.first { $0.name == "quick_check" }?.passed == true)
    }

    @Test func aMissingRequiredIndexIsReported() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let dropIndex = SQLCipherMigrationStep(identifier: "0003_drop_index") { try $0.execute(sql: "DROP INDEX books_authorId") }
        let verifier = SQLCipherMigrationVerifier(requiredIndexes: [
            RequiredIndexSpec(table: "authors", index: "authors_name"),
            RequiredIndexSpec(table: "books", index: "books_authorId"),
        ])
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks], verifier: verifier)
        try runner.migrate(in: writer)
        let dropping = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks, dropIndex], verifier: verifier)
        // The step commits; verification afterwards reports the loss.
        #expect(throws: MigrationKitError.missingIndex(table: "books", index: "books_authorId")) { try dropping.migrate(in: writer) }
        #expect(try writer.read { try MigrationLedger.identifiers(in: $0) }.last == "0003_drop_index")
    }

    @Test func aFlippedByteInADataPageFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors])
        do {
            let writer = try SQLCipherWriter(path: path, key: .testPassphrase)
            try runner.migrate(in: writer)
            try writer.write { db throws in
                for index in 1...400 {
                    try db.execute(sql: "INSERT INTO authors (name) VALUES (?)", arguments: [.text(String(repeating: "n\(index)", count: 20))])
                }
            }
        }
        // Flip one byte in the middle of the file: a data page, not page 1.
        var bytes = try fileBytes(path)
        let offset = bytes.count / 2 + 100
        bytes[offset] ^= 0xFF
        let damaged = directory.path("damaged.db")
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let writer = try SQLCipherWriter(path: damaged, key: .testPassphrase)
        #expect {
            try runner.runPostMigrationChecks(in: writer)
        } throws: { error in
            guard case .quickCheckFailed(let result) = error as? MigrationKitError else { return false }
            return !result.isEmpty && result != "ok"
        }
        // The original is intact.
        try runner.runPostMigrationChecks(in: try SQLCipherWriter(path: path, key: .testPassphrase))
    }
}

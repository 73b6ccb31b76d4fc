import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct SQLFileStepTests {
    @Test func aFailingStatementIsReportedAtItsLineInTheFile() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("Migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("""
            -- migrate:up
            CREATE TABLE a (x);
            -- migrate:down
            DROP TABLE a;
            """.utf8).write(to: URL(fileURLWithPath: folder + "/0001_a.sql"))
        try Data("""
            -- Adds b.

            -- migrate:up
            CREATE TABLE b (y);

            INSERT INTO b VALUES (1);
            INSERT INTO nowhere VALUES (2);
            -- migrate:down
            DROP TABLE b;
            """.utf8).write(to: URL(fileURLWithPath: folder + "/0002_b.sql"))
        let steps = try SQLMigrationDirectory(path: folder).load().map { SQLCipherMigrationStep(file: $0) }
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: steps)
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            guard let error = error as? MigrationStepError else { return false }
            return error.sourceFile == folder + "/0002_b.sql" && error.line == 7
                && error.description.hasPrefix(folder + "/0002_b.sql:7: Migration \"0002_b\" failed")
                && error.description.contains("no such table: nowhere")
        }
        #expect(try writer.read { try $0.tableExists("b") } == false)
        #expect(try runner.appliedIdentifiers(in: writer) == ["0001_a"])
    }

    @Test func downFilesRollBackAndReportTheirOwnPath() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("Migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("CREATE TABLE a (x);".utf8).write(to: URL(fileURLWithPath: folder + "/0001_a.up.sql"))
        try Data("\nDROP TABLE not_a;".utf8).write(to: URL(fileURLWithPath: folder + "/0001_a.down.sql"))
        let steps = try SQLMigrationDirectory(path: folder).load().map { SQLCipherMigrationStep(file: $0) }
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: steps)
        try runner.migrate(in: writer)
        #expect {
            try runner.rollbackLastMigration(in: writer)
        } throws: { error in
            guard let error = error as? MigrationStepError else { return false }
            return error.phase == .rollback && error.sourceFile == folder + "/0001_a.down.sql" && error.line == 2
        }
        #expect(try runner.appliedIdentifiers(in: writer) == ["0001_a"])
    }
}

@Suite struct SchemaComparisonTests {
    @Test func equalSchemasCompareEqualHoweverTheyWereSpelled() throws {
        let directory = try TemporaryDirectory()
        let one = try SQLCipherWriter(path: directory.path("one.db"), key: .testRawKey)
        try one.write { try $0.execute(sql: "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT); CREATE INDEX books_title ON books(title);") }
        // The same schema reached the 12-step way: recreated, renamed (stored quoted), commented.
        let two = try SQLCipherWriter(path: directory.path("two.db"), key: .testRawKey)
        try two.write { db in
            try db.execute(sql: """
                CREATE TABLE books_new (
                    id INTEGER PRIMARY KEY, -- the key
                    title text
                );
                ALTER TABLE books_new RENAME TO books;
                create index [books_title] on "books"(title);
                """)
        }
        let first = try one.read { try SchemaDump.comparableForm(of: $0) }
        let second = try two.read { try SchemaDump.comparableForm(of: $0) }
        #expect(first == second)
        // The canonical dump is the same text for both, comments, quoting and keywords' case aside.
        #expect(try one.read { try SchemaDump.canonicalSQL(of: $0) } == (try two.read { try SchemaDump.canonicalSQL(of: $0) }))

        // A real difference is not hidden: a string literal or a column type.
        try two.write { try $0.execute(sql: "CREATE VIEW v AS SELECT 'A' AS x") }
        try one.write { try $0.execute(sql: "CREATE VIEW v AS SELECT 'a' AS x") }
        #expect(try one.read { try SchemaDump.comparableForm(of: $0) } != (try two.read { try SchemaDump.comparableForm(of: $0) }))
    }
}

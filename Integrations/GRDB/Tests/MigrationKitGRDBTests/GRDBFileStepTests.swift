import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// SQL migration files under GRDB, read from a folder as `migrationkit` reads them.
@Suite struct GRDBFileStepTests {
    private func write(_ text: String, to name: String, in scratch: ScratchDatabase) throws {
        let folder = scratch.folder.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    private func folder(_ scratch: ScratchDatabase) -> String {
        scratch.folder.appendingPathComponent("Migrations").path
    }

    @Test(arguments: WriterKind.allCases)
    func aFolderOfSQLFilesMigratesAndRollsBack(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n-- migrate:down\nDROP TABLE authors;\n",
                  to: "0001_authors.sql", in: scratch)
        try write("CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id));\nCREATE INDEX books_authorId ON books(authorId);\n",
                  to: "0002_books.up.sql", in: scratch)
        try write("DROP TABLE books;\n", to: "0002_books.down.sql", in: scratch)
        let writer = try kind.open(scratch)
        let runner = try GRDBMigrationRunner(
            directory: folder(scratch),
            verifier: GRDBMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "books", index: "books_authorId")]))
        try runner.migrate(in: writer)
        #expect(try runner.appliedIdentifiers(in: writer) == ["0001_authors", "0002_books"])
        let checksums = try writer.read { try String.fetchAll($0, sql: "SELECT checksum FROM grdb_migrationkit_history ORDER BY identifier") }
        #expect(checksums.count == 2 && checksums.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }, "\(checksums)")
        // Rolled back, the required index is gone too: the verifier after a rollback
        // would say so, so the rollback runs with a verifier that requires nothing.
        #expect(throws: MigrationKitError.missingIndex(table: "books", index: "books_authorId")) {
            try runner.rollbackLastMigration(in: writer)
        }
        try runner.migrate(in: writer)
        let plain = try GRDBMigrationRunner(directory: folder(scratch))
        #expect(try plain.rollbackMigrations(in: writer, steps: 2).identifiers == ["0002_books", "0001_authors"])
        #expect(try writer.read { try $0.tableExists("authors") } == false)
    }

    /// A folder written for diesel (a folder per migration, a comment-only initial
    /// setup) and one written for Flyway (versions compared part by part, `U` files as
    /// undo) are read in their layouts, found from the files or named, as the
    /// `migrationkit` command reads them.
    @Test(arguments: WriterKind.allCases)
    func dieselAndFlywayFoldersAreReadInTheirLayouts(_ kind: WriterKind) throws {
        let diesel = try ScratchDatabase()
        for (name, text) in [
            ("00000000000000_diesel_initial_setup/up.sql", "-- This file was automatically created by Diesel to setup helper functions\n"),
            ("00000000000000_diesel_initial_setup/down.sql", "-- This file should undo anything in `up.sql`\n"),
            ("2024-06-05-131359_create_users/up.sql", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"),
            ("2024-06-05-131359_create_users/down.sql", "DROP TABLE users;\n"),
        ] {
            let path = URL(fileURLWithPath: folder(diesel)).appendingPathComponent(name)
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: path)
        }
        let dieselWriter = try kind.open(diesel)
        let dieselRunner = try GRDBMigrationRunner(directory: folder(diesel))
        try dieselRunner.migrate(in: dieselWriter)
        #expect(try dieselRunner.appliedIdentifiers(in: dieselWriter) == ["00000000000000_diesel_initial_setup", "2024-06-05-131359_create_users"])
        #expect(try dieselRunner.rollbackLastMigration(in: dieselWriter).identifiers == ["2024-06-05-131359_create_users"])
        #expect(try dieselWriter.read { try $0.tableExists("users") } == false)

        let flyway = try ScratchDatabase()
        for (name, text) in [("V1.2.10__b.sql", "CREATE TABLE b (x);\n"), ("V1.2.9__a.sql", "CREATE TABLE a (x);\n"), ("U1.2.10__b.sql", "DROP TABLE b;\n")] {
            try write(text, to: name, in: flyway)
        }
        let flywayWriter = try kind.open(flyway)
        let named = try GRDBMigrationRunner(directory: folder(flyway), layout: .flyway)
        #expect(named.registry.identifiers == ["V1.2.9__a", "V1.2.10__b"])
        let flywayRunner = try GRDBMigrationRunner(directory: folder(flyway))
        try flywayRunner.migrate(in: flywayWriter)
        let ledger = try flywayWriter.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
        #expect(ledger == ["V1.2.9__a", "V1.2.10__b"])
        #expect(try flywayRunner.rollbackLastMigration(in: flywayWriter).identifiers == ["V1.2.10__b"])
        // Read in MigrationKit's own layout, the files have no `-- migrate:up` line.
        #expect(throws: SQLMigrationFileError.self) { try GRDBMigrationRunner(directory: folder(flyway), layout: .migrationKit) }
    }

    @Test func anEditedFileIsReportedButLineEndingsAreNotAnEdit() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE a (x);\n", to: "0001_a.sql", in: scratch)
        let writer = try scratch.queue()
        try GRDBMigrationRunner(directory: folder(scratch)).migrate(in: writer)
        // The same file with Windows line endings is the same migration.
        try write("-- migrate:up\r\nCREATE TABLE a (x);\r\n", to: "0001_a.sql", in: scratch)
        #expect(try GRDBMigrationRunner(directory: folder(scratch)).migrationStatus(in: writer).modified.isEmpty)
        // Another statement is an edit, named with its file.
        try write("-- migrate:up\nCREATE TABLE a (x, y);\n", to: "0001_a.sql", in: scratch)
        var edited = try GRDBMigrationRunner(directory: folder(scratch))
        #expect(try edited.migrationStatus(in: writer).modified == ["0001_a"])
        edited.historyChecks = .strict
        #expect(throws: MigrationKitError.modifiedMigrations(identifiers: ["0001_a"], files: [folder(scratch) + "/0001_a.sql"])) {
            try edited.migrate(in: writer)
        }
    }

    @Test func aFailingStatementNamesItsFileAndLeavesNothing() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE a (x);\n", to: "0001_a.sql", in: scratch)
        try write("-- a comment\n-- migrate:up\nCREATE TABLE b (x);\nINSERT INTO missing VALUES (1);\n", to: "0002_b.sql", in: scratch)
        let writer = try scratch.queue()
        var runner = try GRDBMigrationRunner(directory: folder(scratch))
        let events = EventRecorder()
        runner.observer = events.record
        // What the file's step threw: the file and the failing statement's line, where
        // the tool reports it (SQLite points at `missing`), around GRDB's error. The
        // observer hears the same failure the SQLCipher runner throws.
        let thrown = #expect(throws: GRDBFileStatementError.self) { try runner.migrate(in: writer) }
        #expect(thrown?.sourcePath == folder(scratch) + "/0002_b.sql" && thrown?.sourceLine == 4)
        let error = events.failures.first
        #expect(error?.identifier == "0002_b" && error?.phase == .apply)
        #expect(error?.sourceFile == folder(scratch) + "/0002_b.sql" && error?.line == 4)
        #expect((error?.underlying as? DatabaseError)?.message?.contains("missing") == true)
        #expect(try writer.read { try $0.tableExists("b") } == false)
        #expect(try runner.migrationStatus(in: writer).pending == ["0002_b"])
    }

    /// A statement over several lines fails at the line of the token SQLite stopped at,
    /// as the tool reports it; one that fails while it runs, at its first line.
    @Test func aFailingStatementIsReportedWhereTheToolReportsIt() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE a (x UNIQUE);\nINSERT INTO a\nVALUES (1,\n  2 3);\n", to: "0001_syntax.sql", in: scratch)
        let writer = try scratch.queue()
        let syntax = #expect(throws: GRDBFileStatementError.self) { try GRDBMigrationRunner(directory: folder(scratch)).migrate(in: writer) }
        #expect(syntax?.sourceLine == 5, "\(String(describing: syntax))")

        try FileManager.default.removeItem(atPath: folder(scratch) + "/0001_syntax.sql")
        try write("-- migrate:up\nCREATE TABLE a (x UNIQUE);\nINSERT INTO a\nVALUES (1), (1);\n", to: "0001_constraint.sql", in: scratch)
        let constraint = #expect(throws: GRDBFileStatementError.self) { try GRDBMigrationRunner(directory: folder(scratch)).migrate(in: writer) }
        #expect(constraint?.sourceLine == 3, "\(String(describing: constraint))")
    }
}

import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitCommands
@testable import MigrationKitGRDB
@testable import MigrationKitGRDBCLI
import Testing

/// The commands over a GRDB writer with SQL migration files (`--migrations`), run in
/// this process as an app's binary runs them; GRDB checks the file afterwards.
@Suite struct GRDBCommandLineTests {
    private let host = GRDBMigrationCLIHost(commandName: "app")

    private func write(_ text: String, to name: String, in scratch: ScratchDatabase) throws {
        let folder = scratch.folder.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    private func run(_ command: String, _ scratch: ScratchDatabase, _ more: [String] = []) -> Int32 {
        GRDBMigrationCLI.run(host: host, arguments: [command, "--db-path", scratch.path, "--migrations", scratch.folder.appendingPathComponent("Migrations").path, "--quiet"] + Self.plaintext + more)
    }

    /// These tests are about plaintext files: on a GRDB built on SQLCipher (the
    /// `GRDBSQLCipher` trait) the commands need a key or `--plaintext`.
    #if GRDBSQLCipher
    static let plaintext = ["--plaintext"]
    #else
    static let plaintext: [String] = []
    #endif

    /// `optimize` over the app's writer writes the statistics GRDB then reads, on the
    /// SQLite GRDB is built on, whichever way that SQLite judges what to analyze.
    @Test func optimizeWritesTheStatisticsOnTheAppsWriter() throws {
        let scratch = try ScratchDatabase()
        try write("""
            -- migrate:up
            CREATE TABLE items (id INTEGER PRIMARY KEY, kind TEXT NOT NULL);
            CREATE INDEX items_kind ON items(kind);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO items (kind) SELECT 'kind ' || (i % 5) FROM n;
            -- migrate:down
            DROP TABLE items;
            """, to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch, ["--no-backup"]) == CLIExitCode.success.rawValue)
        #expect(run("optimize", scratch) == CLIExitCode.success.rawValue)
        let statistics = try scratch.queue().read {
            try String.fetchAll($0, sql: "SELECT stat FROM sqlite_stat1 WHERE idx = 'items_kind'")
        }
        #expect(statistics == ["500 100"])
    }

    @Test func anEditedFileIsReportedAndMigrateRefusesIt() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE items;\n", to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.success.rawValue)
        #expect(run("status", scratch, ["--exit-code"]) == CLIExitCode.success.rawValue)

        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);\n-- migrate:down\nDROP TABLE items;\n", to: "0001_items.sql", in: scratch)
        #expect(run("status", scratch, ["--exit-code"]) == CLIExitCode.refused.rawValue)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        #expect(run("migrate", scratch) == CLIExitCode.refused.rawValue)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)
    }

    /// An app whose runner erases on schema change (as GRDB recommends for debug builds)
    /// gets commands that erase only when asked: without `--erase-on-schema-change`,
    /// `migrate` on a database whose history no longer matches keeps every row.
    @Test func theAppsEraseOnSchemaChangeIsNotTheCommands() throws {
        let scratch = try ScratchDatabase()
        var before = DatabaseMigrator()
        before.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY); INSERT INTO items VALUES (1)") }
        try before.migrate(try scratch.queue())
        var runner = GRDBMigrationRunner()
        runner.eraseDatabaseOnSchemaChange = true
        runner.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)") }
        var app = host
        app.runner = runner
        _ = GRDBMigrationCLI.run(host: app, arguments: ["migrate", "--db-path", scratch.path, "--quiet"] + Self.plaintext)
        #expect(try DatabaseQueue(path: scratch.path).read { try Int.fetchAll($0, sql: "SELECT id FROM items") } == [1])
    }

    @Test func aFailingFileOnANewDatabaseLeavesNoFileBehind() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\nINSERT INTO nowhere VALUES (1);\n", to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.migrationFailed.rawValue)
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }

    @Test func aNewNameWithATrailingSlashIsRefusedAndCreatesNothing() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\n", to: "0001_items.sql", in: scratch)
        // open(2) refuses `app.sqlite/` (EISDIR); the path must reach it as written, not
        // normalised to `app.sqlite`.
        let code = GRDBMigrationCLI.run(host: host, arguments: ["migrate", "--db-path", scratch.path + "/", "--migrations",
                                                                 scratch.folder.appendingPathComponent("Migrations").path, "--quiet"] + Self.plaintext)
        #expect(code == CLIExitCode.fileError.rawValue)
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }

    @Test func aFailingStepOnAnExistingDatabaseKeepsTheStepsBeforeIt() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE items;\n", to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.success.rawValue)
        try write("-- migrate:up\nCREATE TABLE more (id INTEGER PRIMARY KEY);\nINSERT INTO nowhere VALUES (1);\n", to: "0002_more.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.migrationFailed.rawValue)
        let (items, more, ledger) = try DatabaseQueue(path: scratch.path).read { db in
            (try db.tableExists("items"), try db.tableExists("more"), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        #expect(items && !more)
        #expect(ledger == ["0001_items"])
        // The second step has no down section: rollback refuses it, and touches nothing.
        try write("-- migrate:up\nCREATE TABLE more (id INTEGER PRIMARY KEY);\n", to: "0002_more.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.success.rawValue)
        #expect(run("rollback", scratch) == CLIExitCode.refused.rawValue)
        #expect(try DatabaseQueue(path: scratch.path).read { try $0.tableExists("more") })
        #expect(run("rollback", scratch, ["--steps", "0"]) == CLIExitCode.success.rawValue)
    }

    @Test func rollbackToATargetUndoesEverythingAfterIt() throws {
        let scratch = try ScratchDatabase()
        for (number, table) in [(1, "a"), (2, "b"), (3, "c")] {
            try write("-- migrate:up\nCREATE TABLE \(table) (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE \(table);\n", to: "000\(number)_\(table).sql", in: scratch)
        }
        #expect(run("migrate", scratch) == CLIExitCode.success.rawValue)
        #expect(run("rollback", scratch, ["--to", "0009_nothing"]) == CLIExitCode.usage.rawValue)
        #expect(run("rollback", scratch, ["--to", "0001_a", "--steps", "1"]) == CLIExitCode.usage.rawValue)
        #expect(run("rollback", scratch, ["--to", "0001_a"]) == CLIExitCode.success.rawValue)
        let ledger = try DatabaseQueue(path: scratch.path).read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(ledger == ["0001_a"])
        let tables = try DatabaseQueue(path: scratch.path).read { db in try ["a", "b", "c"].filter { try db.tableExists($0) } }
        #expect(tables == ["a"])
    }

    @Test func lintErrorsInPendingFilesBlockMigrateUnlessToldOtherwise() throws {
        let scratch = try ScratchDatabase()
        // journal_mode inside a migration: a lint error (the transaction ignores it).
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\nPRAGMA journal_mode = WAL;\n", to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.migrationFailed.rawValue)
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
        #expect(run("migrate", scratch, ["--no-lint"]) == CLIExitCode.success.rawValue)
        #expect(try DatabaseQueue(path: scratch.path).read { try $0.tableExists("items") })
    }

    @Test func verifyAndMigrateCheckTheIndexesTheyAreAskedFor() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);\n", to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch, ["--require-index", "items:items_name"]) == CLIExitCode.verificationFailed.rawValue)
        #expect(run("verify", scratch) == CLIExitCode.success.rawValue)
        #expect(run("verify", scratch, ["--require-index", "items:items_name"]) == CLIExitCode.verificationFailed.rawValue)
        try DatabaseQueue(path: scratch.path).write { try $0.execute(sql: "CREATE INDEX items_name ON items(name)") }
        #expect(run("verify", scratch, ["--require-index", "items:items_name"]) == CLIExitCode.success.rawValue)
    }

    @Test func theSchemaDumpIsTheCoresCanonicalText() throws {
        let scratch = try ScratchDatabase()
        try DatabaseQueue(path: scratch.path).write { db in
            try db.execute(sql: "create table  B (x); CREATE TABLE \"a\" (\"Y\" text); CREATE INDEX b_x ON B(x)")
        }
        let dump = try DatabaseQueue(path: scratch.path).read { try SchemaDump.canonicalSQL(of: $0) }
        #expect(dump == "CREATE TABLE a (Y TEXT);\nCREATE TABLE B (x);\nCREATE INDEX b_x ON B (x);\n", "\(dump)")
        #expect(run("schema-dump", scratch) == CLIExitCode.success.rawValue)
    }

    /// `check --from-database` counts the app's rows, not SQLite's own: a step that
    /// creates an AUTOINCREMENT table and fills it adds a row to `sqlite_sequence`, which
    /// no step has to declare.
    @Test func checkFromADatabaseLeavesSQLitesOwnTablesAlone() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT, x);\nINSERT INTO a (x) VALUES (1);\n-- migrate:down\nDROP TABLE a;\n",
                  to: "0001_a.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.success.rawValue)
        try write("-- migrate:up\nCREATE TABLE b (id INTEGER PRIMARY KEY AUTOINCREMENT, y);\nINSERT INTO b (y) VALUES (2);\n-- migrate:down\nDROP TABLE b;\n",
                  to: "0002_b.sql", in: scratch)
        let check = GRDBMigrationCLI.run(host: host, arguments: ["check", "--migrations", scratch.folder.appendingPathComponent("Migrations").path,
                                                                 "--from-database", scratch.path, "--quiet"] + Self.plaintext)
        #expect(check == CLIExitCode.success.rawValue)
    }

    /// A backup that fails its integrity check is refused as damaged (exit 10), the code
    /// and `--json` kind `migrationkit restore` gives the same backup, and the database
    /// stays as it was.
    @Test func aBackupThatFailsItsIntegrityCheckIsRefusedAsDamaged() throws {
        let scratch = try ScratchDatabase()
        try write("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE items;\n", to: "0001_items.sql", in: scratch)
        #expect(run("migrate", scratch) == CLIExitCode.success.rawValue)
        // Its schema (page 1) reads; a page of its table's b-tree no longer does.
        let backup = scratch.folder.appendingPathComponent("damaged.db").path
        let queue = try DatabaseQueue(path: backup)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE filler (body TEXT)")
            for _ in 0..<50 { try db.execute(sql: "INSERT INTO filler VALUES (?)", arguments: [String(repeating: "x", count: 1000)]) }
        }
        try queue.close()
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: backup))
        try file.seek(toOffset: 2 * 4096)
        try file.write(contentsOf: Data(repeating: 0xff, count: 16))
        try file.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        let restore = GRDBMigrationCLI.run(host: host, arguments: ["restore", "--db-path", scratch.path, "--from", backup, "--quiet"] + Self.plaintext)
        #expect(restore == CLIExitCode.damaged.rawValue)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)
    }

    /// An app's binary gives its commands what only the app registers (a function its
    /// triggers call) on the writer its host opens, with GRDB's `prepareDatabase`:
    /// `migrate` and `verify` run through the app's trigger. Its commands do not load
    /// libraries (`--load-extension` is the `migrationkit` tool's): they refuse the
    /// option with one sentence pointing there, and change nothing.
    @Test func theHostsWriterRegistersWhatTheAppsTriggersCall() throws {
        let scratch = try ScratchDatabase()
        try DatabaseQueue(path: scratch.path).write { db in
            try db.execute(sql: """
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, sort TEXT);
                CREATE TRIGGER books_ai AFTER INSERT ON books BEGIN UPDATE books SET sort = app_sort(new.title) WHERE id = new.id; END;
                """)
        }
        try write("-- migrate:up\nINSERT INTO books (title) VALUES ('The Hobbit');\n-- migrate:down\nDELETE FROM books;\n", to: "0001_book.sql", in: scratch)
        // The app made its tables before its first migration.
        #expect(run("migrate", scratch, ["--no-backup", "--accept-existing-tables"]) == CLIExitCode.migrationFailed.rawValue)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        #expect(run("migrate", scratch, ["--no-backup", "--load-extension", "/usr/lib/x86_64-linux-gnu/mod_spatialite.so"]) == CLIExitCode.usage.rawValue)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)

        var app = host
        app.openWriter = { settings in
            var configuration = settings.configuration
            configuration.prepareDatabase { db in
                db.add(function: DatabaseFunction("app_sort", argumentCount: 1, pure: true) { values in
                    String.fromDatabaseValue(values[0]).map { $0.hasPrefix("The ") ? String($0.dropFirst(4)) : $0 }
                })
            }
            return try DatabaseQueue(path: settings.path, configuration: configuration)
        }
        let migrations = ["--db-path", scratch.path, "--migrations", scratch.folder.appendingPathComponent("Migrations").path, "--quiet"] + Self.plaintext
        #expect(GRDBMigrationCLI.run(host: app, arguments: ["migrate", "--accept-existing-tables"] + migrations) == CLIExitCode.success.rawValue)
        #expect(try DatabaseQueue(path: scratch.path).read { try String.fetchOne($0, sql: "SELECT sort FROM books") } == "Hobbit")
        #expect(GRDBMigrationCLI.run(host: app, arguments: ["verify"] + migrations) == CLIExitCode.success.rawValue)
        #expect(GRDBMigrationCLI.run(host: app, arguments: ["rollback"] + migrations) == CLIExitCode.success.rawValue)
    }
}

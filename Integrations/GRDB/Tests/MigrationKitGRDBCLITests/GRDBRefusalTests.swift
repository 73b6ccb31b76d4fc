import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitCommands
@testable import MigrationKitFiles
@testable import MigrationKitGRDB
@testable import MigrationKitGRDBCLI
import MigrationKitTestSupport
import Testing

/// What the commands in an app's binary say when they refuse, and what their help says:
/// the way out each names keeps the data, and is an option of that command line or
/// something the app has (its Swift steps' rollback closures), never a Swift type.
/// Run in this process, with their output captured (`ConsoleCapture`).
@Suite struct GRDBRefusalTests {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
        var output: String { stdout + stderr }
    }

    /// The app's Swift steps: each has a rollback closure.
    static func runner() -> GRDBMigrationRunner {
        var runner = GRDBMigrationRunner()
        runner.registerMigration("0001_notes", rollback: { db in try db.execute(sql: "DROP TABLE note") }) { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)")
        }
        runner.registerMigration("0002_tags", rollback: { db in try db.execute(sql: "DROP TABLE tag") }) { db in
            try db.execute(sql: "CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT)")
        }
        return runner
    }

    /// The keyed test does not harden this process (another suite checks that a
    /// process a key was never read in can still dump core).
    private let host = GRDBMigrationCLIHost(runner: Self.runner(), commandName: "notes", hardensProcess: false)

    /// These tests are about plaintext files, but for the wrong key's: on a GRDB built
    /// on SQLCipher (the `GRDBSQLCipher` trait) the commands need a key or `--plaintext`.
    #if GRDBSQLCipher
    static let plaintext = ["--plaintext"]
    #else
    static let plaintext: [String] = []
    #endif

    private func run(_ arguments: [String], host: GRDBMigrationCLIHost? = nil) -> Outcome {
        let console = ConsoleCapture()
        let status = GRDBMigrationCLI.run(host: host ?? self.host, arguments: arguments, in: ProcessSurroundings(console: Console(capture: console)))
        return Outcome(status: status, stdout: console.standardOutput, stderr: console.standardError)
    }

    private func ledger(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
    }

    /// An empty file is someone else's: `migrate` refuses it as the tool's own commands
    /// do (exit 4, one sentence naming it) and leaves it empty; one the creation's marker
    /// sits beside was left by a `migrate` that was stopped creating it, and the next
    /// `migrate` finishes it.
    @Test func anEmptyFileIsRefusedUnlessAMigrateWasStoppedCreatingIt() throws {
        let scratch = try ScratchDatabase()
        #expect(FileManager.default.createFile(atPath: scratch.path, contents: Data()))
        let refused = run(["migrate", "--db-path", scratch.path] + Self.plaintext)
        #expect(refused.status == 4, "\(refused.output)")
        #expect(refused.stderr.contains("\(scratch.path): The file is empty (0 bytes), so it is not a database; delete it to let a new database be created at this path."), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)).isEmpty)

        #expect(FileManager.default.createFile(atPath: NewDatabaseFile.marker(for: scratch.path), contents: Data()))
        let finished = run(["migrate", "--db-path", scratch.path] + Self.plaintext)
        #expect(finished.status == 0, "\(finished.output)")
        #expect(try ledger(scratch.path) == ["0001_notes", "0002_tags"])
        #expect(!FileManager.default.fileExists(atPath: NewDatabaseFile.marker(for: scratch.path)))
    }

    /// A database a newer version of the app migrated: `migrate` names the steps it does
    /// not have and `--accept-unknown`, which migrates it all the same; `rollback`, which
    /// takes no such option, says to use the newer version. Neither says to restore a
    /// backup, and neither changes the file.
    @Test func aNewerVersionsDatabaseIsRefusedNamingItsStepsAndHowToAcceptThem() throws {
        let scratch = try ScratchDatabase()
        var newer = DatabaseMigrator()
        newer.registerMigration("0001_notes") { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)") }
        newer.registerMigration("0003_archive") { db in try db.execute(sql: "CREATE TABLE archive (id INTEGER PRIMARY KEY)") }
        try newer.migrate(try scratch.queue())
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))

        let refused = run(["migrate", "--db-path", scratch.path, "--no-backup"] + Self.plaintext)
        #expect(refused.status == CLIExitCode.refused.rawValue, "\(refused.output)")
        #expect(refused.stderr == "notes: error: The database was migrated by a newer version: it has applied \"0003_archive\", which is not "
            + "among the known migrations; use the newer version, or if this version may migrate the database all the same, accept it with "
            + "--accept-unknown 0003_archive.\n", "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)

        let rollback = run(["rollback", "--db-path", scratch.path] + Self.plaintext)
        #expect(rollback.status == CLIExitCode.refused.rawValue, "\(rollback.output)")
        #expect(rollback.stderr.hasSuffix("not among the known migrations; use the newer version.\n"), "\(rollback.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)

        let accepted = run(["migrate", "--db-path", scratch.path, "--no-backup", "--accept-unknown", "0003_archive"] + Self.plaintext)
        #expect(accepted.status == CLIExitCode.success.rawValue, "\(accepted.output)")
        #expect(try ledger(scratch.path) == ["0001_notes", "0003_archive", "0002_tags"])
    }

    /// An edited migration file is refused by `baseline` too, which has no
    /// `--accept-modified`: its sentence names none (`migrate` and `rollback` do).
    @Test func aRefusalOffersOnlyTheOverridesItsCommandTakes() throws {
        let scratch = try ScratchDatabase()
        let folder = scratch.folder.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("0001_items.sql")
        try Data("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE items;\n".utf8).write(to: file)
        try Data("-- migrate:up\nCREATE TABLE more (id INTEGER PRIMARY KEY);\n".utf8).write(to: folder.appendingPathComponent("0002_more.sql"))
        let files = GRDBMigrationCLIHost(commandName: "notes")
        let common = ["--db-path", scratch.path, "--migrations", folder.path] + Self.plaintext
        #expect(run(["migrate", "--to", "0001_items", "--no-backup"] + common, host: files).status == CLIExitCode.success.rawValue)
        // An edit that leaves the schema as it was, which baseline's own check passes.
        try Data("-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\nSELECT 1;\n-- migrate:down\nDROP TABLE items;\n".utf8).write(to: file)

        let migrate = run(["migrate", "--no-backup"] + common, host: files)
        #expect(migrate.status == CLIExitCode.refused.rawValue && migrate.stderr.contains("--accept-modified 0001_items"), "\(migrate.output)")
        // The table 0002_more makes, made before the migrations (what baseline is for).
        try DatabaseQueue(path: scratch.path).write { try $0.execute(sql: "CREATE TABLE more (id INTEGER PRIMARY KEY)") }
        let baseline = run(["baseline", "--to", "0002_more"] + common, host: files)
        #expect(baseline.status == CLIExitCode.refused.rawValue, "\(baseline.output)")
        #expect(baseline.stderr.hasSuffix("put the change in a new migration.\n") && !baseline.stderr.contains("--accept-modified"), "\(baseline.output)")
    }

    /// A step with no rollback closure: `rollback` says to add one, which keeps the
    /// data, and offers no backup to restore; nothing changes.
    @Test func aStepWithNoRollbackIsRefusedSayingToAddOne() throws {
        let scratch = try ScratchDatabase()
        var oneWay = Self.runner()
        oneWay.registerMigration("0003_index_notes") { db in try db.execute(sql: "CREATE INDEX note_body ON note(body)") }
        var app = host
        app.runner = oneWay
        #expect(run(["migrate", "--db-path", scratch.path, "--no-backup"] + Self.plaintext, host: app).status == CLIExitCode.success.rawValue)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        let refused = run(["rollback", "--db-path", scratch.path] + Self.plaintext, host: app)
        #expect(refused.status == CLIExitCode.refused.rawValue, "\(refused.output)")
        #expect(refused.stderr.hasSuffix("a Swift step's rollback closure), so it cannot be rolled back; add one (`SELECT 1;` as the down "
            + "says there is nothing to undo).\n"), "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)
    }

    /// `rollback --help` speaks of what an app's steps have to roll back with: a Swift
    /// step's rollback closure as well as a migration file's down SQL.
    @Test func rollbackHelpSpeaksOfRollbackClosures() throws {
        let help = run(["rollback", "--help"])
        #expect(help.status == CLIExitCode.success.rawValue, "\(help.output)")
        // ArgumentParser wraps the overview at 80 columns.
        let overview = help.stdout.components(separatedBy: "\n\n").first?.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(overview == "OVERVIEW: Undo the latest applied migrations with their down SQL or rollback closures, then verify.", "\(help.stdout)")
    }

    /// `status` of a database not created yet says so and lists every step pending, as
    /// the `migrationkit` tool's does (exit 0, or 6 with `--exit-code`); the commands
    /// that open it refuse a missing file (exit 9). None creates it.
    @Test func statusOfAMissingDatabaseReportsItAndTheOtherCommandsRefuseIt() throws {
        let scratch = try ScratchDatabase()
        let status = run(["status", "--db-path", scratch.path] + Self.plaintext)
        #expect(status.status == CLIExitCode.success.rawValue, "\(status.output)")
        #expect(status.stdout.contains("does not exist yet: migrate creates it") && status.stdout.contains("pending  0002_tags"), "\(status.output)")
        #expect(run(["status", "--db-path", scratch.path, "--exit-code"] + Self.plaintext).status == CLIExitCode.pendingMigrations.rawValue)
        for command in ["verify", "rollback", "schema-dump"] {
            let refused = run([command, "--db-path", scratch.path] + Self.plaintext)
            #expect(refused.status == CLIExitCode.fileError.rawValue, "\(command): \(refused.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }

    #if GRDBSQLCipher
    /// A key that does not decrypt the file: the sentence says what this command line's
    /// user can do, in their words: the cipher settings are the app's code's to give
    /// (no option gives them), not a Swift type's fields.
    @Test func aWrongKeyNamesNoSwiftType() throws {
        let scratch = try ScratchDatabase()
        func keyFile(_ key: TestKey, _ name: String) throws -> String {
            let path = scratch.folder.appendingPathComponent(name).path
            try Data(key.text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            return path
        }
        let right = try keyFile(.raw(), "right.key"), wrong = try keyFile(.raw(), "wrong.key")
        #expect(run(["migrate", "--db-path", scratch.path, "--password-file", right, "--no-backup"]).status == CLIExitCode.success.rawValue)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        let refused = run(["status", "--db-path", scratch.path, "--password-file", wrong])
        #expect(refused.status == CLIExitCode.wrongKeyOrNotADatabase.rawValue, "\(refused.output)")
        #expect(refused.stderr.hasSuffix("; check the key and its source, or if the database was made with other cipher settings (page size, "
            + "KDF iterations, KDF algorithm, HMAC algorithm, page HMACs off), set them in the app's code that opens it "
            + "(no option of notes gives them).\n"), "\(refused.output)")
        #expect(!refused.stderr.contains("CipherSettings"), "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)
    }
    #endif
}

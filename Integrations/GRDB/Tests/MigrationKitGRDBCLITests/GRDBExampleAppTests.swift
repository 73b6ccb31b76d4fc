import Foundation
import GRDB
import GRDBTestSupport
import MigrationKitTestSupport
import Testing

/// The GRDB example app of docs/grdb-apps.md (Examples/GRDBNotes), run as a user runs it: the built
/// `grdb-notes` binary on a real file, with GRDB in this process as the second client.
@Suite struct GRDBExampleAppTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var output: String { stdout + stderr }
    }

    /// The built example, beside this test bundle.
    static let binary: String = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("grdb-notes").path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("grdb-notes").path
    }()

    /// Runs the example on a plaintext database: on a GRDB built on SQLCipher (the
    /// `GRDBSQLCipher` trait) the commands need a key or `--plaintext`, and these tests
    /// are about the plaintext file (EncryptedExampleAppTests has the encrypted ones).
    func run(_ arguments: [String]) throws -> Run {
        #if GRDBSQLCipher
        let arguments = arguments.contains("--db-path") ? arguments + ["--plaintext"] : arguments
        #endif
        let result = try ChildProcess.run([Self.binary] + arguments)
        return Run(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// GRDB's own migrator, knowing the example's identifiers only: what it says was
    /// applied is what GRDB apps see in the ledger.
    func grdbCompleted(_ path: String) throws -> [String] {
        var migrator = DatabaseMigrator()
        for identifier in ["0001_create_notes", "0002_index_notes_by_date", "0003_add_word_count"] {
            migrator.registerMigration(identifier) { _ in }
        }
        return try DatabaseQueue(path: path).read { try migrator.completedMigrations($0) }.sorted()
    }

    func columns(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try db.columns(in: "note").map(\.name) }
    }

    @Test func migrateStatusRollbackAndVerifyThroughTheExampleBinary() throws {
        let scratch = try ScratchDatabase()
        let path = scratch.path

        let migrate = try run(["migrate", "--db-path", path])
        #expect(migrate.status == 0, "\(migrate.output)")
        // The `migrationkit` tool's lines: the database first, each step, the summary.
        let lines = migrate.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(migrate.output)")
        #expect(lines.first == "Database: \(path)")
        #expect(lines.dropFirst().prefix(3).map { $0.components(separatedBy: " (").first ?? "" }
            == ["Applied 0001_create_notes", "Applied 0002_index_notes_by_date", "Applied 0003_add_word_count"])
        #expect(lines.last?.hasPrefix("Applied 3 migrations in ") == true)
        // Of what the steps changed (GRDB tells its observers which tables a statement
        // writes), as the tool's migrate verifies by default.
        #expect(lines.last?.hasSuffix("; verification passed (quick_check of 1 changed table, foreign keys, 1 required index).") == true, "\(migrate.stdout)")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try grdbCompleted(path) == ["0001_create_notes", "0002_index_notes_by_date", "0003_add_word_count"])
        #expect(try columns(path) == ["id", "body", "createdAt", "wordCount"])
        #expect(try run(["migrate", "--db-path", path]).stdout.contains("\nAlready up to date; "))

        // A row the app wrote survives the rollback of the column it does not need.
        try DatabaseQueue(path: path).write { try $0.execute(sql: "INSERT INTO note (body) VALUES ('two words')") }
        let rollback = try run(["rollback", "--db-path", path])
        #expect(rollback.status == 0, "\(rollback.output)")
        // As the tool's rollback: a backup first (0600, beside the database), then the step.
        let rollbackLines = rollback.stdout.split(separator: "\n").map(String.init)
        #expect(rollbackLines.count == 4 && rollbackLines[1].hasPrefix("Backup: \(path).backup-")
            && rollbackLines[2].hasPrefix("Rolled back 0003_add_word_count (") && rollbackLines[3].hasPrefix("Rolled back 1 migration in "), "\(rollback.output)")
        let backup = String(rollbackLines[1].dropFirst("Backup: ".count))
        #expect(try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int == 0o600)
        #expect(try grdbCompleted(backup) == ["0001_create_notes", "0002_index_notes_by_date", "0003_add_word_count"])
        #expect(try columns(path) == ["id", "body", "createdAt"])
        #expect(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT body FROM note") } == "two words")
        #expect(try grdbCompleted(path) == ["0001_create_notes", "0002_index_notes_by_date"])

        let status = try run(["status", "--db-path", path, "--exit-code"])
        #expect(status.status == 6, "\(status.output)")
        #expect(status.stdout.contains("applied  0001_create_notes\napplied  0002_index_notes_by_date\npending  0003_add_word_count\n2 applied, 1 pending.\n"))
        let statusJSON = try JSONSerialization.jsonObject(with: Data(try run(["status", "--db-path", path, "--json"]).stdout.utf8)) as? [String: Any]
        #expect(statusJSON?["pendingCount"] as? Int == 1)
        #expect(statusJSON?["exists"] as? Bool == true)

        // Migrating again computes the word count with the app's own Swift; rolling it
        // back and forth again shows --json's steps.
        #expect(try run(["migrate", "--db-path", path]).status == 0)
        let rollbackJSON = try JSONSerialization.jsonObject(with: Data(try run(["rollback", "--db-path", path, "--json"]).stdout.utf8)) as? [String: Any]
        #expect((rollbackJSON?["rolledBack"] as? [[String: Any]])?.map { $0["identifier"] as? String } == ["0003_add_word_count"])
        #expect(try run(["migrate", "--db-path", path]).status == 0)
        #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT wordCount FROM note") } == 2)

        // schema-dump: the canonical dump, the same text GRDB reads in this process.
        let dump = try run(["schema-dump", "--db-path", path])
        #expect(dump.status == 0, "\(dump.output)")
        #expect(dump.stdout.contains("CREATE INDEX note_createdAt ON note (createdAt);"), "\(dump.stdout)")
        #expect(!dump.stdout.contains("grdb_migrations") && !dump.stdout.contains("migrationkit_history"))

        let verify = try run(["verify", "--db-path", path])
        #expect(verify.status == 0 && verify.stdout.hasSuffix("Verification passed.\n"), "\(verify.output)")
        try DatabaseQueue(path: path).write { try $0.execute(sql: "DROP INDEX note_createdAt") }
        let failed = try run(["verify", "--db-path", path, "--json"])
        #expect(failed.status == 3, "\(failed.output)")
        let verifyJSON = try JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Any]
        #expect(verifyJSON?["passed"] as? Bool == false)
        #expect((verifyJSON?["checks"] as? [[String: Any]])?.contains { $0["name"] as? String == "index note:note_createdAt" && $0["passed"] as? Bool == false } == true)

        // A step a newer version of the app applied (a Swift step: its history row has
        // no checksum) is a newer version's to the app's own status, not another app's.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                INSERT INTO grdb_migrations VALUES ('0004_newer');
                INSERT INTO grdb_migrationkit_history (identifier, applied_at, duration_ms) VALUES ('0004_newer', '2026-11-26T00:00:00.000Z', 1);
                """)
        }
        let newer = try run(["status", "--db-path", path])
        #expect(newer.stdout.contains("unknown  0004_newer (applied, but no such migration here: migrated by a newer version)"), "\(newer.output)")
    }


    @Test func refusalsAreOneLineAndCreateNothing() throws {
        let scratch = try ScratchDatabase()
        let usage = try run([])
        #expect(usage.status == 64 && usage.stderr.contains("grdb-notes: error: Give a subcommand"), "\(usage.output)")
        let noPath = try run(["verify"])
        #expect(noPath.status == 64 && noPath.stderr == "grdb-notes: error: --db-path is required: the database file to work on.\n", "\(noPath.output)")
        for command in ["verify", "rollback", "schema-dump"] {
            let missing = try run([command, "--db-path", scratch.path])
            #expect(missing.status == 9 && missing.stderr.contains("does not exist; check the path"), "\(missing.output)")
        }
        let status = try run(["status", "--db-path", scratch.path])
        #expect(status.status == 0 && status.stdout.contains("does not exist yet: migrate creates it"), "\(status.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path))

        // Not a database: one sentence, exit code 4, the file unchanged.
        let garbage = Data("not a database, just text that is long enough to look like a header".utf8)
        try garbage.write(to: URL(fileURLWithPath: scratch.path))
        for command in ["status", "migrate", "verify"] {
            let refused = try run([command, "--db-path", scratch.path])
            #expect(refused.status == 4 && refused.stderr.hasSuffix("\(scratch.path): The file is not a database (its size is not a whole number of database pages); check the path.\n"), "\(refused.output)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == garbage)
    }

    /// The tree's commands name the binary they run in, never `migrationkit`: `init`'s
    /// file and next steps, and the advice for a project file that is not there.
    @Test func theCommandsNameTheAppsBinary() throws {
        let scratch = try ScratchDatabase()
        let folder = scratch.folder.path
        let made = try ChildProcess.run([Self.binary, "init"], directory: folder)
        #expect(made.status == 0 && made.stdout.contains("Next: `grdb-notes new create_tables`, then `grdb-notes migrate`."), "\(made.output)")
        let file = try String(contentsOfFile: folder + "/migrationkit.toml", encoding: .utf8)
        #expect(file.contains("settings for `grdb-notes` run in this folder") && !file.contains("`migrationkit"), "\(file)")
        let missing = try ChildProcess.run([Self.binary, "status", "--config", "nowhere.toml"], directory: folder)
        #expect(missing.status == 64 && missing.stderr.contains("run `grdb-notes init` to write one"), "\(missing.output)")
    }
}

import Foundation
import GRDB
import Testing

/// The README's GRDB example app (Examples/GRDBNotes), run as a user runs it: the built
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

    func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
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

        let migrate = try run(["migrate", path])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(migrate.stdout == "Applied 0001_create_notes\nApplied 0002_index_notes_by_date\nApplied 0003_add_word_count\n")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try grdbCompleted(path) == ["0001_create_notes", "0002_index_notes_by_date", "0003_add_word_count"])
        #expect(try columns(path) == ["id", "body", "createdAt", "wordCount"])
        #expect(try run(["migrate", path]).stdout == "Nothing to migrate.\n")

        // A row the app wrote survives the rollback of the column it does not need.
        try DatabaseQueue(path: path).write { try $0.execute(sql: "INSERT INTO note (body) VALUES ('two words')") }
        let rollback = try run(["rollback", path])
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(rollback.stdout == "Rolled back 0003_add_word_count\n")
        #expect(try columns(path) == ["id", "body", "createdAt"])
        #expect(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT body FROM note") } == "two words")
        #expect(try grdbCompleted(path) == ["0001_create_notes", "0002_index_notes_by_date"])

        let status = try run(["status", path])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout == "applied      0001_create_notes\napplied      0002_index_notes_by_date\npending      0003_add_word_count\n")

        // Migrating again computes the word count with the app's own Swift.
        #expect(try run(["migrate", path]).status == 0)
        #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT wordCount FROM note") } == 2)

        #expect(try run(["verify", path]).stdout == "Verification passed.\n")
        try DatabaseQueue(path: path).write { try $0.execute(sql: "DROP INDEX note_createdAt") }
        let verify = try run(["verify", path])
        #expect(verify.status == 2 && verify.stderr.hasPrefix("grdb-notes: error: ") && verify.stderr.contains("note_createdAt"), "\(verify.output)")
    }

    @Test func refusalsAreOneLineAndCreateNothing() throws {
        let scratch = try ScratchDatabase()
        let usage = try run([])
        #expect(usage.status == 64 && usage.stderr.contains("usage: grdb-notes"), "\(usage.output)")
        let missing = try run(["status", scratch.path])
        #expect(missing.status == 9 && missing.stderr.contains("run `grdb-notes migrate"), "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }
}

import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A command that fails leaves no file it created behind: settings that cannot work are
/// refused before any file exists, and a new database in which nothing was kept is
/// removed, so the next run starts clean instead of meeting "wrong key" or an empty file.
@Suite struct CreatedFileTests {
    private func entries(_ workspace: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workspace.root).sorted()
    }

    @Test(arguments: [["--cipher-page-size", "512"], ["--cipher-page-size", "1000"], ["--kdf-iter", "0"], ["--cipher-kdf-algorithm", "MD5"]])
    func settingsThatCannotWorkCreateNothing(_ settings: [String]) throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let before = try entries(workspace)
        let result = try workspace.run("migrate", settings)
        #expect(result.exitCode == .usage, "\(settings): \(result.output)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try entries(workspace) == before)
    }

    /// A new database's lint runs while the file is opened: its error still leaves
    /// nothing behind, and still decides the outcome when opening fails too (here, a
    /// key file that does not exist).
    @Test(arguments: [[String](), ["--atomic"], ["--password-file", "missing.key"]])
    func aLintErrorOnANewPathLeavesNothingAndComesFirst(_ settings: [String]) throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_bad.sql", "-- migrate:up\nBEGIN;\n")
        let before = try entries(workspace)
        let key = settings.first == "--password-file" ? [] : ["--password-file", workspace.keyFile]
        let result = try Tool.run(["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations] + key + settings,
                                    directory: workspace.root)
        #expect(result.exitCode == .migrationFailed, "\(settings): \(result.output)")
        #expect(result.stderr.contains("Lint found 1 error in pending migrations, the first at"), "\(result.output)")
        #expect(try entries(workspace) == before, "\(settings): the failed run left files behind")
    }

    /// The migrations are read while the key is derived: a file that cannot be read
    /// still decides the outcome, over a key file that does not exist too, and a new
    /// database's file is not left behind.
    @Test(arguments: [[String](), ["--password-file", "missing.key"]])
    func anUnreadableMigrationOnANewPathLeavesNothingAndComesFirst(_ settings: [String]) throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_bad.sql", "CREATE TABLE forgotten (a);\n")
        let before = try entries(workspace)
        let key = settings.isEmpty ? ["--password-file", workspace.keyFile] : []
        let result = try Tool.run(["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations] + key + settings,
                                    directory: workspace.root)
        #expect(result.exitCode == .fileError, "\(settings): \(result.output)")
        #expect(result.stderr.contains("0003_bad.sql: No `-- migrate:up` line"), "\(result.output)")
        #expect(!result.stderr.contains("missing.key"), "the key's error must not win: \(result.output)")
        #expect(try entries(workspace) == before, "\(settings): the failed run left files behind")
    }

    @Test(arguments: [[String](), ["--atomic"]])
    func aNewDatabaseWhoseFirstStepFailsIsRemoved(_ mode: [String]) throws {
        let workspace = try Workspace()
        try workspace.migration("0001_broken.sql", "-- migrate:up\nCREATE TABLE t (a);\nINSERT INTO missing VALUES (1);\n")
        let before = try entries(workspace)
        let failed = try workspace.run("migrate", mode)
        #expect(failed.exitCode == .migrationFailed, "\(failed.output)")
        #expect(try entries(workspace) == before, "the failed run left files behind")
        // Fixed, the next run creates the database from scratch.
        try workspace.migration("0001_broken.sql", "-- migrate:up\nCREATE TABLE t (a);\n")
        #expect(try workspace.run("migrate", mode).status == 0)
        #expect(try workspace.run("status").stdout.contains("applied  0001_broken"))
    }

    @Test func aNewDatabaseThatKeptAStepIsKept() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_good.sql", "-- migrate:up\nCREATE TABLE t (a);\n")
        try workspace.migration("0002_broken.sql", "-- migrate:up\nINSERT INTO missing VALUES (1);\n")
        #expect(try workspace.run("migrate").exitCode == .migrationFailed)
        #expect(FileManager.default.fileExists(atPath: workspace.database))
        #expect(try workspace.run("status").stdout.contains("applied  0001_good"))
    }
}

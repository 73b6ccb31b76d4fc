import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A path reaches the kernel exactly as the user wrote it. swift-system's `FilePath`
/// normalises a path (drops a trailing `/`, merges `//`), so `app.db/` would name
/// `app.db`; the kernel refuses `app.db/` when `app.db` is a file (ENOTDIR), and so does
/// MigrationKit. These pin what the commands said before the file calls went through
/// swift-system.
@Suite struct PathAsWrittenTests {
    /// A workspace with an encrypted, migrated `app.db`.
    private func migratedWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let result = try workspace.run("migrate")
        #expect(result.status == 0, "\(result.output)")
        return workspace
    }

    private func run(_ workspace: Workspace, _ arguments: [String]) throws -> CommandResult {
        try Tool.run(arguments + ["--migrations", workspace.migrations], directory: workspace.root)
    }

    /// A relative `--db-path` names one place for the whole run: the note a changing
    /// command keeps beside the database (written again from other threads while a long
    /// step runs) is beside it, and gone at the end, even in a process whose threads
    /// have working folders of their own (a command line run in-process).
    @Test func aRelativeDatabasePathKeepsItsChangeNoteBesideTheDatabase() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_items.sql", "-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);\n")
        try workspace.migration("0002_many.sql", """
            -- migrate:up
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400000)
            INSERT INTO items (name) SELECT 'item ' || i FROM n;
            """)
        let processFolder = FileManager.default.currentDirectoryPath
        let strayNote = processFolder + "/.app.db.migrationkit-changing"
        try #require(!FileManager.default.fileExists(atPath: strayNote), "a note from an earlier run is in \(processFolder)")
        let result = try Tool.run(["migrate", "--db-path", "app.db", "--password-file", "key", "--migrations", "Migrations", "--no-backup"],
                                  directory: workspace.root)
        #expect(result.status == 0, "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: strayNote), "the change note was written in the process's folder")
        #expect(!FileManager.default.fileExists(atPath: workspace.path(".app.db.migrationkit-changing")))
    }

    @Test func statusOfAFileNamedWithATrailingSlashSeesNoDatabaseAndChangesNothing() throws {
        let workspace = try migratedWorkspace()
        let bytes = try #require(workspace.bytes(workspace.database))
        let before = try TreeSnapshot(workspace.root)
        let result = try run(workspace, ["status", "--db-path", workspace.database + "/", "--password-file", workspace.keyFile])
        // `app.db/` is not the file app.db: stat(2) says ENOTDIR, which status reports
        // as a database that does not exist yet (it never opens or creates one).
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("does not exist yet"), "\(result.output)")
        #expect(!result.stdout.contains("applied  0001_authors"), "\(result.output)")
        #expect(workspace.bytes(workspace.database) == bytes)
        try expectUnchanged(before, "status --db-path app.db/")
    }

    @Test func migrateOfAFileNamedWithATrailingSlashIsRefusedAndChangesNothing() throws {
        let workspace = try migratedWorkspace()
        try workspace.migration("0003_tags.sql", "-- migrate:up\nCREATE TABLE tags (t);\n-- migrate:down\nDROP TABLE tags;\n")
        let bytes = try #require(workspace.bytes(workspace.database))
        let before = try TreeSnapshot(workspace.root)
        for path in [workspace.database + "/", workspace.database + "//"] {
            let result = try run(workspace, ["migrate", "--db-path", path, "--password-file", workspace.keyFile])
            expectCleanFailure(result, .fileError, mentions: ["cannot be examined", "Not a directory"], "migrate --db-path \(path)")
        }
        #expect(workspace.bytes(workspace.database) == bytes)
        try expectUnchanged(before, "migrate --db-path app.db/")
    }

    @Test func aKeyFileNamedWithATrailingSlashIsRefusedNotRead() throws {
        let workspace = try migratedWorkspace()
        let before = try TreeSnapshot(workspace.root)
        let result = try run(workspace, ["status", "--db-path", workspace.database, "--password-file", workspace.keyFile + "/"])
        expectCleanFailure(result, .keyUnavailable, mentions: ["Key file", "does not exist"], "--password-file key/")
        #expect(!result.stdout.contains("applied"), "the database was opened with the key: \(result.output)")
        try expectUnchanged(before, "--password-file key/")
    }

    @Test func migrateToANewNameWithATrailingSlashCreatesNothing() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let before = try TreeSnapshot(workspace.root)
        let result = try run(workspace, ["migrate", "--db-path", workspace.path("new.db") + "/", "--plaintext"])
        expectCleanFailure(result, .fileError, mentions: ["cannot be created"], "migrate --db-path new.db/")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("new.db")))
        try expectUnchanged(before, "migrate --db-path new.db/")
    }

    @Test func aSymbolicLinkNamedWithATrailingSlashIsNotTheLinkItself() throws {
        let workspace = try migratedWorkspace()
        try workspace.migration("0003_tags.sql", "-- migrate:up\nCREATE TABLE tags (t);\n-- migrate:down\nDROP TABLE tags;\n")
        try FileManager.default.createSymbolicLink(atPath: workspace.path("link.db"), withDestinationPath: workspace.database)
        try workspace.write("fleet.list", "link.db/\n")
        let bytes = try #require(workspace.bytes(workspace.database))
        let before = try TreeSnapshot(workspace.root)
        // lstat("link.db/") follows the link, so it is not taken for a link and resolved
        // to app.db: the name fails as the kernel says, and app.db is left alone.
        let result = try run(workspace, ["migrate", "--db-list", workspace.path("fleet.list"), "--password-file", workspace.keyFile])
        #expect(result.exitCode == .fileError, "\(result.output)")
        #expect(result.stdout.contains("link.db/: The file cannot be examined (Not a directory)"), "\(result.output)")
        #expect(workspace.bytes(workspace.database) == bytes)
        try expectUnchanged(before, "migrate --db-list with link.db/")
    }
}

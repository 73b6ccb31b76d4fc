import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Commands that only read a file leave nothing new beside it, and copies keep the
/// source's journal mode. WAL databases are the hard case: reading one makes SQLite
/// create -wal and -shm, which only a connection that may write removes again.
@Suite struct ReadOnlyCommandTests {
    private func walWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let wal = try SQLCipherShell.run(workspace.database, key: workspace.key, "PRAGMA journal_mode = WAL;")
        #expect(wal.stdout.contains("wal"), "\(wal.output)")
        return workspace
    }

    private func entries(_ folder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder))
    }

    private func journalMode(_ path: String, key: TestKey?) throws -> String {
        let result = try key.map { try SQLCipherShell.run(path, key: $0, "PRAGMA journal_mode;") }
            ?? SQLCipherShell.run(path, keyPragma: nil, "PRAGMA journal_mode;")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func readingAWALDatabaseLeavesNothingBesideIt() throws {
        let workspace = try walWorkspace()
        let before = try entries(workspace.root)
        for (name, arguments) in [
            ("status", ["status"] + workspace.options()),
            ("verify", ["verify"] + workspace.options()),
            ("schema-dump", ["schema-dump"] + workspace.options()),
            ("check --from-database", ["check", "--migrations", workspace.migrations, "--from-database", workspace.database,
                                       "--password-file", workspace.keyFile]),
        ] {
            let result = try Tool.run(arguments, directory: workspace.root)
            #expect(result.status == 0, "\(name): \(result.output)")
            let after = try entries(workspace.root)
            #expect(after == before, "\(name) left \(after.subtracting(before))")
        }
    }

    @Test func restoringAWALBackupLeavesNothingBesideTheBackup() throws {
        let workspace = try walWorkspace()
        try workspace.migration("0003_genres.sql", "-- migrate:up\nCREATE TABLE genres (name TEXT);\n")
        #expect(try workspace.run("migrate").status == 0)
        let backup = try #require(try entries(workspace.root).first { $0.hasPrefix("app.db.backup-") })
        let before = try entries(workspace.root)
        let restore = try workspace.run("restore", ["--from", workspace.path(backup), "--no-backup"])
        #expect(restore.status == 0, "\(restore.output)")
        let after = try entries(workspace.root)
        #expect(after == before, "restore left \(after.subtracting(before))")
        #expect(try journalMode(workspace.database, key: workspace.key) == "wal")
    }

    @Test func restoreWorksWhenTheDatabaseIsMissing() throws {
        let workspace = try walWorkspace()
        try workspace.migration("0003_genres.sql", "-- migrate:up\nCREATE TABLE genres (name TEXT);\n")
        #expect(try workspace.run("migrate").status == 0)
        let backup = try #require(try entries(workspace.root).first { $0.hasPrefix("app.db.backup-") })
        try FileManager.default.removeItem(atPath: workspace.database)
        let restore = try workspace.run("restore", ["--from", workspace.path(backup), "--json"])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(try decodeJSON(restore.stdout)["backup"] is NSNull)
        #expect(try workspace.run("status").stdout.contains("2 applied, 1 pending"))
        let mode = (try FileManager.default.attributesOfItem(atPath: workspace.database)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }

    @Test func encryptedAndDecryptedCopiesKeepWALMode() throws {
        let workspace = try walWorkspace()
        let plain = workspace.path("plain.db")
        #expect(try workspace.run("decrypt", ["--output", plain]).status == 0)
        #expect(try journalMode(plain, key: nil) == "wal")
        let encrypted = workspace.path("again.db")
        let encrypt = try Tool.run(["encrypt", "--output", encrypted, "--db-path", plain, "--password-file", workspace.keyFile])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        #expect(try journalMode(encrypted, key: workspace.key) == "wal")
        let stray = try entries(workspace.root).filter { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }
        #expect(stray.isEmpty, "\(stray)")
    }
}

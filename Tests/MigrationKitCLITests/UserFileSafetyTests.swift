import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The user's files come first: backups are kept and pruned only as asked, a database
/// is never overwritten by an output option, work on a symbolic link lands in the real
/// file, and a run that changes nothing creates nothing.
@Suite struct UserFileSafetyTests {
    private func backups(_ workspace: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }.sorted()
    }

    /// Three migrations applied one at a time, so three backups exist.
    private func workspaceWithBackups() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_tags.sql", "-- migrate:up\nCREATE TABLE tags (t);\n-- migrate:down\nDROP TABLE tags;\n")
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        #expect(try workspace.run("migrate", ["--to", "0002_books"]).status == 0)
        #expect(try workspace.run("migrate").status == 0)
        return workspace
    }

    @Test func restoringTheOldestBackupNeverPrunesIt() throws {
        let workspace = try workspaceWithBackups()
        let all = try backups(workspace)
        #expect(all.count == 2)
        let oldest = workspace.path(all[0])
        let result = try workspace.run("restore", ["--from", oldest, "--keep-backups", "1"])
        #expect(result.status == 0, "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: oldest))
        #expect(try workspace.run("status").stdout.contains("pending  0002_books"))
    }

    @Test func restoreKeepsTheBytesOfADatabaseThatNoLongerOpensWithTheKey() throws {
        let workspace = try workspaceWithBackups()
        let oldest = workspace.path(try backups(workspace)[0])
        try workspace.write("new-key", "the new key\n", mode: 0o600)
        #expect(try workspace.run("rekey", ["--new-password-file", workspace.path("new-key"), "--no-backup"]).status == 0)
        let rekeyed = try #require(workspace.bytes(workspace.database))
        // Restoring the old backup with the old key: the current database does not open
        // with that key, so its bytes are kept as they are before it is replaced.
        let result = try workspace.run("restore", ["--from", oldest])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stderr.contains("does not open with this key"))
        let kept = try backups(workspace).map { workspace.path($0) }.filter { workspace.bytes($0) == rekeyed }
        #expect(kept.count == 1)
    }

    @Test func refusedCommandsWriteNoBackupAndPruneNone() throws {
        let workspace = try workspaceWithBackups()
        try workspace.migration("0004_one_way.up.sql", "CREATE TABLE one_way (a);")
        #expect(try workspace.run("migrate").status == 0)
        let before = try backups(workspace)
        #expect(try workspace.run("rekey", ["--new-password-file", workspace.keyFile]).exitCode == .usage)  // same key
        #expect(try workspace.run("rekey", ["--new-password-file", workspace.path("missing")]).exitCode == .keyUnavailable)
        #expect(try workspace.run("migrate", ["--to", "0009_typo"]).exitCode == .usage)
        #expect(try workspace.run("rollback").exitCode == .refused)  // 0004 has no down
        #expect(try backups(workspace) == before)
    }

    @Test func inPlaceWorkFollowsASymbolicLinkToTheRealFile() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try FileManager.default.createDirectory(atPath: workspace.path("data"), withIntermediateDirectories: true)
        let real = workspace.path("data/real.db")
        #expect(try Tool.run(["migrate", "--plaintext", "--db-path", real, "--migrations", workspace.migrations]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: workspace.database, withDestinationPath: real)
        let result = try workspace.run("encrypt", ["--in-place", "--no-backup"])
        #expect(result.status == 0, "\(result.output)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: workspace.database)) == real)
        #expect(FileManager.default.contents(atPath: real)?.prefix(16) != Data("SQLite format 3\0".utf8))
        #expect(try workspace.run("status").stdout.contains("2 applied"))
    }

    /// docs/how-a-migration-runs.md (Backups): "an encrypted database replacing a
    /// plaintext one keeps the owner and group and becomes 0600".
    @Test func aDatabaseEncryptedInPlaceIsPrivate() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try Tool.run(["migrate", "--plaintext"] + ["--db-path", workspace.database, "--migrations", workspace.migrations]).status == 0)
        #expect(chmod(workspace.database, 0o644) == 0)
        let result = try workspace.run("encrypt", ["--in-place"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stderr.contains("is now mode 0600 (it was 0644)"), "the change of mode is said: \(result.stderr)")
        var info = stat()
        #expect(stat(workspace.database, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o600 && info.st_uid == geteuid(), "mode \(String(info.st_mode & 0o7777, radix: 8))")
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM grdb_migrations;").stdout.hasPrefix("2"))
    }

    @Test func outputOptionsNeverOverwriteTheDatabase() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        let before = workspace.bytes(workspace.database)
        let dump = try workspace.run("schema-dump", ["--output", workspace.database])
        #expect(dump.exitCode == .usage)
        #expect(workspace.bytes(workspace.database) == before)
        let decrypt = try workspace.run("decrypt", ["--output", workspace.database, "--force"])
        #expect(decrypt.exitCode == .usage)
        #expect(workspace.bytes(workspace.database) == before)
        // Any other existing file needs --force; an earlier dump is then replaced.
        try workspace.write("schema.sql", "old dump\n")
        let refused = try workspace.run("schema-dump", ["--output", workspace.path("schema.sql")])
        #expect(refused.exitCode == .fileError && refused.stderr.contains("--force"), "\(refused.output)")
        #expect(try String(contentsOfFile: workspace.path("schema.sql"), encoding: .utf8) == "old dump\n")
        #expect(try workspace.run("schema-dump", ["--output", workspace.path("schema.sql"), "--force"]).status == 0)
        #expect(try String(contentsOfFile: workspace.path("schema.sql"), encoding: .utf8).contains("CREATE TABLE"))
        // encrypt --output too (docs/encryption-recipes.md: every --output): refused, then replaced with --force.
        let plain = workspace.path("plain.db")
        #expect(try workspace.run("decrypt", ["--output", plain]).status == 0)
        try workspace.write("encrypted.db", "an older copy")
        let encrypt = ["encrypt", "--db-path", plain, "--password-file", workspace.keyFile, "--output", workspace.path("encrypted.db")]
        let kept = try Tool.run(encrypt, directory: workspace.root)
        #expect(kept.exitCode == .fileError && kept.stderr.contains("--force"), "\(kept.output)")
        #expect(try String(contentsOfFile: workspace.path("encrypted.db"), encoding: .utf8) == "an older copy")
        let replaced = try Tool.run(encrypt + ["--force"], directory: workspace.root)
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(try SQLCipherShell.run(workspace.path("encrypted.db"), key: workspace.key, "SELECT count(*) FROM grdb_migrations;").stdout.hasPrefix("2"))
        let itself = try Tool.run(["encrypt", "--db-path", plain, "--password-file", workspace.keyFile, "--output", plain, "--force"], directory: workspace.root)
        #expect(itself.exitCode == .usage, "\(itself.output)")
    }

    @Test func filesThatMerelyLookLikeBackupsAreLeftAlone() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        try FileManager.default.copyItem(atPath: workspace.database, toPath: workspace.path("app.db.backup-before-upgrade"))
        let result = try Tool.run(["migrate", "--keep-backups", "1"] + workspace.options(), directory: workspace.root)
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.timedOut)
        #expect(FileManager.default.fileExists(atPath: workspace.path("app.db.backup-before-upgrade")))
    }

    @Test func aDryRunOrALintErrorOnANewPathCreatesNothing() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let dryRun = try workspace.run("migrate", ["--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.output)")
        #expect(dryRun.stdout.contains("Would apply 0002_books"))
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
        try workspace.migration("0003_bad.sql", "-- migrate:up\nBEGIN;\n")
        #expect(try workspace.run("migrate").exitCode == .migrationFailed)
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }
}

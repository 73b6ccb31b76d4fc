import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct BackupTests {
    @Test func aBackupOpensWithTheSameKeyAndRestoresTheDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors]).migrate(in: writer)
        try writer.write { try $0.execute(sql: "INSERT INTO authors (name) VALUES ('before')") }

        let backup = try DatabaseBackup.create(of: writer)
        #expect(backup.hasPrefix(path + ".backup-"))
        #expect(try fileMode(backup) == 0o600)
        #expect(try fileBytes(backup).prefix(16) != Data("SQLite format 3\0".utf8))
        // The backup is an encrypted database in its own right, readable by the shell.
        #expect(try SQLCipherShell.run(backup, keyPragma: DatabaseKey.testRawKeyPragma, "SELECT name FROM authors;").stdout == "before\n")

        try writer.write { try $0.execute(sql: "DELETE FROM authors") }
        try DatabaseBackup.restore(from: backup, to: path, key: .testRawKey)
        let restored = try SQLCipherWriter(path: path, key: .testRawKey)
        #expect(try restored.read { try $0.fetchString(sql: "SELECT name FROM authors") } == "before")
        #expect(FileManager.default.fileExists(atPath: backup))
    }

    @Test func walModeBackupsIncludeCommitsStillInTheWAL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("wal.db")
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2), (3);") }
        let backup = try DatabaseBackup.create(of: writer)
        #expect(try SQLCipherWriter(path: backup, key: .testRawKey).read { try $0.fetchInt(sql: "SELECT count(*) FROM t") } == 3)
    }

    @Test func olderBackupsArePrunedBeyondTheKeepCount() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let folder = directory.path("backups")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var made: [String] = []
        for _ in 0..<4 { made.append(try DatabaseBackup.create(of: writer, in: folder, keep: 2)) }
        #expect(Set(made).count == 4)  // same second: unique names anyway
        #expect(DatabaseBackup.list(folder: folder, name: "app.db") == Array(made.suffix(2)))
    }

    @Test func restoreRefusesABackupThatDoesNotOpenWithTheKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        let backup = try DatabaseBackup.create(of: writer)
        try writer.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        let before = try fileBytes(path)
        expectError(.wrongKey) { try DatabaseBackup.restore(from: backup, to: path, key: .rawKey(Array(repeating: 7, count: 32))) }
        #expect(try fileBytes(path) == before)

        var damaged = try fileBytes(backup)
        damaged[damaged.count - 200] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: backup))
        #expect(throws: SQLCipherError.self) { try DatabaseBackup.restore(from: backup, to: path, key: .testRawKey) }
        #expect(try fileBytes(path) == before)
    }
}

@Suite struct DurableReplacementTests {
    private func owner(_ path: String) -> (uid: uid_t, gid: gid_t, mode: mode_t) {
        var info = stat()
        _ = stat(path, &info)
        return (info.st_uid, info.st_gid, info.st_mode & 0o7777)
    }

    /// A database replaced in place (restore here; encrypt --in-place and cipher-upgrade
    /// likewise) keeps who may use it: its owner, group and mode. As root the original is
    /// first given to nobody, as an app's service user would own it; as anyone else the
    /// owner is one's own (nobody else's files can be made), and the mode still counts.
    @Test func aRestoredDatabaseKeepsItsOwnerGroupAndMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);") }
        let backup = try DatabaseBackup.create(of: writer)
        #expect(try fileMode(backup) == 0o600)
        #expect(chmod(path, 0o640) == 0)
        let nobody: uid_t = 65534
        if geteuid() == 0 { #expect(chown(path, nobody, nobody) == 0) }
        let before = owner(path)

        try DatabaseBackup.restore(from: backup, to: path, key: .testRawKey)
        let after = owner(path)
        #expect(after.mode == 0o640)
        #expect(after.uid == before.uid && after.gid == before.gid)
        if geteuid() == 0 { #expect(after.uid == nobody && after.gid == nobody) }
        #expect(try SQLCipherWriter(path: path, key: .testRawKey).read { try $0.fetchInt(sql: "SELECT a FROM t") } == 1)
    }

    /// Private outputs stay private whatever they overwrite.
    @Test func aPrivateFileStays0600WhenItReplacesAnOpenerFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("schema.sql", "old\n", mode: 0o644)
        try DurableFile.writePrivate(Array("new\n".utf8), to: path, replacing: true)
        #expect(try fileMode(path) == 0o600)
        #expect(try fileBytes(path) == Data("new\n".utf8))
    }
}

import Foundation
import MigrationKitTestSupport
import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct BackupTests {
    @Test func aBackupOpensWithTheSameKeyAndRestoresTheDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let writer = try SQLCipherWriter(path: path, key: .testPassphrase)
        try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors]).migrate(in: writer)
        try writer.write { try $0.execute(sql: "INSERT INTO authors (name) VALUES ('before')") }

        let backup = try DatabaseBackup.create(of: writer)
        #expect(backup.hasPrefix(path + ".backup-"))
        #expect(try fileMode(backup) == 0o600)
        #expect(try fileBytes(backup).prefix(16) != Data("SQLite format 3\0".utf8))
        // The backup is an encrypted database in its own right, readable by the shell.
        #expect(try SQLCipherShell.run(backup, keyPragma: "'correct horse battery staple'", "SELECT name FROM authors;").stdout == "before\n")

        try writer.write { try $0.execute(sql: "DELETE FROM authors") }
        try DatabaseBackup.restore(from: backup, to: path, key: .testPassphrase)
        let restored = try SQLCipherWriter(path: path, key: .testPassphrase)
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
        expectError(.wrongKey) { try DatabaseBackup.restore(from: backup, to: path, key: .testPassphrase) }
        #expect(try fileBytes(path) == before)

        var damaged = try fileBytes(backup)
        damaged[damaged.count - 200] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: backup))
        #expect(throws: SQLCipherError.self) { try DatabaseBackup.restore(from: backup, to: path, key: .testRawKey) }
        #expect(try fileBytes(path) == before)
    }
}

import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

/// `CipherFormatUpgrade` on real files. Every test asserts on both platforms: on
/// SQLCipher 4 the upgrade itself, on SQLCipher 3 (which cannot write the 4 format)
/// the refusal, with nothing written.
@Suite struct CipherFormatUpgradeTests {
    private var isFour: Bool { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// A SQLCipher 3-format database as an app left it: migrated (ledger and history
    /// tables), rows, both header fields, WAL mode.
    private func makeSQLCipher3Database(_ path: String, key: DatabaseKey = .testPassphrase, wal: Bool = false) throws {
        var configuration = SQLCipherConfiguration()
        configuration.cipher = CipherSettings(compatibility: 3)
        let writer = try SQLCipherWriter(path: path, key: key, configuration: configuration)
        if wal { try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") } }
        try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks]).migrate(in: writer)
        try writer.write { db in
            for index in 1...300 {
                try db.execute(sql: "INSERT INTO authors (id, name) VALUES (?, ?)", arguments: [.integer(Int64(index)), .text("Author \(index)")])
                try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (?, 'A book')", arguments: [.integer(Int64(index))])
            }
            try db.execute(sql: "PRAGMA user_version = 42")
            try db.execute(sql: "PRAGMA application_id = 1234567")
        }
    }

    /// Refused on SQLCipher 3 with the version named, the folder left as it was.
    private func expectRefusedOnSQLCipher3(_ directory: TemporaryDirectory, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try snapshot(directory)
        #expect(sourceLocation: sourceLocation) { try body() } throws: { error in
            (error as? SQLCipherError)?.kind == .unsupportedCipherSetting
                && "\(error)".contains(SQLCipherLibrary.cipherVersionString ?? "?") && "\(error)".contains("Nothing was changed")
        }
        #expect(try snapshot(directory) == before, sourceLocation: sourceLocation)
    }

    /// Every file in the folder with its bytes.
    private func snapshot(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            files[name] = try fileBytes(directory.path(name))
        }
        return files
    }

    @Test func aSQLCipher3DatabaseBecomesSQLCipher4WithEverythingKept() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makeSQLCipher3Database(path, wal: true)
        #expect(chmod(path, 0o640) == 0)
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(at: path, key: .testPassphrase) }
            return
        }
        let summary = try CipherFormatUpgrade.upgrade(at: path, key: .testPassphrase)
        #expect(summary.outcome == .upgraded)
        #expect(summary.from.format == .sqlcipher3 && summary.to.format == .sqlcipher4)
        #expect(summary.journalMode == "wal")
        #expect(summary.rowCounts?["authors"] == 300 && summary.rowCounts?["grdb_migrations"] == 2)
        #expect(try fileMode(path) == 0o640)
        // Nothing beside it: no copy, no journal, no WAL of the old file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["app.db"])

        // Opens in the library's own format, with no compatibility setting.
        let writer = try SQLCipherWriter(path: path, key: .testPassphrase)
        #expect(writer.configuration.cipher == CipherSettings())
        #expect(try writer.effectiveCipherSettings()?.format == .sqlcipher4)
        try writer.read { db throws in
            #expect(try db.fetchInt(sql: "PRAGMA user_version") == 42)
            #expect(try db.fetchInt(sql: "PRAGMA application_id") == 1234567)
            #expect(try db.fetchString(sql: "PRAGMA journal_mode") == "wal")
            #expect(try MigrationBookkeeping.snapshot(in: db).identifiers.sorted() == ["0001_create_authors", "0002_create_books"])
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM grdb_migrationkit_history") == 2)
        }
        // The shell of the same library, with its defaults, reads it.
        let shell = try SQLCipherShell.run(path, passphrase: "correct horse battery staple",
                                           "SELECT count(*) FROM books; PRAGMA user_version; PRAGMA journal_mode;")
        #expect(shell.stdout == "300\n42\nwal\n", "\(shell.output)")
        // Migrating goes on where it left off.
        #expect(try SQLCipherMigrationRunner(steps: SampleSteps.all).migrate(in: writer).identifiers == ["0003_add_year"])
    }

    @Test func theCommittedSQLCipher3FixtureIsUpgraded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fixture.db")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/sqlcipher4-compat3.db")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        let key = DatabaseKey.passphrase("sqlcipher 4 fixture")
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(at: path, key: key) }
            return
        }
        let summary = try CipherFormatUpgrade.upgrade(at: path, key: key)
        #expect(summary.from.format == .sqlcipher3 && summary.to.format == .sqlcipher4)
        let shell = try SQLCipherShell.run(path, passphrase: "sqlcipher 4 fixture", "SELECT sum(a) FROM t;")
        #expect(shell.stdout == "6\n", "\(shell.output)")
    }

    @Test func thePageSizeAndKDFIterationsAskedForAreTheNewFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makeSQLCipher3Database(path)
        let target = CipherFormatUpgrade.Target(pageSize: 8192, kdfIterations: 12_000)
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(at: path, key: .testPassphrase, to: target) }
            return
        }
        let summary = try CipherFormatUpgrade.upgrade(at: path, key: .testPassphrase, to: target)
        #expect(summary.to.pageSize == 8192 && summary.to.kdfIterations == 12_000 && summary.to.format == .custom)
        #expect(try fileBytes(path).count % 8192 == 0)
        let shell = try SQLCipherShell.run(path, passphrase: "correct horse battery staple",
                                           "PRAGMA cipher_page_size = 8192; PRAGMA kdf_iter = 12000; SELECT count(*) FROM authors;")
        #expect(shell.stdout.hasSuffix("300\n"), "\(shell.output)")
        // Those settings are now the file's: the defaults do not open it, the settings do.
        expectError(.wrongKey) { _ = try SQLCipherWriter(path: path, key: .testPassphrase) }
        var configuration = SQLCipherConfiguration()
        configuration.cipher = CipherSettings(kdfIterations: 12_000, pageSize: 8192)
        let writer = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
        // Asking again for the same settings finds nothing to do.
        let again = try CipherFormatUpgrade.upgrade(writer, to: target)
        #expect(again.outcome == .alreadyInTargetFormat)
    }

    @Test func aWrongKeyChangesNothingAndLeavesNoFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makeSQLCipher3Database(path)
        let before = try snapshot(directory)
        let expected: SQLCipherError.Kind = isFour ? .wrongKey : .unsupportedCipherSetting
        expectError(expected) { try CipherFormatUpgrade.upgrade(at: path, key: .passphrase("not the key")) }
        #expect(try snapshot(directory) == before)
    }

    @Test func aDryRunAndAnUpToDateDatabaseWriteNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makeSQLCipher3Database(path)
        let before = try snapshot(directory)
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(at: path, key: .testPassphrase, dryRun: true) }
            return
        }
        let dryRun = try CipherFormatUpgrade.upgrade(at: path, key: .testPassphrase, dryRun: true)
        #expect(dryRun.outcome == .dryRun && dryRun.to.format == .sqlcipher4 && dryRun.sizeAfter == nil)
        #expect(try snapshot(directory) == before)

        let current = directory.path("current.db")
        _ = try SQLCipherWriter(path: current, key: .testPassphrase).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        let currentBefore = try fileBytes(current)
        let noOp = try CipherFormatUpgrade.upgrade(at: current, key: .testPassphrase)
        #expect(noOp.outcome == .alreadyInTargetFormat && noOp.from.format == .sqlcipher4)
        #expect(try fileBytes(current) == currentBefore)
    }

    /// The write lock is held from the copy to the rename: another connection cannot
    /// commit into the old file once it has been copied.
    @Test func noOtherConnectionCommitsWhileTheCopyIsMadeAndAnInterruptionLeavesTheOriginal() throws {
        struct Interrupted: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makeSQLCipher3Database(path)
        let before = try snapshot(directory)
        var configuration = SQLCipherConfiguration()
        configuration.busyTimeout = .milliseconds(100)
        let writer = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(writer) }
            return
        }
        let other = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
        var otherFailure: (any Error)?
        #expect(throws: Interrupted.self) {
            try CipherFormatUpgrade.upgrade(writer, to: .init(), dryRun: false, beforeWriting: { _ in }, beforeReplacing: {
                #expect(FileManager.default.fileExists(atPath: DurableFile.siblingPath(of: path, purpose: "upgrading")))
                do {
                    try other.write { try $0.execute(sql: "INSERT INTO authors (name) VALUES ('too late')") }
                } catch {
                    otherFailure = error
                }
                throw Interrupted()
            })
        }
        #expect((otherFailure as? SQLCipherError)?.kind == .busy)
        #expect(try snapshot(directory) == before)
        // A leftover copy from a killed run does not get in the way.
        try Data("stale".utf8).write(to: URL(fileURLWithPath: DurableFile.siblingPath(of: path, purpose: "upgrading")))
        #expect(try CipherFormatUpgrade.upgrade(writer).outcome == .upgraded)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["app.db"])
        #expect(try SQLCipherWriter(path: path, key: .testPassphrase).effectiveCipherSettings()?.format == .sqlcipher4)
    }

    /// A WAL database leaves WAL mode for the copy (its -wal file has the name the new
    /// file's will have), which SQLite allows only when no other connection has it open;
    /// an interrupted upgrade puts it back in WAL mode.
    @Test func aWALDatabaseInUseIsRefusedAndAnInterruptedOneStaysInWALMode() throws {
        struct Interrupted: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makeSQLCipher3Database(path, wal: true)
        var configuration = SQLCipherConfiguration()
        configuration.busyTimeout = .milliseconds(100)
        let writer = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(writer) }
            return
        }
        do {
            let other = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
            #expect(try other.read { try $0.fetchInt(sql: "SELECT count(*) FROM authors") } == 300)
            #expect {
                try CipherFormatUpgrade.upgrade(writer)
            } throws: { error in
                (error as? SQLCipherError)?.kind == .busy && "\(error)".contains("stop the app")
            }
            #expect(try other.read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "wal")
        }
        #expect(throws: Interrupted.self) {
            try CipherFormatUpgrade.upgrade(writer, to: .init(), dryRun: false, beforeWriting: { _ in }, beforeReplacing: { throw Interrupted() })
        }
        #expect(try writer.read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "wal")
        #expect(try writer.effectiveCipherSettings()?.format == .sqlcipher3)
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM books") } == 300)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")

        // As a run killed while the database was out of WAL mode leaves it: the marker
        // beside it, and the next run makes the upgraded file WAL all the same.
        #expect(try writer.writeWithoutTransaction { try $0.fetchString(sql: "PRAGMA journal_mode = DELETE") } == "delete")
        let marker = DurableFile.siblingPath(of: path, purpose: "upgrading-from-wal")
        #expect(FileManager.default.createFile(atPath: marker, contents: nil))
        let summary = try CipherFormatUpgrade.upgrade(writer)
        #expect(summary.outcome == .upgraded && summary.journalMode == "wal")
        #expect(try SQLCipherWriter(path: path, key: .testPassphrase).read { try $0.fetchString(sql: "PRAGMA journal_mode") } == "wal")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["app.db"])
    }

    @Test func plaintextDatabasesAndKDFSettingsForRawKeysAreRefused() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.db")
        _ = try SQLCipherWriter(path: plain, key: nil).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        let raw = directory.path("raw.db")
        var configuration = SQLCipherConfiguration()
        configuration.cipher = CipherSettings(compatibility: 3)
        _ = try SQLCipherWriter(path: raw, key: .testRawKey, configuration: configuration).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        let before = try snapshot(directory)
        guard isFour else {
            try expectRefusedOnSQLCipher3(directory) { try CipherFormatUpgrade.upgrade(at: plain, key: .testPassphrase) }
            return
        }
        #expect {
            try CipherFormatUpgrade.upgrade(at: plain, key: .testPassphrase)
        } throws: { error in
            (error as? SQLCipherError)?.kind == .wrongOperation && "\(error)".contains("`encrypt`")
        }
        expectError(.unsupportedCipherSetting) { try CipherFormatUpgrade.upgrade(at: raw, key: .testRawKey, to: .init(kdfIterations: 1000)) }
        #expect(try snapshot(directory) == before)
        // A raw key's file is upgraded all the same; its KDF settings never mattered.
        #expect(try CipherFormatUpgrade.upgrade(at: raw, key: .testRawKey).to.format == .sqlcipher4)
    }
}

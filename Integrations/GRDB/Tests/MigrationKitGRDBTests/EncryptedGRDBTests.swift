import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import MigrationKitTestSupport
import Testing
#if canImport(SQLCipher)
@testable import MigrationKitKeys
#endif

/// Which GRDB this run was built on, from `scripts/test.sh` (`MIGRATIONKIT_GRDB_FLAVOUR` =
/// `sqlite` or `sqlcipher`), so that the encrypted tests below cannot vanish unnoticed:
/// they are compiled only when GRDB's `SQLCipher` module is in the build.
@Suite struct GRDBFlavourTests {
    @Test func theBuildIsTheFlavourTheRunAskedFor() {
        #if canImport(SQLCipher)
        let built = "sqlcipher"
        #else
        let built = "sqlite"
        #endif
        let asked = ProcessInfo.processInfo.environment["MIGRATIONKIT_GRDB_FLAVOUR"]
        if asked != nil || TestPlatform.isCI {
            #expect(asked == built, "this test bundle was built on GRDB over \(built)")
        }
    }
}

#if canImport(SQLCipher)
/// A GRDB app's encrypted store, on GRDB built on the system's SQLCipher: keys from the
/// tool's sources, the ledger and checksums shared with `migrationkit`, and the file read
/// back by the `sqlcipher` shell.
@Suite struct EncryptedGRDBTests {
    /// The `migrationkit` binary of the default configuration, built by scripts/test.sh
    /// before this package's tests.
    static var migrationkit: String? { ProcessInfo.processInfo.environment["MIGRATIONKIT_BINARY"] }

    /// Keyring tests run with the private keyring, and under CI=true so that its absence
    /// fails them; elsewhere they are reported as disabled, never as passed.
    static let keyring = ConditionTrait.enabled(
        if: ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" || TestPlatform.isCI,
        "No private Secret Service: run the tests through scripts/with-test-keyring.sh (as scripts/test.sh does).")

    private func writeMigrations(_ files: [(String, String)], in scratch: ScratchDatabase) throws -> String {
        let folder = scratch.folder.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return folder.path
    }

    private static let notes = ("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n")
    private static let seed = ("0002_seed.sql", "-- migrate:up\nINSERT INTO notes (body) VALUES ('one'), ('two'), ('three');\nCREATE INDEX notes_body ON notes(body);\n")

    private func open(_ kind: WriterKind, _ path: String, key: DatabaseKey) throws -> any DatabaseWriter {
        var configuration = Configuration()
        configuration.useKey(key)
        switch kind {
        case .queue: return try DatabaseQueue(path: path, configuration: configuration)
        case .pool: return try DatabasePool(path: path, configuration: configuration)
        }
    }

    private func header(_ path: String) throws -> Data {
        try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readData(ofLength: 16)
    }

    /// The issue's done line: a key from the Secret Service, the migration through
    /// `GRDBMigrationRunner`, the result proven by the `sqlcipher` shell and by
    /// `migrationkit status` with the same Secret Service item.
    @Test(EncryptedGRDBTests.keyring, arguments: WriterKind.allCases)
    func anEncryptedStoreMigratesWithAKeyFromTheSecretService(_ kind: WriterKind) throws {
        guard ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" else {
            Issue.record("The Secret Service is unavailable: MIGRATIONKIT_TEST_KEYRING is not 1 (run through scripts/with-test-keyring.sh).")
            return
        }
        let scratch = try ScratchDatabase()
        let folder = try writeMigrations([Self.notes, Self.seed], in: scratch)
        let service = "org.migrationkit.tests.grdb.\(UUID().uuidString)"
        let store = SecretServiceKeyStore()
        let passphrase = "grdb-app-test-passphrase-\(kind.rawValue)"
        try store.store(service: service, account: "db", key: .passphrase(passphrase))
        defer { _ = try? store.delete(service: service, account: "db") }

        do {
            let key = try KeySource.secretService(service: service, account: "db").resolve()
            let writer = try open(kind, scratch.path, key: key)
            let runner = try GRDBMigrationRunner(directory: folder)
            try runner.migrate(in: writer)
            #expect(try runner.appliedIdentifiers(in: writer) == ["0001_notes", "0002_seed"])
            let checks = try runner.verificationReport(in: writer).checks.map(\.name)
            #expect(checks == ["cipher_integrity_check", "quick_check", "foreign_key_check"])
        }
        #expect(try header(scratch.path) != Data("SQLite format 3\0".utf8), "the file's header is plaintext")

        let shell = try SQLCipherShell.run(scratch.path, passphrase: passphrase,
                                           "SELECT identifier FROM grdb_migrations ORDER BY rowid;\nSELECT count(*) FROM notes;")
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == "0001_notes\n0002_seed\n3\n")

        #expect {
            let wrong = try open(.queue, scratch.path, key: .passphrase("not-the-key"))
            _ = try wrong.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        } throws: { error in
            // The SQLCipher connection's kind and sentence, not SQLite's "file is not a database".
            guard case DatabaseErrorKind.wrongKey = error else { return false }
            return error.localizedDescription.contains("Wrong key, or not a SQLCipher database")
        }

        guard let migrationkit = Self.migrationkit else {
            if TestPlatform.isCI { Issue.record("MIGRATIONKIT_BINARY is not set: scripts/test.sh builds migrationkit for this test.") }
            return
        }
        let status = try ChildProcess.run([migrationkit, "status", "--db-path", scratch.path, "--migrations", folder,
                                           "--keychain-service", service, "--keychain-account", "db"])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout.contains("applied  0001_notes") && status.stdout.contains("applied  0002_seed"), "\(status.stdout)")
        #expect(status.stdout.contains("2 applied, 0 pending."), "\(status.stdout)")
        #expect(!status.output.contains(passphrase))
    }

    /// Both ways, one file: `migrationkit migrate` writes it, the GRDB app continues it
    /// with the same key, ledger and checksums, and `migrationkit` sees the app's step.
    /// `x'` and 160 hex digits (a key, its HMAC key and salt) is a raw key only to
    /// SQLCipher 4.7.0 and later: on an older one `useKey` refuses it rather than hand it
    /// to SQLCipher, which would key the file with that text as a passphrase; nothing is
    /// written (GRDB's open leaves the file it opened empty). On a newer one it keys the
    /// file, and the same key opens it again.
    @Test(arguments: WriterKind.allCases)
    func aRawKeyWithItsHMACKeyIsUsedOnlyWhereThisSQLCipherReadsItSo(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let key = DatabaseKey.rawKey((0..<80).map { UInt8(($0 * 5 + 2) % 256) })
        let version = try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_version") }.flatMap(SQLCipherVersion.init(parsing:))
        guard SQLCipherFeature.rawKeyWithHMACKey.isAvailable(in: version) else {
            let linked = try #require(version, "GRDB over SQLCipher reports no cipher_version")
            let error = #expect(throws: DatabaseError.self) { _ = try open(kind, scratch.path, key: key) }
            #expect(error?.message?.contains("x' and 160 hex digits, which the linked SQLCipher \(linked) reads as a passphrase") == true,
                    "\(String(describing: error))")
            let size = (try? FileManager.default.attributesOfItem(atPath: scratch.path)[.size] as? Int) ?? 0
            #expect(size == 0, "the refused key wrote \(size) bytes")
            return
        }
        do {
            let writer = try open(kind, scratch.path, key: key)
            try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        }
        #expect(try open(kind, scratch.path, key: key).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test func theToolAndTheAppContinueEachOthersEncryptedFile() throws {
        guard let migrationkit = Self.migrationkit else {
            if TestPlatform.isCI { Issue.record("MIGRATIONKIT_BINARY is not set: scripts/test.sh builds migrationkit for this test.") }
            return
        }
        let scratch = try ScratchDatabase()
        let folder = try writeMigrations([Self.notes], in: scratch)
        let keyFile = scratch.folder.appendingPathComponent("notes.key").path
        try Data("tool-and-app-passphrase\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let byTool = try ChildProcess.run([migrationkit, "migrate", "--db-path", scratch.path, "--migrations", folder, "--password-file", keyFile])
        #expect(byTool.status == 0, "\(byTool.output)")

        _ = try writeMigrations([Self.seed], in: scratch)
        do {
            let key = try KeySource.file(path: keyFile).resolve()
            let writer = try open(.queue, scratch.path, key: key)
            let runner = try GRDBMigrationRunner(directory: folder)
            let status = try runner.migrationStatus(in: writer)
            #expect(status.applied == ["0001_notes"] && status.pending == ["0002_seed"] && status.modified.isEmpty, "\(status)")
            try runner.migrate(in: writer)
        }
        let byApp = try ChildProcess.run([migrationkit, "status", "--db-path", scratch.path, "--migrations", folder, "--password-file", keyFile])
        #expect(byApp.status == 0, "\(byApp.output)")
        #expect(byApp.stdout.contains("2 applied, 0 pending."), "\(byApp.stdout)")
        #expect(!byApp.stdout.contains("modified"), "\(byApp.stdout)")
    }

    /// An older app's file, written by the `sqlcipher` shell in SQLCipher 3's format:
    /// GRDB's defaults refuse it (wrong format reads as "not a database"), detection names
    /// its format, the runner migrates it in that format, and it stays in it.
    @Test func anOlderAppsSQLCipher3FileIsDetectedAndKeptInItsFormat() throws {
        let scratch = try ScratchDatabase()
        let passphrase = "older-app-passphrase"
        let made = try SQLCipherShell.run(scratch.path, keyPragma: "'\(passphrase)'",
                                          "PRAGMA cipher_compatibility = 3;\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\nINSERT INTO notes (body) VALUES ('kept');")
        #expect(made.status == 0, "\(made.stderr)")
        let key = DatabaseKey.passphrase(passphrase)
        #expect {
            _ = try open(.queue, scratch.path, key: key)
        } throws: { error in
            // The SQLCipher connection's kind and sentence, not SQLite's "file is not a database".
            guard case DatabaseErrorKind.wrongKey = error else { return false }
            return error.localizedDescription.contains("Wrong key, or not a SQLCipher database")
        }
        #expect(try GRDBCipherFormat.detect(path: scratch.path, key: key) == .sqlcipher3)
        #expect(try GRDBCipherFormat.detect(path: scratch.path, key: .passphrase("not-the-key")) == nil)

        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        do {
            var configuration = Configuration()
            configuration.useKey(key, format: .sqlcipher3)
            let writer = try DatabaseQueue(path: scratch.path, configuration: configuration)
            let runner = try GRDBMigrationRunner(steps: [
                MigrationStep<Database>(identifier: "0001_tags", apply: { db in try db.execute(sql: "CREATE TABLE tags (name TEXT)") }),
            ])
            try runner.migrate(in: writer)
            #expect(try writer.read { try Int.fetchOne($0, sql: "PRAGMA cipher_page_size") } == 1024)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) != before)
        let inFormat3 = try SQLCipherShell.run(scratch.path, keyPragma: "'\(passphrase)'",
                                               "PRAGMA cipher_compatibility = 3;\nSELECT body FROM notes;\nSELECT identifier FROM grdb_migrations;")
        #expect(inFormat3.status == 0 && inFormat3.stdout == "kept\n0001_tags\n", "\(inFormat3.output)")
        #expect(try GRDBCipherFormat.detect(path: scratch.path, key: key) == .sqlcipher3)
    }

    /// A file in SQLCipher 1's format, whose pages carry no HMAC, written by the
    /// `sqlcipher` shell: it opens with its key alone (past the header proof such a
    /// format gets first, `GRDBDatabaseFile.headerDecrypts`), is written in its format,
    /// and the shell reads it there afterwards.
    @Test func aSQLCipher1FileOpensWithItsKeyAndStaysInItsFormat() throws {
        let scratch = try ScratchDatabase()
        let key = DatabaseKey.rawKey((0..<32).map { UInt8($0) })
        let keyPragma = "\"x'" + (0..<32).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "'\""
        let made = try SQLCipherShell.run(scratch.path, keyPragma: keyPragma,
                                          "PRAGMA cipher_compatibility = 1;\nCREATE TABLE notes (body TEXT);\nINSERT INTO notes VALUES ('kept');")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try GRDBCipherFormat.detect(path: scratch.path, key: key) == .sqlcipher1)
        do {
            let queue = try GRDBDatabaseFile.openQueue(path: scratch.path, key: key)
            try queue.write { try $0.execute(sql: "INSERT INTO notes VALUES ('added')") }
            try queue.close()
        }
        let read = try SQLCipherShell.run(scratch.path, keyPragma: keyPragma, "PRAGMA cipher_compatibility = 1;\nSELECT body FROM notes;")
        #expect(read.status == 0 && read.stdout == "kept\nadded\n", "\(read.output)")
    }

    /// The older app's file after `migrationkit cipher-upgrade`: the app opens it with
    /// GRDB's defaults (SQLCipher 4), ledger and rows intact, and detection agrees.
    @Test func aFileTheToolUpgradedOpensWithGRDBsDefaults() throws {
        guard let migrationkit = Self.migrationkit else {
            if TestPlatform.isCI { Issue.record("MIGRATIONKIT_BINARY is not set: scripts/test.sh builds migrationkit for this test.") }
            return
        }
        let scratch = try ScratchDatabase()
        let passphrase = "upgraded-app-passphrase"
        let keyFile = scratch.folder.appendingPathComponent("app.key").path
        try Data(passphrase.utf8).write(to: URL(fileURLWithPath: keyFile))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let key = try KeySource.file(path: keyFile).resolve()
        let made = try SQLCipherShell.run(scratch.path, keyPragma: "'\(passphrase)'",
                                          "PRAGMA cipher_compatibility = 3;\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\nINSERT INTO notes (body) VALUES ('kept');")
        #expect(made.status == 0, "\(made.stderr)")
        do {
            var configuration = Configuration()
            configuration.useKey(key, format: .sqlcipher3)
            let runner = try GRDBMigrationRunner(steps: [
                MigrationStep<Database>(identifier: "0001_tags", apply: { db in try db.execute(sql: "CREATE TABLE tags (name TEXT)") }),
            ])
            try runner.migrate(in: try DatabaseQueue(path: scratch.path, configuration: configuration))
        }

        let upgrade = try ChildProcess.run([migrationkit, "cipher-upgrade", "--db-path", scratch.path, "--password-file", keyFile])
        #expect(upgrade.status == 0, "\(upgrade.output)")
        #expect(try GRDBCipherFormat.detect(path: scratch.path, key: key) == .sqlcipher4)
        var configuration = Configuration()
        configuration.useKey(key)
        let writer = try DatabaseQueue(path: scratch.path, configuration: configuration)
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT body FROM notes") } == ["kept"])
        #expect(try writer.read { try Int.fetchOne($0, sql: "PRAGMA cipher_page_size") } == 4096)
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep<Database>(identifier: "0001_tags", apply: { db in try db.execute(sql: "CREATE TABLE tags (name TEXT)") }),
        ])
        #expect(try runner.appliedIdentifiers(in: writer) == ["0001_tags"])
        #expect(try runner.verificationReport(in: writer).firstFailure == nil)
    }

    /// A plaintext file is named as such, without a key derivation.
    @Test func aPlaintextFileIsDetectedAsPlaintext() throws {
        let scratch = try ScratchDatabase()
        try scratch.queue().write { db in try db.execute(sql: "CREATE TABLE a (x)") }
        #expect(try GRDBCipherFormat.detect(path: scratch.path, key: .passphrase("any")) == .plaintext)
    }

    /// On a plaintext file (no key) the GRDB verifier leaves `cipher_integrity_check` out:
    /// the pragma answers nothing there, which would read as a pass.
    @Test func aPlaintextFileIsNotReportedAsPageChecked() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        let runner = try GRDBMigrationRunner(steps: [
            MigrationStep<Database>(identifier: "0001_a", apply: { db in try db.execute(sql: "CREATE TABLE a (x)") }),
        ])
        try runner.migrate(in: writer)
        #expect(try header(scratch.path) == Data("SQLite format 3\0".utf8))
        #expect(try runner.verificationReport(in: writer).checks.map(\.name) == ["quick_check", "foreign_key_check"])
    }
}
#endif

import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct EncryptionLifecycleTests {
    /// A plaintext database as an app that shipped without encryption left it.
    private func makePlaintextDatabase(_ path: String) throws {
        let writer = try SQLCipherWriter(path: path, key: nil)
        try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks]).migrate(in: writer)
        try writer.write { db in
            for index in 1...50 {
                try db.execute(sql: "INSERT INTO authors (id, name) VALUES (?, ?)", arguments: [.integer(Int64(index)), .text("Author \(index)")])
                try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (?, 'A book')", arguments: [.integer(Int64(index))])
            }
            try db.execute(sql: "PRAGMA user_version = 42")
            try db.execute(sql: "PRAGMA application_id = 1234567")
        }
    }

    @Test func encryptMigrateRekeyDecryptKeepsEveryRowAndHeaderField() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.db")
        let encrypted = directory.path("encrypted.db")
        try makePlaintextDatabase(plain)
        let plainBefore = try fileBytes(plain)

        let summary = try DatabaseEncryption.encrypt(plaintextAt: plain, to: encrypted, key: .testPassphrase)
        #expect(summary.rowCounts["authors"] == 50 && summary.rowCounts["grdb_migrations"] == 2)
        #expect(try fileBytes(plain) == plainBefore)  // the source is untouched
        #expect(try fileMode(encrypted) == 0o600)
        #expect(try fileBytes(encrypted).prefix(16) != Data("SQLite format 3\0".utf8))

        // The ledger came along: migrating continues where the plaintext left off.
        let writer = try SQLCipherWriter(path: encrypted, key: .testPassphrase)
        #expect(try SQLCipherMigrationRunner(steps: SampleSteps.all).migrate(in: writer).identifiers == ["0003_add_year"])
        try writer.read { db throws in
            #expect(try db.fetchInt(sql: "PRAGMA user_version") == 42)
            #expect(try db.fetchInt(sql: "PRAGMA application_id") == 1234567)
        }

        let newKey = DatabaseKey.rawKey(Array(repeating: 7, count: 32))
        try DatabaseEncryption.rekey(at: encrypted, from: .testPassphrase, to: newKey)
        expectError(.wrongKey) { _ = try SQLCipherWriter(path: encrypted, key: .testPassphrase) }
        #expect(try SQLCipherWriter(path: encrypted, key: newKey).read { try $0.fetchInt(sql: "SELECT count(*) FROM books") } == 50)

        let exported = directory.path("exported.db")
        let decrypted = try DatabaseEncryption.decrypt(at: encrypted, key: newKey, to: exported)
        #expect(decrypted.rowCounts["books"] == 50 && decrypted.userVersion == 42 && decrypted.applicationID == 1234567)
        #expect(decrypted.rowCounts["grdb_migrations"] == 3)
        #expect(try fileBytes(exported).prefix(16) == Data("SQLite format 3\0".utf8))
        #expect(try fileMode(exported) == 0o600)
        // The plain sqlite-format copy opens without a key in the shell, like any SQLite file.
        #expect(try SQLCipherShell.run(exported, keyPragma: nil, "SELECT count(*) FROM authors;").stdout == "50\n")
    }

    @Test func encryptInPlaceReplacesTheOriginalAtomically() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makePlaintextDatabase(path)
        try DatabaseEncryption.encryptInPlace(at: path, key: .testRawKey)
        #expect(try fileBytes(path).prefix(16) != Data("SQLite format 3\0".utf8))
        #expect(try fileMode(path) == 0o600)
        #expect(try SQLCipherWriter(path: path, key: .testRawKey).read { try $0.fetchInt(sql: "SELECT count(*) FROM authors") } == 50)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["app.db"])
        // Already encrypted: refused, pointing at rekey.
        #expect {
            try DatabaseEncryption.encryptInPlace(at: path, key: .testRawKey)
        } throws: { error in
            (error as? SQLCipherError)?.kind == .wrongOperation && "\(error)".contains("rekey")
        }
    }

    @Test func anInterruptedInPlaceEncryptionLeavesTheOriginalIntact() throws {
        struct Interrupted: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try makePlaintextDatabase(path)
        let before = try fileBytes(path)
        #expect(throws: Interrupted.self) {
            try DatabaseEncryption.encryptInPlace(at: path, key: .testRawKey, cipher: CipherSettings(), beforeReplacing: { throw Interrupted() })
        }
        #expect(try fileBytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["app.db"])
        // A leftover from a killed run (a stale temporary copy) does not get in the way.
        #expect(FileManager.default.createFile(atPath: DurableFile.siblingPath(of: path, purpose: "encrypting"), contents: Data("stale".utf8)))
        try DatabaseEncryption.encryptInPlace(at: path, key: .testRawKey)
        #expect(try SQLCipherWriter(path: path, key: .testRawKey).read { try $0.fetchInt(sql: "SELECT count(*) FROM books") } == 50)
    }

    @Test func decryptRefusesToOverwriteUnlessForced() throws {
        let directory = try TemporaryDirectory()
        let encrypted = directory.path("app.db")
        _ = try SQLCipherWriter(path: encrypted, key: .testRawKey).write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);") }
        let output = directory.path("out.db")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output))
        expectError(.fileSystem) { try DatabaseEncryption.decrypt(at: encrypted, key: .testRawKey, to: output) }
        #expect(try fileBytes(output) == Data("keep me".utf8))
        try DatabaseEncryption.decrypt(at: encrypted, key: .testRawKey, to: output, overwrite: true)
        #expect(try SQLCipherWriter(path: output, key: nil).read { try $0.fetchInt(sql: "SELECT a FROM t") } == 1)
        #expect(try fileMode(output) == 0o600)
    }

    @Test func rekeyRefusesAPlaintextDatabaseAndPointsToEncrypt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.db")
        try makePlaintextDatabase(path)
        let before = try fileBytes(path)
        #expect {
            try DatabaseEncryption.rekey(at: path, from: .testPassphrase, to: .testRawKey)
        } throws: { error in
            (error as? SQLCipherError)?.kind == .wrongOperation && "\(error)".contains("encrypt")
        }
        #expect(try fileBytes(path) == before)
    }

    @Test func rekeyWithTheWrongOldKeyChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        _ = try SQLCipherWriter(path: path, key: .testRawKey).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        let before = try fileBytes(path)
        expectError(.wrongKey) { try DatabaseEncryption.rekey(at: path, from: .passphrase("nope"), to: .testPassphrase) }
        #expect(try fileBytes(path) == before)
    }

    @Test func nonDefaultCipherSettingsInteroperateWithTheShell() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.db")
        try makePlaintextDatabase(plain)
        let encrypted = directory.path("tuned.db")
        let settings = CipherSettings(kdfIterations: 12_000, pageSize: 4096)
        try DatabaseEncryption.encrypt(plaintextAt: plain, to: encrypted, key: .testPassphrase, cipher: settings)
        #expect(try fileBytes(encrypted).count % 4096 == 0)
        let shell = try SQLCipherShell.run(encrypted, keyPragma: "'correct horse battery staple'",
                                           "PRAGMA kdf_iter = 12000; PRAGMA cipher_page_size = 4096; SELECT count(*) FROM authors;")
        #expect(shell.stdout.hasSuffix("50\n"), "\(shell.stderr)")
        // With default settings the same key does not open it.
        expectError(.wrongKey) { _ = try SQLCipherWriter(path: encrypted, key: .testPassphrase) }
        var configuration = SQLCipherConfiguration()
        configuration.cipher = settings
        #expect(try SQLCipherWriter(path: encrypted, key: .testPassphrase, configuration: configuration).read { try $0.fetchInt(sql: "SELECT count(*) FROM books") } == 50)
    }

    /// SQLCipher ignores pragmas it does not know, so a setting the linked library cannot
    /// honour must be refused by name, with the version, before any file is created; on
    /// SQLCipher 4 the same settings must work.
    @Test func settingsOnlySQLCipher4HasAreRefusedOn3AndWorkOn4() throws {
        let version = try #require(SQLCipherLibrary.cipherVersion)
        let directory = try TemporaryDirectory()
        let fourOnly: [CipherSettings] = [
            CipherSettings(compatibility: 4),
            CipherSettings(kdfAlgorithm: "PBKDF2_HMAC_SHA256"),
            CipherSettings(hmacAlgorithm: "HMAC_SHA256"),
            CipherSettings(plaintextHeaderSize: 32, salt: Array(repeating: 7, count: 16)),
        ]
        for (index, settings) in fourOnly.enumerated() {
            var configuration = SQLCipherConfiguration()
            configuration.cipher = settings
            let path = directory.path("new-\(index).db")
            if version.major >= 4 {
                let writer = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
                try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
                #expect(try writer.effectiveCipherSettings()?.format == (index == 0 ? .sqlcipher4 : .custom))
            } else {
                #expect {
                    _ = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
                } throws: { error in
                    (error as? SQLCipherError)?.kind == .unsupportedCipherSetting
                        && "\(error)".contains(SQLCipherLibrary.cipherVersionString ?? "?")
                }
                #expect(!FileManager.default.fileExists(atPath: path), "\(settings)")
            }
        }
    }

    /// Settings no SQLCipher can use are refused before a file exists, so no later run
    /// meets a half-made file it calls a wrong key.
    @Test func impossibleSettingsLeaveNoFileBehind() throws {
        let directory = try TemporaryDirectory()
        let impossible: [CipherSettings] = [
            CipherSettings(compatibility: 5),
            CipherSettings(kdfIterations: 0),
            CipherSettings(pageSize: 1000),
            CipherSettings(kdfAlgorithm: "MD5"),
            CipherSettings(plaintextHeaderSize: 32),
            CipherSettings(plaintextHeaderSize: 24, salt: Array(repeating: 1, count: 16)),
            CipherSettings(salt: [1, 2, 3]),
        ]
        for (index, settings) in impossible.enumerated() {
            var configuration = SQLCipherConfiguration()
            configuration.cipher = settings
            let path = directory.path("impossible-\(index).db")
            expectError(.unsupportedCipherSetting) { _ = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty, "\(settings)")
        }
    }

    /// SQLCipher 4's own settings, chosen by hand, read back by the shell of the same
    /// library with the same pragmas, and by MigrationKit only when they are given.
    @Test func customSQLCipher4SettingsInteroperateWithTheShell() throws {
        let version = try #require(SQLCipherLibrary.cipherVersion)
        guard version.major >= 4 else {
            // 3.x has one algorithm of each: the same request is refused (previous test).
            expectError(.unsupportedCipherSetting) { try CipherSettingsApplier.validate(CipherSettings(hmacAlgorithm: "HMAC_SHA256")) }
            return
        }
        let directory = try TemporaryDirectory()
        let path = directory.path("custom.db")
        let salt: [UInt8] = Array(0x10...0x1f)
        let settings = CipherSettings(kdfIterations: 10_000, pageSize: 2048, kdfAlgorithm: "PBKDF2_HMAC_SHA256",
                                      hmacAlgorithm: "HMAC_SHA256", plaintextHeaderSize: 32, salt: salt)
        var configuration = SQLCipherConfiguration()
        configuration.cipher = settings
        let writer = try SQLCipherWriter(path: path, key: .testPassphrase, configuration: configuration)
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (41), (1);") }
        let effective = try #require(try writer.effectiveCipherSettings())
        #expect(effective.format == .custom && effective.pageSize == 2048 && effective.plaintextHeaderSize == 32)
        #expect(effective.kdfAlgorithm == "PBKDF2_HMAC_SHA256" && effective.hmacAlgorithm == "HMAC_SHA256")
        // A plaintext header: the file starts like an unencrypted SQLite file.
        #expect(try fileBytes(path).prefix(16) == Data("SQLite format 3\0".utf8))
        let shell = try SQLCipherShell.run(path, keyPragma: "'correct horse battery staple'", """
            PRAGMA kdf_iter = 10000; PRAGMA cipher_page_size = 2048;
            PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256; PRAGMA cipher_hmac_algorithm = HMAC_SHA256;
            PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = "x'101112131415161718191a1b1c1d1e1f'";
            .output
            SELECT sum(a) FROM t;
            """)
        #expect(shell.stdout.hasSuffix("42\n"), "\(shell.output)")
        expectError(.wrongKey) { _ = try SQLCipherWriter(path: path, key: .testPassphrase) }
    }
}

@Suite struct SQLCipher4InteropTests {
    /// A copy of a committed fixture (made by SQLCipher 4.12; see scripts/make-sqlcipher4-fixtures.py).
    private func fixture(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        let copy = directory.path(name)
        try FileManager.default.copyItem(atPath: source.path, toPath: copy)
        return copy
    }

    private let fixtureKey = DatabaseKey.passphrase("sqlcipher 4 fixture")

    /// SQLCipher 4 opens a file with SQLCipher 4's defaults as is; SQLCipher 3 cannot
    /// read it at all (no SHA-512), and says so instead of a bare "wrong key".
    @Test func aSQLCipher4DefaultFileOpensOn4AndIsExplainedOn3() throws {
        let version = try #require(SQLCipherLibrary.cipherVersion)
        let directory = try TemporaryDirectory()
        let path = try fixture("sqlcipher4-default.db", in: directory)
        let before = try fileBytes(path)
        if version.major >= 4 {
            let writer = try SQLCipherWriter(path: path, key: fixtureKey)
            #expect(try writer.read { try $0.fetchInt(sql: "SELECT sum(a) FROM t") } == 6)
            #expect(try writer.effectiveCipherSettings()?.format == .sqlcipher4)
            return
        }
        #expect {
            _ = try SQLCipherWriter(path: path, key: fixtureKey)
        } throws: { error in
            let text = "\(error)"
            return (error as? SQLCipherError)?.kind == .wrongKey
                && text.contains("SQLCipher 4") && text.contains(SQLCipherLibrary.cipherVersionString ?? "?")
                && text.contains("cipher_compatibility")
        }
        #expect(try fileBytes(path) == before)
    }

    /// A SQLCipher 3-format file opens with no settings on either library, and a
    /// migration keeps it in that format: the shell then reads it with SQLCipher 3's
    /// settings, and (on 4.x) not with its own defaults.
    @Test func aSQLCipher3FormatFileOpensWithNoSettingsAndKeepsItsFormat() throws {
        let directory = try TemporaryDirectory()
        let path = try fixture("sqlcipher4-compat3.db", in: directory)
        let writer = try SQLCipherWriter(path: path, key: fixtureKey)
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT sum(a) FROM t") } == 6)
        #expect(try writer.effectiveCipherSettings()?.format == .sqlcipher3)
        try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors]).migrate(in: writer)
        #expect(try writer.read { try $0.tableExists("authors") })
        try DatabaseBackup.create(of: writer, keep: 0)
        #expect(try SQLCipherWriter(path: path, key: fixtureKey).effectiveCipherSettings()?.format == .sqlcipher3)

        let isFour = try #require(SQLCipherLibrary.cipherVersion).major >= 4
        let asThree = try SQLCipherShell.run(path, keyPragma: "'sqlcipher 4 fixture'",
                                             (isFour ? "PRAGMA cipher_compatibility = 3;\n" : "") + "SELECT count(*) FROM authors;")
        #expect(asThree.status == 0 && asThree.stdout == "0\n", "\(asThree.output)")
        if isFour {
            let asFour = try SQLCipherShell.run(path, keyPragma: "'sqlcipher 4 fixture'", "SELECT count(*) FROM authors;")
            #expect(asFour.status != 0)
        }
    }
}

@Suite struct EffectiveCipherSettingsTests {
    @Test func reportsTheSettingsTheDatabaseIsReadWith() throws {
        let directory = try TemporaryDirectory()
        var configuration = SQLCipherConfiguration()
        configuration.cipher = CipherSettings(kdfIterations: 7000, pageSize: 2048)
        let writer = try SQLCipherWriter(path: directory.path("tuned.db"), key: .testPassphrase, configuration: configuration)
        let settings = try #require(try writer.effectiveCipherSettings())
        #expect(settings.kdfIterations == 7000 && settings.pageSize == 2048)
        #expect(settings.usesHMAC == true)
        #expect(settings.kdfAlgorithm != nil && settings.hmacAlgorithm != nil)
        #expect(settings.summary.contains("2048-byte pages") && settings.summary.contains("× 7000"))
        let raw = try #require(try SQLCipherWriter(path: directory.path("raw.db"), key: .testRawKey).effectiveCipherSettings())
        #expect(raw.rawKey && raw.summary.contains("raw key (no key derivation)") && !raw.summary.contains("×"))
        #expect(try SQLCipherWriter(path: directory.path("plain.db"), key: nil).effectiveCipherSettings() == nil)
    }
}

import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// Copies keep the header settings the app chose: `auto_vacuum` (which can only be set
/// before a file's first table, so an app never sets it again), `user_version` and
/// `application_id`, through `decrypt`, `encrypt --output`, `encrypt --in-place`,
/// `rekey` and `cipher-upgrade`, each read back by the `sqlcipher` shell.
@Suite struct HeaderSettingsTests {
    private static let header = "PRAGMA auto_vacuum; PRAGMA user_version; PRAGMA application_id;"
    private static let chosen = "2\n7\n1234\n"

    private func headerOf(_ path: String, key: TestKey?) throws -> String {
        let result = try key.map { try SQLCipherShell.run(path, key: $0, Self.header) } ?? SQLCipherShell.run(path, keyPragma: nil, Self.header)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    @Test func everyCopyKeepsAutoVacuumAndTheAppsNumbers() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA auto_vacuum = INCREMENTAL; PRAGMA user_version = 7; PRAGMA application_id = 1234;
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('a');
            """)
        try #require(made.status == 0, "\(made.output)")
        #expect(try headerOf(workspace.database, key: workspace.key) == Self.chosen)

        let plain = workspace.path("plain.db")
        let decrypt = try workspace.run("decrypt", ["--output", plain])
        #expect(decrypt.status == 0, "\(decrypt.output)")
        #expect(try headerOf(plain, key: nil) == Self.chosen, "decrypt")

        let encrypted = workspace.path("again.db")
        let encrypt = try Tool.run(["encrypt", "--output", encrypted, "--db-path", plain, "--password-file", workspace.keyFile])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        #expect(try headerOf(encrypted, key: workspace.key) == Self.chosen, "encrypt --output")

        let inPlace = try Tool.run(["encrypt", "--in-place", "--no-backup", "--db-path", plain, "--password-file", workspace.keyFile])
        #expect(inPlace.status == 0, "\(inPlace.output)")
        #expect(try headerOf(plain, key: workspace.key) == Self.chosen, "encrypt --in-place")

        let rekey = try workspace.run("rekey", ["--new-password", "another passphrase", "--no-backup"])
        #expect(rekey.status == 0, "\(rekey.output)")
        #expect(try headerOf(workspace.database, key: .passphrase("another passphrase")) == Self.chosen, "rekey")
    }
}

/// An iOS-layout file (SQLCipher 4's plaintext header, the salt kept by the app): a
/// wrong key, or the right key with a wrong salt, is the wrong-key failure every other
/// file gives (exit 4, one sentence, nothing written), not SQLite's "SQL logic error",
/// which is what SQLite reports when such a file's first page does not decrypt.
@Suite struct PlaintextHeaderWrongKeyTests {
    static let salt = "00112233445566778899aabbccddeeff"

    @Test(.enabled(if: (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4, "SQLCipher 3.4.1 has no plaintext header"))
    func aWrongKeyOrSaltIsTheWrongKeySentence() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = "x'\(Self.salt)'";
            CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');
            """)
        try #require(made.status == 0, "\(made.output)")
        try workspace.write("other.key", TestKey.raw().text + "\n", mode: 0o600)
        let before = try TreeSnapshot(workspace.root)
        let cases: [(String, [String])] = [
            ("a wrong key", ["--password-file", workspace.path("other.key"), "--cipher-salt", Self.salt]),
            ("a wrong salt", ["--password-file", workspace.keyFile, "--cipher-salt", "ffeeddccbbaa99887766554433221100"]),
        ]
        for (described, options) in cases {
            for command in ["status", "verify", "migrate"] {
                let result = try Tool.run([command, "--db-path", workspace.database, "--migrations", workspace.migrations,
                                           "--cipher-plaintext-header-size", "32"] + options)
                #expect(result.exitCode == .wrongKeyOrNotADatabase, "\(described), \(command): \(result.output)")
                #expect(result.stderr.contains("Wrong key, or wrong cipher settings: the key does not decrypt this file (a SQLCipher database with a plaintext header) with the settings given;"),
                        "\(described), \(command): \(result.stderr)")
                #expect(!result.output.contains("SQL logic error"), "\(described), \(command): \(result.output)")
                #expect(try TreeSnapshot(workspace.root) == before, "\(described), \(command) changed the folder")
            }
        }
        let right = try workspace.run("status", ["--cipher-plaintext-header-size", "32", "--cipher-salt", Self.salt])
        #expect(right.status == 0, "\(right.output)")
    }

    /// The right key on such a file whose first page is damaged: its other pages decrypt,
    /// so the key is right and the file damaged (exit 10), whatever code SQLite gives the
    /// first read (SQLITE_ERROR on 3.46, SQLITE_CORRUPT on 3.53); a wrong key still
    /// decrypts none and is the wrong key (exit 4).
    @Test(.enabled(if: (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4, "SQLCipher 3.4.1 has no plaintext header"))
    func whichPagesTheKeyDecryptsTellsAWrongKeyFromDamage() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = "x'\(Self.salt)'";
            CREATE TABLE notes (body TEXT);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 40) INSERT INTO notes SELECT hex(randomblob(200)) FROM n;
            """)
        try #require(made.status == 0, "\(made.output)")
        // Four bytes of the first page's encrypted part overwritten.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: workspace.database))
        try handle.seek(toOffset: 100)
        handle.write(Data([0xff, 0xff, 0xff, 0xff]))
        try handle.close()
        try workspace.write("other.key", TestKey.raw().text + "\n", mode: 0o600)
        let before = try TreeSnapshot(workspace.root)
        let settings = ["--cipher-plaintext-header-size", "32", "--cipher-salt", Self.salt]
        for command in ["status", "verify", "migrate"] {
            let damaged = try workspace.run(command, settings)
            #expect(damaged.exitCode == .damaged && damaged.stderr.contains("The database is damaged"), "\(command): \(damaged.output)")
            let json = try decodeJSON(try workspace.run(command, settings + ["--json"]).stdout)
            #expect((json["error"] as? [String: Any])?["kind"] as? String == "damaged", "\(command): \(json)")
            let wrong = try Tool.run([command, "--db-path", workspace.database, "--migrations", workspace.migrations,
                                      "--password-file", workspace.path("other.key")] + settings)
            #expect(wrong.exitCode == .wrongKeyOrNotADatabase, "\(command), a wrong key: \(wrong.output)")
        }
        try expectUnchanged(before, "a damaged first page")
    }
}

/// A database whose key opens it but one of whose pages does not read (a disk error, a
/// copy cut short): every command says it is damaged and names `verify`, exit 10, and
/// changes nothing. `rekey`, which rewrites every page, refuses before it writes a
/// backup or a journal, rather than stopping half way and asking to try again.
@Suite struct DamagedDatabaseTests {
    @Test func aDamagedPageIsDamageForEveryCommandAndNothingIsWritten() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 400) INSERT INTO notes (body) SELECT hex(randomblob(300)) FROM n;
            """)
        try #require(made.status == 0, "\(made.output)")
        // Fifty bytes of a page in the middle of the table overwritten.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: workspace.database))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2 + 100)
        handle.write(Data(repeating: 0, count: 50))
        try handle.close()
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\nSELECT count(*) FROM notes WHERE body LIKE '%x%';\n")
        let before = try TreeSnapshot(workspace.root)
        for extra in [["--new-password", "another passphrase"], ["--new-password", "another passphrase", "--no-backup"]] {
            let result = try workspace.run("rekey", extra)
            #expect(result.exitCode == .damaged, "rekey \(extra): \(result.output)")
            #expect(result.stderr.contains("damaged") && result.stderr.contains("`verify`") && !result.stderr.contains("try again"), "\(result.stderr)")
            #expect(try TreeSnapshot(workspace.root) == before, "rekey \(extra) changed the folder")
        }
        let migrate = try workspace.run("migrate", ["--accept-existing-tables"])
        #expect(migrate.exitCode == .damaged && migrate.stderr.contains("damaged") && migrate.stderr.contains("`verify`"), "\(migrate.output)")
        #expect(try TreeSnapshot(workspace.root) == before, "migrate changed the folder")
        let baseline = try workspace.run("baseline", ["--to", "0001_tags"])
        #expect(baseline.exitCode == .damaged && baseline.stderr.contains("damaged") && baseline.stderr.contains("`verify`"), "\(baseline.output)")
        #expect(try TreeSnapshot(workspace.root) == before, "baseline changed the folder")
        let verify = try workspace.run("verify")
        #expect(verify.exitCode == .verificationFailed, "\(verify.output)")
    }
}

/// A rekey that cannot happen says why, with the exit code the README's table gives it:
/// SQLCipher's rekey returns OK and changes nothing when another connection holds the
/// database in a transaction, which used to be exit 1 "try again".
@Suite struct RekeyOutcomeTests {
    @Test func aRekeyBlockedByAnotherConnectionIsALockNamingIt() throws {
        let workspace = try Workspace()
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');").status == 0)
        let reader = try ShellInReadTransaction(workspace.database, key: workspace.key, reading: "notes")
        try workspace.write("new.key", TestKey.raw().text + "\n", mode: 0o600)
        let before = try TreeSnapshot(workspace.root)

        let blocked = try workspace.run("rekey", ["--new-password-file", workspace.path("new.key"), "--no-backup", "--lock-timeout", "1"])
        #expect(blocked.exitCode == .locked, "\(blocked.output)")
        #expect(blocked.stderr.contains("nothing was changed") && blocked.stderr.contains("process \(reader.process.processIdentifier) (sqlcipher)")
                && !blocked.stderr.contains("Nothing was lost; try again"), "\(blocked.stderr)")
        try expectUnchanged(before, "the blocked rekey")

        reader.end()
        let rekeyed = try workspace.run("rekey", ["--new-password-file", workspace.path("new.key"), "--no-backup"])
        #expect(rekeyed.status == 0, "\(rekeyed.output)")
    }
}

/// SQLCipher keeps the HMAC salt mask for the whole process, and format detection sets
/// it to zero while it tries SQLCipher 2.0 beta's format (as every wrong key does): an
/// export on another thread (a fleet's tenant, an app's job) must derive its copy's keys
/// only under the guard (`SaltMaskGuard`), or its copy is written with keys no open
/// derives again.
@Suite struct SaltMaskRaceTests {
    @Test func copiesMadeBesideWrongKeyDetectionsStayReadable() throws {
        let workspace = try Workspace()
        let locked = workspace.path("locked.db")
        #expect(try SQLCipherShell.run(locked, key: .raw(), "CREATE TABLE notes (body TEXT);").status == 0)
        let stop = StopFlag()
        let detections = (0..<2).map { _ in
            Thread {
                while !stop.isSet {
                    _ = try? Tool.run(["status", "--db-path", locked, "--password-file", workspace.keyFile, "--migrations", workspace.migrations])
                }
            }
        }
        detections.forEach { $0.start() }
        defer {
            stop.set()
            while detections.contains(where: { !$0.isFinished }) { usleep(1000) }
        }
        for round in 0..<TestDepth.count(quick: 12, full: 30) {
            let plain = workspace.path("plain\(round).db")
            #expect(try SQLCipherShell.run(plain, keyPragma: nil, "PRAGMA auto_vacuum = INCREMENTAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');").status == 0)
            let encrypted = try Tool.run(["encrypt", "--in-place", "--no-backup", "--db-path", plain, "--password-file", workspace.keyFile, "--migrations", workspace.migrations])
            #expect(encrypted.status == 0, "round \(round): \(encrypted.output)")
            let read = try SQLCipherShell.run(plain, key: workspace.key, "SELECT body FROM notes;")
            #expect(read.status == 0 && read.stdout == "kept\n", "round \(round): \(read.output)")
        }
    }
}

/// A flag one thread sets and others read.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

import Foundation
@testable import MigrationKit
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// SQLCipher's raw-key literals: `x'<64 hex>'` (the key), `x'<96 hex>'` (with the
/// database's salt) and, from SQLCipher 4.7.0, `x'<160 hex>'` (with its HMAC key and
/// salt), which every earlier version reads as a passphrase. Each is a raw key to the
/// tool, described as what it is; the last is refused on a linked SQLCipher that would
/// take it for a passphrase, naming where it came from, with the files as they were.
@Suite struct RawKeyFormTests {
    /// A key text of `bytes` bytes, `x'…'`.
    private static func rawKey(bytes: Int, seed: UInt8) -> TestKey {
        TestKey(text: "x'" + (0..<bytes).map { String(format: "%02x", UInt8(truncatingIfNeeded: Int(seed) &* 31 &+ $0 &* 7)) }.joined() + "'")
    }

    private var takesHMACKeyForm: Bool { SQLCipherFeature.rawKeyWithHMACKey.isAvailable(in: SQLCipherLibrary.cipherVersion) }

    /// The `cipher` object of `status --json`.
    private func cipher(_ workspace: Workspace) throws -> [String: Any] {
        let status = try workspace.run("status", ["--json"])
        #expect(status.status == 0, "\(status.output)")
        return try #require(try decodeJSON(status.stdout)["cipher"] as? [String: Any], "\(status.stdout)")
    }

    /// The key alone and the key with its salt: `status` says which, in words and in
    /// `--json`; the salt given is the one SQLCipher wrote, and the configuration's
    /// `sqlcipher` shell opens the file with the same text.
    @Test func statusSaysWhichRawKeyFormOpensTheDatabase() throws {
        for (key, form, words) in [(Self.rawKey(bytes: 32, seed: 1), "key", "raw key (no key derivation)"),
                                   (Self.rawKey(bytes: 48, seed: 2), "keyAndSalt", "raw key and salt (no key derivation)")] {
            let workspace = try Workspace(key: key)
            try workspace.writeSampleMigrations()
            let migrate = try workspace.run("migrate", ["--no-backup"])
            try #require(migrate.status == 0, "\(form): \(migrate.output)")
            let status = try workspace.run("status")
            #expect(status.status == 0 && status.stdout.contains(", \(words),"), "\(form): \(status.stdout)")
            let document = try cipher(workspace)
            #expect(document["rawKey"] as? Bool == true && document["rawKeyForm"] as? String == form, "\(form): \(document)")
            let shell = try SQLCipherShell.run(workspace.database, key: key, "SELECT count(*) FROM books;")
            #expect(shell.status == 0 && shell.stdout == "0\n", "\(form): \(shell.output)")
            if form == "keyAndSalt" {
                let salt = key.text.dropFirst(2 + 64).prefix(32)
                let header = try #require(workspace.bytes(workspace.database)).prefix(16).map { String(format: "%02x", $0) }.joined()
                #expect(header == salt, "the file's salt is not the key's")
            }
        }
    }

    /// A passphrase is in none of the forms: `rawKeyForm` is there, and null.
    @Test(.tags(.passphrase)) func aPassphraseHasNoRawKeyForm() throws {
        let workspace = try Workspace(key: .passphrase("raw key forms"))
        try workspace.writeSampleMigrations()
        try #require(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let document = try cipher(workspace)
        #expect(document["rawKey"] as? Bool == false && document["rawKeyForm"] is NSNull, "\(document)")
    }

    /// `x'<160 hex>'` from a key file, `--password` or the environment: on a SQLCipher
    /// before 4.7.0, which reads it as a passphrase, never the key of a new database (exit
    /// 5), and on a database it does not open as that passphrase the wrong key, saying how
    /// it was read (exit 4); nothing created or changed. On 4.7.0 and later
    /// it is the raw key: `status` describes it, and `cipher-upgrade --to-kdf-iter` says
    /// that KDF iterations do not apply to a raw key, as it does for the 64-digit form.
    @Test func aRawKeyWithItsHMACKeyAndSaltIsUsedOnlyWhereTheLinkedSQLCipherReadsItSo() throws {
        let hmacKey = Self.rawKey(bytes: 80, seed: 3)
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.write("hmac.key", hmacKey.text + "\n", mode: 0o600)
        let fromFile = ["--password-file", workspace.path("hmac.key")]
        let other = workspace.path("other.db")
        let sources: [(String, [String], [String: String])] = [
            ("key file \(workspace.path("hmac.key"))", ["--password-file", workspace.path("hmac.key")], [:]),
            ("the password given", ["--password", hmacKey.text], [:]),
            ("environment variable MIGRATIONKIT_PASSWORD", [], ["MIGRATIONKIT_PASSWORD": hmacKey.text]),
        ]
        // The 64-digit form on every SQLCipher that writes SQLCipher 4's format.
        if SQLCipherFeature.formatFour.isAvailable(in: SQLCipherLibrary.cipherVersion) {
            try #require(try workspace.run("migrate", ["--no-backup"]).status == 0)
            let before = try TreeSnapshot(workspace.root)
            let upgrade = try Tool.run(["cipher-upgrade", "--to-kdf-iter", "100000", "--no-backup", "--db-path", workspace.database,
                                        "--password-file", workspace.keyFile], directory: workspace.root)
            #expect(upgrade.exitCode == .usage && upgrade.stderr.contains("KDF iterations do not apply") && !upgrade.stdout.contains("Upgraded"),
                    "x'<64 hex>': \(upgrade.output)")
            try expectUnchanged(before, "cipher-upgrade --to-kdf-iter with x'<64 hex>'")
        }
        guard takesHMACKeyForm else {
            // A database under the workspace's own key, and one that does not exist yet.
            if !FileManager.default.fileExists(atPath: workspace.database) {
                try #require(try workspace.run("migrate", ["--no-backup"]).status == 0)
            }
            let before = try TreeSnapshot(workspace.root)
            for (origin, key, variables) in sources {
                for arguments in [["migrate", "--db-path", other, "--migrations", workspace.migrations],
                                  ["status", "--db-path", workspace.database, "--migrations", workspace.migrations],
                                  ["cipher-upgrade", "--to-kdf-iter", "100000", "--no-backup", "--db-path", workspace.database]] {
                    let result = try Tool.run(arguments + key, environment: Tool.environment(variables), directory: workspace.root)
                    let context = "\(arguments[0]) / \(origin)"
                    guard arguments[0] != "cipher-upgrade" || SQLCipherFeature.formatFour.isAvailable(in: SQLCipherLibrary.cipherVersion) else {
                        // SQLCipher 3 refuses cipher-upgrade before any key is read.
                        #expect(result.exitCode == .usage || result.exitCode == .refused, "\(context): \(result.output)")
                        continue
                    }
                    // A new database is never keyed with it here (exit 5); an existing
                    // one it does not open as the passphrase it reads as (exit 4).
                    let creates = arguments[0] == "migrate"
                    #expect(result.exitCode == (creates ? .keyUnavailable : .wrongKeyOrNotADatabase), "\(context): \(result.output)")
                    let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("migrationkit: error: ") }
                    let linked = "the linked SQLCipher \(SQLCipherLibrary.cipherVersion!)"
                    let sentence = creates
                        ? "The key is x' and 160 hex digits, which \(linked) reads as a passphrase and SQLCipher 4.7.0 and later as a raw key with its HMAC key and salt, so it was not used; open the database with SQLCipher 4.7.0 or later."
                        : "The key is x' and 160 hex digits, which \(linked) reads as a passphrase (as every SQLCipher before 4.7.0 did), and as one it does not open this database; if it is a raw key with its HMAC key and salt, open the database with SQLCipher 4.7.0 or later."
                    #expect(errors.count == 1 && errors.first?.hasSuffix(sentence) == true, "\(context): \(result.stderr)")
                    #expect(!result.output.contains(hmacKey.text.dropFirst(2).prefix(40)), "\(context): the key was printed")
                    #expect(!result.stdout.contains("Upgraded") && !result.stdout.contains("Applied"), "\(context): \(result.stdout)")
                }
                let json = try Tool.run(["status", "--json", "--db-path", workspace.database, "--migrations", workspace.migrations] + key,
                                        environment: Tool.environment(variables), directory: workspace.root)
                let error = try #require(try decodeJSON(json.stdout)["error"] as? [String: Any], "\(json.stdout)")
                #expect(error["kind"] as? String == "wrongKey" && error["exitCode"] as? Int == 4, "\(error)")
            }
            try expectUnchanged(before, "a key the linked SQLCipher would take for a passphrase")
            #expect(!FileManager.default.fileExists(atPath: other))
            return
        }
        let migrate = try Tool.run(["migrate", "--no-backup", "--db-path", other, "--migrations", workspace.migrations] + fromFile, directory: workspace.root)
        try #require(migrate.status == 0, "\(migrate.output)")
        let status = try Tool.run(["status", "--db-path", other, "--migrations", workspace.migrations] + fromFile, directory: workspace.root)
        #expect(status.status == 0 && status.stdout.contains(", raw key, HMAC key and salt (no key derivation),"), "\(status.output)")
        let header = try #require(workspace.bytes(other)).prefix(16).map { String(format: "%02x", $0) }.joined()
        #expect(header == String(hmacKey.text.dropFirst(2 + 128).prefix(32)), "the file's salt is not the key's")
        let before = try TreeSnapshot(workspace.root)
        let upgrade = try Tool.run(["cipher-upgrade", "--to-kdf-iter", "100000", "--no-backup", "--db-path", other] + fromFile, directory: workspace.root)
        #expect(upgrade.exitCode == .usage && upgrade.stderr.contains("KDF iterations do not apply") && !upgrade.stdout.contains("Upgraded"),
                "x'<160 hex>': \(upgrade.output)")
        try expectUnchanged(before, "cipher-upgrade --to-kdf-iter with x'<160 hex>'")
    }

    /// A file keyed before SQLCipher 4.7 with a passphrase that is itself `x'` and 160 hex
    /// digits (what 4.7 reads as a raw key): given in any form — a key file, or the hex of
    /// its text — it opens the database on every SQLCipher: the linked one reads it as the
    /// passphrase it is, or, from 4.7 on, MigrationKit tries it as that passphrase once
    /// the raw key opened nothing, deriving the key as SQLCipher derives a passphrase's.
    @Test(.tags(.passphrase)) func aPassphraseThatLooksLikeARawKeyOpensItsDatabase() throws {
        let passphrase = Self.rawKey(bytes: 80, seed: 5).text
        let workspace = try Workspace()
        try workspace.write("passphrase.key", passphrase + "\n", mode: 0o600)
        try workspace.write("passphrase.hex", Data(passphrase.utf8).map { String(format: "%02x", $0) }.joined() + "\n", mode: 0o600)
        // Made by a SQLCipher that reads the text as a passphrase: the configuration's
        // shell before 4.7; on a newer one, the system's (Debian's 4.6.1) beside it.
        let shell = try takesHMACKeyForm ? Self.shellBefore47() : SQLCipherShell.path
        let made = try ChildProcess.run([shell, "-batch", "-bail", workspace.database],
                                        stdin: Data(".output /dev/null\nPRAGMA key = \"\(passphrase)\";\n.output\nCREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept'); SELECT count(*) FROM notes;\n".utf8))
        try #require(made.status == 0 && made.stdout == "1\n", "\(made.output)")
        let before = try TreeSnapshot(workspace.root)
        for source in [["--password-file", workspace.path("passphrase.key")], ["--password-hex-file", workspace.path("passphrase.hex")]] {
            for command in ["status", "verify"] {
                let result = try Tool.run([command, "--db-path", workspace.database, "--migrations", workspace.migrations] + source, directory: workspace.root)
                #expect(result.status == 0, "\(command) \(source[0]): \(result.output)")
                #expect(!result.output.contains(passphrase.dropFirst(2).prefix(40)), "\(command): the key was printed")
            }
            let exported = workspace.path("export.db")
            let decrypted = try Tool.run(["decrypt", "--db-path", workspace.database, "--output", exported] + source, directory: workspace.root)
            #expect(decrypted.status == 0, "\(source[0]): \(decrypted.output)")
            let read = try SQLCipherShell.run(exported, keyPragma: nil, "SELECT body FROM notes;")
            #expect(read.stdout == "kept\n", "\(read.output)")
            try FileManager.default.removeItem(atPath: exported)
        }
        try expectUnchanged(before, "opening with the passphrase")
    }

    /// The system's `sqlcipher` shell, which must be a SQLCipher before 4.7 (Debian's 4.6.1):
    /// on a newer configuration, the one client here that writes a file keyed with a
    /// passphrase of `x'` and 160 hex digits.
    private static func shellBefore47() throws -> String {
        let shell = "/usr/bin/sqlcipher"
        let version = try ChildProcess.run([shell, ":memory:", "PRAGMA cipher_version;"]).stdout
        let parsed = SQLCipherVersion(parsing: version.trimmingCharacters(in: .whitespacesAndNewlines))
        try #require(parsed.map { !SQLCipherFeature.rawKeyWithHMACKey.isAvailable(in: $0) } == true,
                     "a file keyed with such a passphrase needs a SQLCipher before 4.7 to write it; \(shell) is \(version)")
        return shell
    }
}

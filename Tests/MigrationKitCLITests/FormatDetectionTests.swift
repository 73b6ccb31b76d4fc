import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// docs/encryption-recipes.md, "Format detection": with a key and no cipher option, each format the linked
/// library reads is tried, and a file opens in its own format and stays in it. The files
/// are written by the `sqlcipher` shell of the configuration under test.
@Suite struct FormatDetectionTests {
    /// The settings of SQLCipher 1, 2 and 3 files, as the shell of either version takes
    /// them: SQLCipher 4 names the format, SQLCipher 3.4.1 has no such pragma.
    private static func formatPragmas(_ version: Int, shellIsFour: Bool) -> String {
        if shellIsFour { return "PRAGMA cipher_compatibility = \(version);\n" }
        switch version {
        case 1: return "PRAGMA kdf_iter = 4000;\nPRAGMA cipher_use_hmac = OFF;\n"
        case 2: return "PRAGMA kdf_iter = 4000;\n"
        default: return ""
        }
    }

    private static var shellIsFour: Bool {
        get throws {
            let version = try SQLCipherShell.run(":memory:", keyPragma: "'probe'", "PRAGMA cipher_version;")
            return version.stdout.hasPrefix("4.")
        }
    }

    @Test(arguments: [1, 2, 3])
    func anOlderFormatOpensWithoutSettingsAndKeepsItsFormat(_ version: Int) throws {
        let workspace = try Workspace()
        let four = try Self.shellIsFour
        let pragmas = Self.formatPragmas(version, shellIsFour: four)
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          pragmas + "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'kept');")
        #expect(made.status == 0, "\(made.output)")
        let before = try #require(workspace.bytes(workspace.database))

        let status = try workspace.run("status")
        #expect(status.status == 0, "SQLCipher \(version) file: \(status.output)")
        #expect(workspace.bytes(workspace.database) == before, "status changed the file")

        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "SQLCipher \(version) file: \(migrated.output)")
        // Still in its format: the shell reads it with that format's settings.
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          pragmas + "SELECT body FROM notes; SELECT count(*) FROM grdb_migrations;")
        #expect(read.status == 0 && read.stdout == "kept\n1\n", "SQLCipher \(version) file after migrate: \(read.output)")
        if four {
            let asFour = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM notes;")
            #expect(asFour.status != 0, "the SQLCipher \(version) file was rewritten in the 4 format")
        }
    }
    /// A file without page HMACs (SQLCipher 1's format) has nothing for
    /// `cipher_integrity_check` to check: every command that verifies the whole file
    /// says so and passes, and none tells the user to restore a backup.
    @Test func aFileWithoutPageHMACsIsNotReportedDamaged() throws {
        let workspace = try Workspace()
        let pragmas = Self.formatPragmas(1, shellIsFour: try Self.shellIsFour)
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          pragmas + "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'kept');")
        #expect(made.status == 0, "\(made.output)")
        // cipher_integrity_check exists from SQLCipher 4.2; before, no command runs it.
        let checksPages = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4

        let verify = try workspace.run("verify")
        #expect(verify.status == 0 && verify.stdout.contains("Verification passed."), "\(verify.output)")
        #expect(verify.stdout.contains("n/a    cipher_integrity_check: not applicable: the database has no per-page HMAC") == checksPages, "\(verify.output)")
        let json = try workspace.run("verify", ["--json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let checks = document?["checks"] as? [[String: Any]] ?? []
        #expect(checks.contains { $0["name"] as? String == "cipher_integrity_check" && $0["applies"] as? Bool == false } == checksPages, "\(json.output)")
        #expect(checks.filter { $0["name"] as? String == "quick_check" }.allSatisfy { $0["applies"] as? Bool == true && $0["passed"] as? Bool == true }, "\(json.output)")

        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE tags;\n")
        for (command, arguments) in [("migrate", ["--accept-existing-tables", "--verify", "full", "--no-backup"] + workspace.options()), ("rollback", ["--no-backup"] + workspace.options()),
                                     ("check", ["--migrations", workspace.migrations, "--from-database", workspace.database, "--password-file", workspace.keyFile])] {
            let result = try Tool.run([command] + arguments, directory: workspace.root)
            #expect(result.status == 0, "\(command): \(result.output)")
            #expect(!result.output.contains("restore") && !result.output.contains("HMAC is not enabled"), "\(command): \(result.output)")
        }
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key, pragmas + "SELECT body FROM notes;")
        #expect(read.status == 0 && read.stdout == "kept\n", "the SQLCipher 1 file after the commands: \(read.output)")
    }

    /// A SQLCipher 4 file whose pages carry no HMAC (`PRAGMA cipher_use_hmac = OFF`, an
    /// app's choice for speed), made by the shell: it opens with its key alone, says so,
    /// stays so through `migrate` (the shell reads it with the app's PRAGMA, and not
    /// without), and `--cipher-use-hmac off` opens it without detection.
    @Test func aSQLCipher4FileWithoutPageHMACsOpensWithItsKeyAlone() throws {
        guard try Self.shellIsFour else { return } // SQLCipher 3.4.1 cannot write the 4 format.
        try expectOpensWithoutPageHMACs(Workspace(), formatPragmas: "", options: [])
    }

    /// The same for SQLCipher 3's format, found after every format with page HMACs and
    /// SQLCipher 4's without them (a passphrase: with a raw key, 3's and 1's formats
    /// without HMACs are the same bytes).
    @Test(.tags(.passphrase)) func aSQLCipher3FileWithoutPageHMACsOpensWithItsKeyAlone() throws {
        try expectOpensWithoutPageHMACs(Workspace(key: .randomPassphrase()), formatPragmas: Self.formatPragmas(3, shellIsFour: try Self.shellIsFour),
                                        options: ["--cipher-compatibility", "3"])
    }

    private func expectOpensWithoutPageHMACs(_ workspace: Workspace, formatPragmas: String, options: [String],
                                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pragmas = formatPragmas + "PRAGMA cipher_use_hmac = OFF;\n"
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, pragmas + "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');")
        #expect(made.status == 0, "\(made.output)", sourceLocation: sourceLocation)
        let before = try #require(workspace.bytes(workspace.database))

        let status = try workspace.run("status", ["--json"])
        #expect(status.status == 0, "\(status.output)", sourceLocation: sourceLocation)
        let document = try decodeJSON(status.stdout)
        let cipher = document["cipher"] as? [String: Any]
        #expect(cipher?["usesHMAC"] as? Bool == false && document["format"] as? String == "custom", "\(status.stdout)", sourceLocation: sourceLocation)
        let said = try workspace.run("status")
        #expect(said.stdout.contains("no HMAC"), "\(said.output)", sourceLocation: sourceLocation)
        #expect(workspace.bytes(workspace.database) == before, "status changed the file", sourceLocation: sourceLocation)

        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "\(migrated.output)", sourceLocation: sourceLocation)
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key, pragmas + "SELECT body FROM notes; SELECT count(*) FROM grdb_migrations;")
        #expect(read.status == 0 && read.stdout == "kept\n1\n", "\(read.output)", sourceLocation: sourceLocation)
        let withHMACs = try SQLCipherShell.run(workspace.database, key: workspace.key, formatPragmas + "SELECT count(*) FROM notes;")
        #expect(withHMACs.status != 0, "migrate gave the file page HMACs", sourceLocation: sourceLocation)

        let told = try workspace.run("verify", options + ["--cipher-use-hmac", "off"])
        #expect(told.status == 0, "\(told.output)", sourceLocation: sourceLocation)
        let toldWrong = try workspace.run("status", options + ["--cipher-use-hmac", "on"])
        #expect(toldWrong.exitCode == .wrongKeyOrNotADatabase, "\(toldWrong.output)", sourceLocation: sourceLocation)
        // The setting as a deploy step gives it.
        let fromVariable = try workspace.run("status", options, environment: Tool.environment(["MIGRATIONKIT_CIPHER_USE_HMAC": "off"]))
        #expect(fromVariable.status == 0, "\(fromVariable.output)", sourceLocation: sourceLocation)
        let misspelt = try workspace.run("status", options + ["--cipher-use-hmac", "none"])
        #expect(misspelt.exitCode == .usage && misspelt.stderr.contains("--cipher-use-hmac must be on or off"), "\(misspelt.output)", sourceLocation: sourceLocation)
    }

    /// A wrong key names the formats tried, and asks only for settings that could still
    /// explain it: no plaintext header (such a file shows SQLite's header), no KDF
    /// setting for a raw key, no algorithm SQLCipher 3 cannot set.
    @Test func aWrongKeyAsksOnlyForSettingsThatCouldExplainIt() throws {
        let workspace = try Workspace()
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key, "CREATE TABLE notes (body TEXT);").status == 0)
        try workspace.write("other.key", TestKey.raw().text + "\n", mode: 0o600)
        let wrong = try workspace.run("status", ["--password-file", workspace.path("other.key")])
        #expect(wrong.exitCode == .wrongKeyOrNotADatabase, "\(wrong.output)")
        let four = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4
        let tried = four ? "(the defaults of SQLCipher 4, 3, 2 and 1, and of 4 and 3 without page HMACs)" : "(the defaults of SQLCipher 3, 2 and 1, and of 3 without page HMACs)"
        let options = four ? "give them: --cipher-page-size, --cipher-hmac-algorithm or --cipher-use-hmac off." : "give them: --cipher-page-size or --cipher-use-hmac off."
        #expect(wrong.stderr.contains(tried) && wrong.stderr.contains(options), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("--kdf-iter") && !wrong.stderr.contains("plaintext-header"), "\(wrong.stderr)")
    }

    /// With a passphrase, the KDF's settings could explain it too.
    @Test(.tags(.passphrase)) func aWrongPassphraseAsksForTheKDFSettingsToo() throws {
        let workspace = try Workspace(key: .randomPassphrase())
        #expect(try SQLCipherShell.run(workspace.database, key: .raw(), "CREATE TABLE notes (body TEXT);").status == 0)
        let wrong = try workspace.run("status")
        #expect(wrong.exitCode == .wrongKeyOrNotADatabase, "\(wrong.output)")
        let options = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4
            ? "give them: --cipher-page-size, --kdf-iter, --cipher-kdf-algorithm, --cipher-hmac-algorithm or --cipher-use-hmac off."
            : "give them: --cipher-page-size, --kdf-iter or --cipher-use-hmac off."
        #expect(wrong.stderr.contains(options), "\(wrong.stderr)")
    }
    /// Early SQLCipher 2.0 files, made by the shell with the PRAGMAs that read them
    /// (`cipher_hmac_pgno = be`; the beta's `cipher_hmac_salt_mask = "x'00'"` and
    /// `fast_kdf_iter = 4000`, as SQLCipher's own test file needs them), open with
    /// their key and no option, say what they are, migrate in place, and stay readable
    /// by the shell with those PRAGMAs. The salt mask is SQLCipher's for the whole
    /// process: after such a file, this process still opens an ordinary one.
    @Test(arguments: [("PRAGMA cipher_hmac_pgno = be;", "big-endian HMAC page numbers"),
                      ("PRAGMA cipher_hmac_salt_mask = \"x'00'\"; PRAGMA fast_kdf_iter = 4000;", "SQLCipher 2.0 beta's page HMAC")])
    func anEarlySQLCipher2FileOpensWithItsKeyAndSaysWhatItIs(pragma: String, described: String) throws {
        let workspace = try Workspace()
        let pragmas = Self.formatPragmas(2, shellIsFour: try Self.shellIsFour) + pragma + "\n"
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          pragmas + "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');")
        #expect(made.status == 0, "\(made.output)")
        let asPlainTwo = try SQLCipherShell.run(workspace.database, key: workspace.key, Self.formatPragmas(2, shellIsFour: try Self.shellIsFour) + "SELECT body FROM notes;")
        #expect(asPlainTwo.status != 0, "the file is not SQLCipher 2's plain format: \(asPlainTwo.output)")

        let status = try workspace.run("status")
        #expect(status.status == 0 && status.stdout.contains("custom settings") && status.stdout.contains(described), "\(status.output)")
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "\(migrated.output)")
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key, pragmas + "SELECT body FROM notes; SELECT count(*) FROM grdb_migrations;")
        #expect(read.status == 0 && read.stdout.hasSuffix("kept\n1\n"), "\(read.output)")

        // Made by another process, with SQLCipher's default salt mask.
        let ordinary = try Workspace()
        #expect(try SQLCipherShell.run(ordinary.database, key: ordinary.key, "CREATE TABLE notes (body TEXT);").status == 0)
        let opened = try ordinary.run("status")
        #expect(opened.status == 0, "\(opened.output)")
    }
    /// A database keyed the way some apps key theirs, with SQLCipher's raw key and salt
    /// form `x'<96 hex digits>'`, made by the shell: the tool opens it, reports the key as
    /// raw (no key derivation), and refuses KDF settings with it as with any raw key.
    @Test func aRawKeyWithItsSaltIsARawKey() throws {
        let workspace = try Workspace()
        let text = "x'" + String(repeating: "5a", count: 32) + "000102030405060708090a0b0c0d0e0f'"
        try workspace.write("key", text + "\n", mode: 0o600)
        #expect(try SQLCipherShell.run(workspace.database, keyPragma: "\"\(text)\"", "CREATE TABLE notes (body TEXT);").status == 0)
        #expect(workspace.bytes(workspace.database)?.prefix(16) == Data((0..<16).map { UInt8($0) }), "the shell did not take the salt")
        let status = try workspace.run("status", ["--json"])
        #expect(status.status == 0, "\(status.output)")
        let cipher = try decodeJSON(status.stdout)["cipher"] as? [String: Any]
        #expect(cipher?["rawKey"] as? Bool == true, "\(status.stdout)")
        #expect(!status.output.contains("5a5a5a"))
        if (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 {
            let refused = try workspace.run("cipher-upgrade", ["--to-kdf-iter", "1000", "--dry-run"])
            #expect(refused.exitCode == .usage && refused.stderr.contains("raw key"), "\(refused.output)")
        }
    }
}

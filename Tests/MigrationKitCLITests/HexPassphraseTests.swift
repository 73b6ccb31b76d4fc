import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A passphrase given as hex (`--password-hex`, `--password-hex-file`, its setting): the
/// form of SQLCipher's `PRAGMA hexkey`, for passphrases that are bytes rather than text,
/// as SQLCipher for Android's `byte[]` keys are. About 1 random key in 128 ends in a
/// line break, which every text source drops; these keys are made to end in one. The
/// `sqlcipher` shell with `PRAGMA hexkey` is the second client. Key derivation is the
/// subject (a hex key is a passphrase), hence passphrases.
@Suite(.tags(.passphrase)) struct HexPassphraseTests {
    /// Random bytes ending in `ending`, as hex digits (the first byte fixed, so that no
    /// run starts with a byte-order mark, which the text form refuses on its own).
    private func binaryPassphrase(ending: [UInt8]) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = [0x9C] + (0..<23).map { _ in UInt8.random(in: 0...255, using: &generator) } + ending
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A database the `sqlcipher` shell made with `PRAGMA hexkey` at the workspace's
    /// database path, holding one row.
    private func shellDatabase(_ workspace: Workspace, hex: String) throws {
        let made = try SQLCipherShell.run(workspace.database, keyPragma: nil, """
            PRAGMA hexkey = '\(hex)';
            CREATE TABLE notes (body TEXT);
            INSERT INTO notes VALUES ('written by the shell');
            """)
        #expect(made.status == 0, "\(made.output)")
    }

    private func schemaDump(_ workspace: Workspace, _ keyArguments: [String], stdin: String? = nil,
                            environment: [String: String] = Tool.environment()) throws -> CommandResult {
        try Tool.run(["schema-dump", "--db-path", workspace.database] + keyArguments, stdin: stdin, environment: environment)
    }

    @Test func aBinaryPassphraseEndingInALineBreakOpensThroughEveryHexForm() throws {
        let workspace = try Workspace()
        let hex = binaryPassphrase(ending: [0x0D, 0x0A])
        try shellDatabase(workspace, hex: hex)
        // As `od -An -v -tx1` writes it: spaced pairs, a line break every 16 bytes.
        let pairs = stride(from: 0, to: hex.count, by: 2).map { " " + hex.dropFirst($0).prefix(2) }
        let odText = stride(from: 0, to: pairs.count, by: 16).map { pairs[$0..<min($0 + 16, pairs.count)].joined() + "\n" }.joined()
        try workspace.write("db.hexkey", odText, mode: 0o600)

        for (name, arguments, stdin, environment) in [
            ("--password-hex-file", ["--password-hex-file", workspace.path("db.hexkey")], nil, Tool.environment()),
            ("--password-hex-file -", ["--password-hex-file", "-"], hex.uppercased() + "\n", Tool.environment()),
            ("MIGRATIONKIT_PASSWORD_HEX_FILE", [], nil, Tool.environment(["MIGRATIONKIT_PASSWORD_HEX_FILE": workspace.path("db.hexkey")])),
            ("--password-hex", ["--password-hex", hex], nil, Tool.environment()),
        ] as [(String, [String], String?, [String: String])] {
            let opened = try schemaDump(workspace, arguments, stdin: stdin, environment: environment)
            #expect(opened.status == 0, "\(name): \(opened.output)")
            #expect(opened.stdout.contains("CREATE TABLE notes"), "\(name): \(opened.output)")
            #expect(!opened.output.contains(hex) && !opened.output.lowercased().contains(hex.suffix(16)), "\(name) printed the key")
            // Only the flag on the command line is visible in the process list, and says so.
            #expect(opened.stderr.contains("--password-hex is visible to other users in the process list") == (name == "--password-hex"), "\(name): \(opened.stderr)")
        }

        // No text form carries it: the line break at the end is dropped when text is read.
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
        try workspace.write("text.key", "", mode: 0o600)
        try Data(bytes).write(to: URL(fileURLWithPath: workspace.path("text.key")))
        #expect(try schemaDump(workspace, ["--password-file", workspace.path("text.key")]).exitCode == .wrongKeyOrNotADatabase)
    }

    /// What the tool writes with a hex passphrase, the shell opens with `PRAGMA hexkey`:
    /// a new database, and a rekey onto a hex key.
    @Test func theShellOpensWithHexkeyWhatTheToolWroteWithIt() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let first = binaryPassphrase(ending: [0x0A])
        try workspace.write("first.hexkey", first + "\n", mode: 0o600)
        let created = try Tool.run(["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                    "--password-hex-file", workspace.path("first.hexkey")])
        #expect(created.status == 0, "\(created.output)")
        let read = try SQLCipherShell.run(workspace.database, keyPragma: nil, "PRAGMA hexkey = '\(first)';\nSELECT count(*) FROM books;")
        #expect(read.status == 0 && read.stdout.hasSuffix("0\n"), "\(read.output)")

        let second = binaryPassphrase(ending: [0x0D])
        try workspace.write("second.hexkey", second, mode: 0o600)
        let rekeyed = try Tool.run(["rekey", "--db-path", workspace.database, "--no-backup",
                                    "--password-hex-file", workspace.path("first.hexkey"),
                                    "--new-password-hex-file", workspace.path("second.hexkey")])
        #expect(rekeyed.status == 0, "\(rekeyed.output)")
        let after = try SQLCipherShell.run(workspace.database, keyPragma: nil, "PRAGMA hexkey = '\(second)';\nSELECT count(*) FROM authors;")
        #expect(after.status == 0 && after.stdout.hasSuffix("0\n"), "\(after.output)")
        let old = try SQLCipherShell.run(workspace.database, keyPragma: nil, "PRAGMA hexkey = '\(first)';\nSELECT count(*) FROM authors;")
        #expect(old.status != 0, "the old hex key still opens the database")
    }

    /// Hex that is not hex stops with exit 5 and one sentence naming where it came from,
    /// never the text; a hex key file obeys the key-file rules; and a key file's text is
    /// never read as hex because of what it looks like.
    @Test func badHexIsRefusedByNameAndKeyFilesAreNeverReadAsHex() throws {
        let workspace = try Workspace()
        let hex = binaryPassphrase(ending: [0x0A])
        try shellDatabase(workspace, hex: hex)
        for (name, text, words) in [("letters.hexkey", "zz" + hex, "is not hex digits"), ("odd.hexkey", String(hex.dropLast()), "odd number of hex digits"),
                                    ("empty.hexkey", "\n", "is empty")] {
            try workspace.write(name, text, mode: 0o600)
            let refused = try schemaDump(workspace, ["--password-hex-file", workspace.path(name)])
            #expect(refused.exitCode == .keyUnavailable, "\(name): \(refused.output)")
            #expect(refused.stderr.contains(workspace.path(name)) && refused.stderr.contains(words), "\(name): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(!refused.output.contains(hex.prefix(20)), "\(name) printed the key")
        }
        try workspace.write("open.hexkey", hex, mode: 0o666)
        let open = try schemaDump(workspace, ["--password-hex-file", workspace.path("open.hexkey")])
        #expect(open.exitCode == .keyUnavailable && open.stderr.contains("chmod 600"), "\(open.output)")
        let notHex = try schemaDump(workspace, ["--password-hex", "x'\(hex)'"])
        #expect(notHex.exitCode == .keyUnavailable && notHex.stderr.contains("is not hex digits"), "\(notHex.output)")

        // The hex digits in a plain key file are a passphrase of those characters, as always.
        try workspace.write("digits.key", hex + "\n", mode: 0o600)
        #expect(try schemaDump(workspace, ["--password-file", workspace.path("digits.key")]).exitCode == .wrongKeyOrNotADatabase)
        #expect(try schemaDump(workspace, ["--password-hex-file", workspace.path("digits.key")]).status == 0)
    }
}

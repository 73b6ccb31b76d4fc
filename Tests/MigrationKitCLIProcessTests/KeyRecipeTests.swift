import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Every key recipe in Keys/README.md, run exactly as written: a key file made by one
/// recipe, loaded into the keyring or the environment by another, is one key that opens
/// one database (the rule that turns text into a key is the same for every source).
@Suite(.tags(.passphrase)) struct KeyRecipeTests {
    struct Recipe: CustomStringConvertible {
        let kind: String
        /// The word after the kind, when there is one (`<!-- recipe: command pass -->`).
        var name: String? = nil
        let script: String
        var description: String { "\(kind)\(name.map { " \($0)" } ?? ""): \(script)" }
    }

    /// The `sh` blocks that follow a `<!-- recipe: KIND -->` line in `document` (a path
    /// from the repository's root).
    static func recipes(in document: String = "Keys/README.md") throws -> [Recipe] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(document)
        let lines = try String(contentsOf: readme, encoding: .utf8).components(separatedBy: "\n")
        var recipes: [Recipe] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            let words = line.dropFirst(13).split(separator: " ")
            guard line.hasPrefix("<!-- recipe: "), let kind = words.first else { continue }
            let name = words.count > 2 ? String(words[1]) : nil
            guard index < lines.count, lines[index] == "```sh" else { continue }
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index] != "```" {
                body.append(lines[index])
                index += 1
            }
            recipes.append(Recipe(kind: String(kind), name: name, script: body.joined(separator: "\n")))
        }
        return recipes
    }

    /// Runs a recipe in `directory` with the built `migrationkit` first on PATH and the
    /// example keyring service (`example`) replaced by this test's own.
    /// - Parameters:
    ///   - path: folders searched before the built `migrationkit`'s (stand-ins for clients).
    ///   - extra: variables the recipe's store needs (`GNUPGHOME`, …).
    static func run(_ recipe: Recipe, in directory: String, service: String, replacing example: String = "com.example.notes",
                    path: [String] = [], environment extra: [String: String] = [:]) throws -> CommandResult {
        var environment = Binary.environment(extra)
        environment["PATH"] = (path + [Binary.productsDirectory.path]).joined(separator: ":") + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let script = recipe.script.replacingOccurrences(of: example, with: service)
        return try ChildProcess.run(["/bin/sh", "-ec", script], environment: environment, directory: directory, timeout: 60)
    }

    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func everyDocumentedRecipeMakesTheSameKey() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let recipes = try Self.recipes()
        let keyFiles = recipes.filter { $0.kind == "key-file" }
        let keyrings = recipes.filter { $0.kind == "keyring" }
        let environments = recipes.filter { $0.kind == "environment" }
        #expect(keyFiles.count == 2 && keyrings.count == 2 && environments.count == 2, "\(recipes)")
        for keyFile in keyFiles {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            let service = "org.migrationkit.tests.recipes.\(UUID().uuidString)"
            defer { _ = try? Tool.run(["key", "delete", "--keychain-service", service, "--keychain-account", "notes.db"]) }
            let made = try Self.run(keyFile, in: workspace.root, service: service)
            #expect(made.status == 0, "\(keyFile): \(made.output)")
            let created = try Tool.run(["migrate", "--db-path", "app.db", "--password-file", "db.key", "--migrations", "Migrations"],
                                         directory: workspace.root)
            #expect(created.status == 0, "\(keyFile): \(created.output)")
            for keyring in keyrings {
                let stored = try Self.run(keyring, in: workspace.root, service: service)
                #expect(stored.status == 0, "\(keyring): \(stored.output)")
                let opened = try Tool.run(["status", "--db-path", "app.db", "--migrations", "Migrations",
                                             "--keychain-service", service, "--keychain-account", "notes.db"], directory: workspace.root)
                #expect(opened.status == 0, "a database keyed by `\(keyFile.script)` did not open with the key stored by `\(keyring.script)`: \(opened.output)")
            }
            for environment in environments {
                let opened = try Self.run(environment, in: workspace.root, service: service)
                #expect(opened.status == 0, "`\(environment.script)` after `\(keyFile.script)`: \(opened.output)")
                #expect(opened.stdout.contains("applied  0002_books"), "\(opened.output)")
            }
        }
    }

    /// The hex recipes: a binary passphrase that ends in a line break (which no text form
    /// carries), made into a hex key file by the recipe as written, opens the database the
    /// tool created with `--password-hex`, and the `sqlcipher` shell opens it with
    /// `PRAGMA hexkey`: three readers, one key.
    @Test func theHexRecipesOpenADatabaseKeyedWithABinaryPassphrase() throws {
        let recipes = try Self.recipes()
        let hexFiles = recipes.filter { $0.kind == "hex-key-file" }
        let hexUses = recipes.filter { $0.kind == "hex-key" }
        #expect(hexFiles.count == 1 && hexUses.count == 1, "\(recipes)")
        var generator = SystemRandomNumberGenerator()
        let bytes: [UInt8] = [0x9C] + (0..<30).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0x0A]
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        for hexFile in hexFiles {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            try Data(bytes).write(to: URL(fileURLWithPath: workspace.path("key.bin")))
            let created = try Tool.run(["migrate", "--db-path", "app.db", "--password-hex", hex, "--migrations", "Migrations"],
                                       directory: workspace.root)
            #expect(created.status == 0, "\(created.output)")
            let made = try Self.run(hexFile, in: workspace.root, service: "unused")
            #expect(made.status == 0, "\(hexFile): \(made.output)")
            for use in hexUses {
                let opened = try Self.run(use, in: workspace.root, service: "unused")
                #expect(opened.status == 0, "`\(use.script)` after `\(hexFile.script)`: \(opened.output)")
                #expect(opened.stdout.contains("applied  0002_books"), "\(opened.output)")
            }
            let shell = try SQLCipherShell.run(workspace.database, keyPragma: nil, "PRAGMA hexkey = '\(hex)';\nSELECT count(*) FROM books;")
            #expect(shell.status == 0 && shell.stdout.hasSuffix("0\n"), "\(shell.output)")
        }
    }
}

/// A key that is about to encrypt a file for the first time is asked twice at a prompt,
/// and two different entries change nothing: a typo would otherwise lock the data under a
/// key nobody knows.
@Suite(.tags(.passphrase)) struct NewKeyPromptTests {
    private func onTerminal(_ arguments: [String], in workspace: Workspace, _ steps: [PseudoTerminal.Step]) throws -> PseudoTerminal.Result {
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        return try PseudoTerminal.run([Binary.migrationkit] + arguments, environment: environment, steps: steps, timeout: 60)
    }

    @Test func migrateCreatingADatabaseAsksTwiceAndRefusesAMismatch() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let arguments = ["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations]
        let mismatch = try onTerminal(arguments, in: workspace, [
            .init(expect: "New key for", send: "typed once\n"),
            .init(expect: "again", send: "typed twice\n"),
        ])
        #expect(mismatch.exitCode == .keyUnavailable, "\(mismatch.transcript)")
        #expect(mismatch.transcript.contains("did not match"))
        #expect(!FileManager.default.fileExists(atPath: workspace.database))

        let match = try onTerminal(arguments, in: workspace, [
            .init(expect: "New key for", send: "the new key\n"),
            .init(expect: "again", send: "the new key\n"),
        ])
        #expect(match.status == 0, "\(match.transcript)")
        try workspace.write("typed.key", "the new key\n", mode: 0o600)
        #expect(try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.path("typed.key"),
                                "--migrations", workspace.migrations]).status == 0)

        // An existing database: its key is asked once.
        let existing = try onTerminal(["status", "--db-path", workspace.database, "--migrations", workspace.migrations], in: workspace, [
            .init(expect: "Key for", send: "the new key\n"),
        ])
        #expect(existing.status == 0 && !existing.transcript.contains("again"), "\(existing.transcript)")

        // An empty file is no new database: its key is asked once, and the file refused.
        let empty = workspace.path("empty.db")
        try workspace.write("empty.db", "", mode: 0o600)
        let refused = try onTerminal(["migrate", "--db-path", empty, "--migrations", workspace.migrations], in: workspace, [
            .init(expect: "Key for", send: "the new key\n"),
        ])
        #expect(refused.exitCode == .wrongKeyOrNotADatabase && refused.transcript.contains("The file is empty (0 bytes)"), "\(refused.transcript)")
        #expect(!refused.transcript.contains("again") && workspace.bytes(empty) == Data())
    }

    /// `rekey` with no new-key option on a terminal: the new key is asked twice, and once
    /// the database is on it, the key typed (which has no place to be read back from)
    /// proves it and the run succeeds; the typed key opens the database, the old one no
    /// longer does.
    @Test func rekeyWithTheNewKeyTypedAtThePromptSucceeds() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        let typed = try onTerminal(["rekey", "--no-backup"] + workspace.options(), in: workspace, [
            .init(expect: "New key", send: "the typed key\n"),
            .init(expect: "again", send: "the typed key\n"),
        ])
        #expect(typed.status == 0 && typed.transcript.contains("Rekeyed"), "\(typed.transcript)")
        #expect(try SQLCipherShell.run(workspace.database, passphrase: "the typed key", "SELECT count(*) FROM authors;").stdout == "0\n")
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM authors;").status != 0)
    }

    /// README (exit codes): Ctrl-C at the key prompt ends the process by SIGINT, every
    /// time, so a shell loop over databases stops instead of asking the next one's key.
    @Test func ctrlCAtThePromptEndsTheProcessBySIGINT() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        for attempt in 1...TestDepth.count(quick: 2, full: 5) {
            let result = try onTerminal(["status", "--db-path", workspace.database, "--migrations", workspace.migrations], in: workspace, [
                .init(expect: "Key for", send: "half\u{03}"),
            ])
            #expect(result.signal == SIGINT, "attempt \(attempt): \(result.transcript)")
            #expect(!result.transcript.contains("half"))
        }
    }

    @Test func encryptAsksTwiceAndAMismatchLeavesThePlaintextAlone() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try Tool.run(["migrate", "--plaintext", "--db-path", workspace.database, "--migrations", workspace.migrations]).status == 0)
        let before = workspace.bytes(workspace.database)
        let arguments = ["encrypt", "--in-place", "--no-backup", "--db-path", workspace.database, "--migrations", workspace.migrations]
        let mismatch = try onTerminal(arguments, in: workspace, [
            .init(expect: "New key for", send: "one\n"),
            .init(expect: "again", send: "two\n"),
        ])
        #expect(mismatch.exitCode == .keyUnavailable, "\(mismatch.transcript)")
        #expect(workspace.bytes(workspace.database) == before)
        let match = try onTerminal(arguments, in: workspace, [
            .init(expect: "New key for", send: "same key\n"),
            .init(expect: "again", send: "same key\n"),
        ])
        #expect(match.status == 0, "\(match.transcript)")
        #expect(workspace.bytes(workspace.database)?.prefix(6) != Data("SQLite".utf8))
    }
}

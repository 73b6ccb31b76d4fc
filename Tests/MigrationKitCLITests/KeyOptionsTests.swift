import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

@Suite struct KeyOptionsTests {
    /// A migrated workspace database, and its bytes.
    private func migratedWorkspace() throws -> (Workspace, Data) {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let result = try workspace.run("migrate")
        #expect(result.status == 0, "\(result.output)")
        return (workspace, try #require(workspace.bytes(workspace.database)))
    }

    private func status(_ workspace: Workspace, _ keyArguments: [String], stdin: String? = nil, environment: [String: String] = Binary.environment()) throws -> CommandResult {
        try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + keyArguments,
                       stdin: stdin, environment: environment)
    }

    @Test func wrongKeyPlaintextAndGarbageAreRefusedWithTheFileUnchanged() throws {
        let (workspace, before) = try migratedWorkspace()
        try workspace.write("wrong", "wrong key\n", mode: 0o600)
        let wrong = try status(workspace, ["--password-file", workspace.path("wrong")])
        #expect(wrong.exitCode == .wrongKeyOrNotADatabase)
        #expect(wrong.stderr.contains("Wrong key"))
        #expect(wrong.stderr.split(separator: "\n").count == 1)
        #expect(workspace.bytes(workspace.database) == before)

        let noKey = try status(workspace, ["--plaintext"])
        #expect(noKey.exitCode == .wrongKeyOrNotADatabase)
        #expect(noKey.stderr.contains("encrypted"))
        #expect(workspace.bytes(workspace.database) == before)

        // A plaintext database opened with a key.
        let plain = try Workspace()
        try plain.writeSampleMigrations()
        #expect(try Tool.run(["migrate", "--plaintext", "--db-path", plain.database, "--migrations", plain.migrations]).status == 0)
        let plainBefore = plain.bytes(plain.database)
        let keyed = try status(plain, ["--password-file", plain.keyFile])
        #expect(keyed.exitCode == .wrongKeyOrNotADatabase)
        #expect(keyed.stderr.contains("not encrypted"))
        #expect(plain.bytes(plain.database) == plainBefore)

        // Not a database at all.
        try workspace.write("garbage.db", String(repeating: "garbage ", count: 100))
        let garbageBefore = workspace.bytes(workspace.path("garbage.db"))
        let garbage = try Tool.run(["migrate", "--db-path", workspace.path("garbage.db"), "--password-file", workspace.keyFile, "--migrations", workspace.migrations])
        #expect(garbage.exitCode == .wrongKeyOrNotADatabase)
        #expect(garbage.stderr.contains("not a database"))
        #expect(workspace.bytes(workspace.path("garbage.db")) == garbageBefore)
    }

    @Test func withoutAKeyANewDatabaseIsNotCreated() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let result = try Tool.run(["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations])
        #expect(result.exitCode == .keyUnavailable)
        #expect(result.stderr.contains("no key given") || result.stderr.contains("No key given"))
        #expect(result.stderr.contains("--plaintext"))
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }

    @Test func keyOptionsAreValidatedAsUsageErrors() throws {
        let workspace = try Workspace()
        let two = try status(workspace, ["--password-file", workspace.keyFile, "--password", "x"])
        #expect(two.exitCode == .usage)
        #expect(two.stderr.contains("exactly one key source"))
        let half = try status(workspace, ["--keychain-service", "app"])
        #expect(half.exitCode == .usage)
        #expect(half.stderr.contains("--keychain-account"))
        let plainAndKey = try status(workspace, ["--plaintext", "--password-file", workspace.keyFile])
        #expect(plainAndKey.exitCode == .usage)
    }

    @Test func everyNonInteractiveSourceOpensTheSameDatabase() throws {
        let (workspace, _) = try migratedWorkspace()
        let viaPassword = try status(workspace, ["--password", workspace.key.text])
        #expect(viaPassword.status == 0, "\(viaPassword.output)")
        #expect(viaPassword.stderr.contains("process list"))
        #expect(!viaPassword.output.contains(workspace.key.secret))

        let viaStdin = try status(workspace, ["--password-file", "-"], stdin: workspace.key.text + "\n")
        #expect(viaStdin.status == 0, "\(viaStdin.output)")

        let viaEnvironment = try status(workspace, [], environment: Binary.environment(["MIGRATIONKIT_PASSWORD": workspace.key.text]))
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.output)")
        #expect(!viaEnvironment.output.contains(workspace.key.secret))
    }

    /// Every key source the tool offers (its help's key options) has its row in the
    /// table of key sources in docs/security-model.md, where the others are documented.
    @Test func everyKeySourceHasItsRowInTheKeysArticle() throws {
        let help = try Tool.run(["status", "--help"]).stdout
        let section = help.components(separatedBy: "KEY OPTIONS:").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
        let flags = section.split(whereSeparator: \.isWhitespace).map(String.init)
            .filter { $0.hasPrefix("--") && $0.dropFirst(2).allSatisfy { $0.isLowercase || $0 == "-" } && $0 != "--plaintext" }
        #expect(Set(flags).isSuperset(of: ["--password", "--password-file", "--keychain-service", "--keychain-account"]), "\(help)")
        let article = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/security-model.md"), encoding: .utf8)
        let keys = try #require(article.components(separatedBy: "\n## Keys\n").dropFirst().first,
                                "docs/security-model.md has no \"## Keys\" section").components(separatedBy: "\n## ")[0]
        let rows = keys.split(separator: "\n").filter { $0.hasPrefix("|") }
        try #require(!rows.isEmpty, "the Keys section of docs/security-model.md has no table")
        for flag in Set(flags) {
            #expect(rows.contains { $0.contains("`\(flag) ") || $0.contains(" \(flag) ") }, "the Keys table in docs/security-model.md has no row for \(flag)")
        }
    }

    @Test func unsafeKeyFilesAreRefusedOrWarnedAbout() throws {
        let (workspace, _) = try migratedWorkspace()
        try workspace.write("shared-key", workspace.key.text + "\n", mode: 0o644)
        let readable = try status(workspace, ["--password-file", workspace.path("shared-key")])
        #expect(readable.status == 0)
        #expect(readable.stderr.contains("chmod 600"))

        try workspace.write("writable-key", workspace.key.text + "\n", mode: 0o666)
        let writable = try status(workspace, ["--password-file", workspace.path("writable-key")])
        #expect(writable.exitCode == .keyUnavailable)
        #expect(writable.stderr.contains(workspace.path("writable-key")))

        let missing = try status(workspace, ["--password-file", workspace.path("nope")])
        #expect(missing.exitCode == .keyUnavailable)
        for result in [readable, writable, missing] {
            #expect(!result.output.contains(workspace.key.secret))
        }
    }

    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func aKeyInTheSecretServiceOpensTheDatabase() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let (workspace, _) = try migratedWorkspace()
        let service = "migrationkit-cli-test-\(UUID().uuidString)"
        let store = try Binary.run(["store", "--label=MigrationKit CLI test", "service", service, "account", "db"], executable: "/usr/bin/secret-tool", stdin: workspace.key.text)
        #expect(store.status == 0, "\(store.output)")
        defer { _ = try? Binary.run(["clear", "service", service, "account", "db"], executable: "/usr/bin/secret-tool") }
        let result = try status(workspace, ["--keychain-service", service, "--keychain-account", "db"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("applied  0002_books"))

        let absent = try status(workspace, ["--keychain-service", service, "--keychain-account", "nobody"])
        #expect(absent.exitCode == .keyUnavailable)
        #expect(absent.stderr.contains(service))
        #expect(!absent.output.contains(workspace.key.secret))
    }
}

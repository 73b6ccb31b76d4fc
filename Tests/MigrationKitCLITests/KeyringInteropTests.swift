import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// The Secret Service as other programs use it: Python's `keyring` (which stores and
/// finds an item by `service` + `username`), `secret-tool` (`service` + `account`), and
/// KeePassXC as the provider, with its database locked. Against the private
/// gnome-keyring of scripts/with-test-keyring.sh, or a private bus of their own; never
/// the person's keyring.
@Suite struct KeyringInteropTests {
    /// Runs Python's `keyring` on its Secret Service backend, on the test keyring's bus:
    /// `get SERVICE USERNAME` prints the password (or `None`), `set SERVICE USERNAME`
    /// stores standard input.
    private func pythonKeyring(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        let script = """
            import sys, keyring
            from keyring.backends import SecretService
            keyring.set_keyring(SecretService.Keyring())
            command, service, username = sys.argv[1:4]
            if command == "get":
                print(keyring.get_password(service, username))
            else:
                keyring.set_password(service, username, sys.stdin.read())
            """
        return try PythonClients.run(script, arguments: arguments, stdin: stdin.map { Data($0.utf8) }, environment: Binary.environment())
    }

    /// Keys the tool stores, generates or rotates into the keyring are the ones Python's
    /// `keyring` reads; a key Python stored opens the database through the tool; and
    /// `key store --force` over a Python item replaces it for Python too.
    @Test(.enabled(if: (hasTestKeyring && PythonClients.python != nil) || isCI, "needs the private gnome-keyring and the tests' Python (scripts/test.sh makes both)"))
    func aKeyringRoundTripWithPythonsKeyring() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["-q"]).status == 0)
        let service = "org.migrationkit.tests.python.\(UUID().uuidString)"
        defer {
            for account in ["notes.db", "rotated.db"] {
                _ = try? Tool.run(["key", "delete", "--keychain-service", service, "--keychain-account", account])
            }
        }
        let item = ["--keychain-service", service, "--keychain-account", "notes.db"]

        // Python stores the key; the tool opens the database with it.
        #expect(try pythonKeyring(["set", service, "notes.db"], stdin: workspace.key.text).status == 0)
        let opened = try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + item)
        #expect(opened.status == 0, "\(opened.output)")

        // The tool sees Python's item as a key already stored; --force replaces it, for
        // Python too, and leaves one item that secret-tool finds by account as well.
        let other = TestKey.raw()
        let refused = try Tool.run(["key", "store"] + item, stdin: other.text)
        #expect(refused.exitCode == .refused, "\(refused.output)")
        #expect(try pythonKeyring(["get", service, "notes.db"]).stdout == workspace.key.text + "\n")
        let replaced = try Tool.run(["key", "store", "--force"] + item, stdin: other.text + "\n")
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(try pythonKeyring(["get", service, "notes.db"]).stdout == other.text + "\n")
        let secretTool = try ChildProcess.run(["/usr/bin/secret-tool", "lookup", "service", service, "account", "notes.db"], environment: Binary.environment())
        #expect(secretTool.stdout == other.text)
        let items = try ChildProcess.run(["/usr/bin/secret-tool", "search", "--all", "service", service], environment: Binary.environment())
        #expect(items.stdout.split(separator: "\n").filter { $0.hasPrefix("[") }.count == 1, "\(items.output)")

        // A Python app setting its key adds an item of its own beside the tool's (keyring
        // replaces only items with its `application`): two keys, which the tool does not
        // choose between; storing the right one again settles it for both.
        #expect(try pythonKeyring(["set", service, "notes.db"], stdin: workspace.key.text).status == 0)
        let ambiguous = try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + item)
        #expect(ambiguous.exitCode == .keyUnavailable, "\(ambiguous.output)")
        #expect(ambiguous.stderr.contains("2 items") && ambiguous.stderr.contains("hold different keys")
                && ambiguous.stderr.contains("`migrationkit key store --keychain-service \(service) --keychain-account notes.db --force`"), "\(ambiguous.stderr)")
        #expect(!ambiguous.output.contains(workspace.key.secret) && !ambiguous.output.contains(other.secret))
        #expect(try Tool.run(["key", "store", "--force"] + item, stdin: workspace.key.text).status == 0)
        #expect(try pythonKeyring(["get", service, "notes.db"]).stdout == workspace.key.text + "\n")
        #expect(try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + item).status == 0)

        // A key the tool generates while rotating is Python's to read, and opens the
        // database in the shell: the round trip.
        let rotated = ["--new-keychain-service", service, "--new-keychain-account", "rotated.db"]
        let rekey = try Tool.run(["rekey", "--db-path", workspace.database, "--password-file", workspace.keyFile, "--no-backup", "--new-key", "generate"] + rotated)
        #expect(rekey.status == 0, "\(rekey.output)")
        let fromPython = try pythonKeyring(["get", service, "rotated.db"]).stdout.trimmingCharacters(in: .newlines)
        #expect(TestKey(text: fromPython).isRaw, "Python's keyring does not see the generated key")
        let shell = try SQLCipherShell.run(workspace.database, key: TestKey(text: fromPython), "SELECT count(*) FROM books;")
        #expect(shell.status == 0 && shell.stdout == "0\n", "\(shell.output)")
    }
}

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

    /// KeePassXC with its database locked answers a search only once someone unlocks the
    /// database, or when D-Bus gives up 25 seconds later. The tool says the keyring is
    /// locked, at once, with what to do. KeePassXC runs for real, on a private bus with
    /// nothing else that could answer, drawn off screen (Qt's `offscreen` platform: the
    /// same code as on a desktop, no display needed).
    @Test(.enabled(if: (Self.keePassXC != nil && Self.keePassXCCLI != nil) || isCI, "KeePassXC is not installed (scripts/install-deps.sh installs it)"))
    func aLockedKeePassXCDatabaseIsSaidToBeLockedAtOnce() throws {
        let keepassxc = try #require(Self.keePassXC, "CI=true but keepassxc is missing: run scripts/install-deps.sh")
        let cli = try #require(Self.keePassXCCLI)
        let directory = try TemporaryDirectory()
        for folder in ["home", "config", "data", "cache", "runtime"] {
            try FileManager.default.createDirectory(atPath: directory.path(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path("runtime"))
        let database = directory.path("home/Passwords.kdbx")
        var environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": directory.path("home"),
                           "XDG_CONFIG_HOME": directory.path("config"), "XDG_DATA_HOME": directory.path("data"),
                           "XDG_CACHE_HOME": directory.path("cache"), "XDG_RUNTIME_DIR": directory.path("runtime")]
        // The smallest decryption time keepassxc-cli takes: the database is never opened.
        let created = try ChildProcess.run([cli, "db-create", "--set-password", "--decryption-time", "100", database],
                                           stdin: Data("kdbx-password-Rb8\nkdbx-password-Rb8\n".utf8), environment: environment)
        #expect(created.status == 0, "\(created.output)")
        try "a key that is never read\n".write(toFile: directory.path("new.key"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.path("new.key"))

        let bus = directory.path("bus.conf")
        // A bus that starts nothing on demand: KeePassXC is the only Secret Service that can
        // answer (the system's bus would start gnome-keyring for the name).
        try PrivateBus.configuration(listeningIn: directory.path("runtime")).write(toFile: bus, atomically: true, encoding: .utf8)
        environment["KEEPASSXC"] = keepassxc
        environment["MIGRATIONKIT"] = Binary.migrationkit
        // First with no database open (KeePassXC waits just the same, for one to be
        // opened), then with the locked one.
        let script = #"""
            set -u
            mkdir -p "$XDG_CONFIG_HOME/keepassxc"
            printf '[FdoSecrets]\nEnabled=true\n' > "$XDG_CONFIG_HOME/keepassxc/keepassxc.ini"
            item="--keychain-service org.example.notes --keychain-account notes.db"
            : > "$HOME/app.db"
            for database in "" "$1"; do
                state=${database:+locked}
                QT_QPA_PLATFORM=offscreen "$KEEPASSXC" $database >"$HOME/keepassxc.log" 2>&1 &
                keepassxc=$!
                # Until KeePassXC owns the Secret Service name (and shows the locked database).
                tries=0
                until gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                        --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Service Collections 2>/dev/null |
                        grep -q "${database:+collection/}"; do
                    tries=$((tries + 1)); [ $tries -gt 300 ] && { echo "keepassxc did not start"; cat "$HOME/keepassxc.log"; kill $keepassxc; exit 20; }
                    sleep 0.1
                done
                for command in "schema-dump --db-path $HOME/app.db $item" "key store $item --force" "key delete $item"; do
                    start=$(date +%s%N)
                    $MIGRATIONKIT $command < "$2" 2>"$HOME/stderr"
                    code=$?
                    echo "${state:-none}: $command: exit $code after $((($(date +%s%N) - start) / 1000000)) ms: $(cat "$HOME/stderr")"
                done
                kill $keepassxc; wait $keepassxc
            done
            exit 0
            """#
        let result = try ChildProcess.run(["/usr/bin/dbus-run-session", "--config-file=\(bus)", "--", "/bin/sh", "-c", script, "sh", database, directory.path("new.key")],
                                          environment: environment, timeout: 120)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(result.output)")
        for line in lines {
            #expect(line.contains(": exit 5 after "), "\(line)")
            let words = line.split(separator: " ")
            let milliseconds = words.firstIndex(of: "after").flatMap { Int(words[$0 + 1]) } ?? .max
            #expect(milliseconds < 5_000, "not at once: \(line)")
            #expect(line.contains(line.hasPrefix("locked:")
                ? "every keyring of the Secret Service is locked (“Passwords”)"
                : "the Secret Service has no keyring open (KeePassXC with no database open)"), "\(line)")
            #expect(line.contains("unlock it in KeePassXC"), "\(line)")
            #expect(!line.contains("responsive") && !line.contains("kdbx-password") && !line.contains("never read"), "\(line)")
        }
    }

    static let keePassXC = ["/usr/bin/keepassxc"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let keePassXCCLI = ["/usr/bin/keepassxc-cli"].first { FileManager.default.isExecutableFile(atPath: $0) }

}

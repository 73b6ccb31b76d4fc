import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// KeePassXC as the Secret Service, on a private bus the binary is given in its
/// environment. The other interop tests are in MigrationKitCLITests.
@Suite struct KeyringInteropTests {
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

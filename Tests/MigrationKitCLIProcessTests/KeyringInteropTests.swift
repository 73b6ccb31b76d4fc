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
    @Test(.enabled(if: PrivateKeePassXC.isInstalled || isCI, "KeePassXC is not installed (scripts/install-deps.sh installs it)"))
    func aLockedKeePassXCDatabaseIsSaidToBeLockedAtOnce() throws {
        let keePassXC = try PrivateKeePassXC(exposing: nil)
        try "a key that is never read\n".write(toFile: keePassXC.path("new.key"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keePassXC.path("new.key"))
        // First with no database open (KeePassXC waits just the same, for one to be
        // opened), then with the locked one.
        let result = try keePassXC.run(#"""
            item="--keychain-service org.example.notes --keychain-account notes.db"
            : > "$HOME/app.db"
            for database in "" "$DATABASE"; do
                state=${database:+locked}
                start_keepassxc $database
                # Until KeePassXC owns the Secret Service name (and shows the locked database).
                wait_for shows "${database:+collection/}"
                for command in "schema-dump --db-path $HOME/app.db $item" "key store $item --force" "key delete $item"; do
                    start=$(date +%s%N)
                    $MIGRATIONKIT $command < new.key 2>"$HOME/stderr"
                    code=$?
                    echo "${state:-none}: $command: exit $code after $((($(date +%s%N) - start) / 1000000)) ms: $(cat "$HOME/stderr")"
                done
                stop_keepassxc
            done
            """#)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(result.output)")
        for line in lines {
            #expect(line.contains(": exit 5 after "), "\(line)")
            #expect(Self.milliseconds(line) < 5_000, "not at once: \(line)")
            #expect(line.contains(line.hasPrefix("locked:")
                ? "every keyring of the Secret Service is locked (“Passwords”)"
                : "the Secret Service has no keyring open (KeePassXC with no database open)"), "\(line)")
            #expect(line.contains("unlock it in KeePassXC"), "\(line)")
            #expect(!line.contains("responsive") && !line.contains(PrivateKeePassXC.password) && !line.contains("never read"), "\(line)")
        }
    }

    /// KeePassXC with its database open, exposing a group over its Secret Service
    /// integration with the settings Keys/README.md names: keys generated and stored by
    /// the tool are KeePassXC entries that `secret-tool` and Python's `keyring` read, a
    /// database is created and migrated with a key read from it, a rotation stores its new
    /// key there and proves it (the database opens with what `secret-tool` then reads, and
    /// no item of the rotation is left behind), items `secret-tool` and Python's `keyring`
    /// wrote open databases through the tool, and once the database is locked (as
    /// KeePassXC's `--lock` or its timeout locks it) every command says so at once, exit
    /// 5, and leaves the database as it was.
    @Test(.enabled(if: PrivateKeePassXC.isInstalled || isCI, "KeePassXC is not installed (scripts/install-deps.sh installs it)"))
    func anOpenKeePassXCDatabaseKeepsReadsAndRotatesKeysAndALockIsSaidAtOnce() throws {
        let keePassXC = try PrivateKeePassXC(exposing: "Secret Service")
        let service = "org.migrationkit.tests.keepassxc"
        let fromSecretTool = TestKey.raw()
        let fromPython = TestKey.raw()
        // As a key file holds it: secret-tool keeps the line break, the tool drops it.
        _ = try keePassXC.directory.write("secret-tool.key", fromSecretTool.text + "\n")
        _ = try keePassXC.directory.write("python.key", fromPython.text)
        _ = try keePassXC.directory.write("migrations/001_books.sql", "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL);\n")
        let python = PythonClients.python
        let result = try keePassXC.run(#"""
            item() { echo "--keychain-service $SERVICE --keychain-account $1"; }
            # NAME COMMAND...: the tool's exit code and time, then its error output.
            tool() {
                name=$1; shift
                start=$(date +%s%N)
                "$MIGRATIONKIT" "$@" >"$name.out" 2>"$name.err"
                echo "$name: exit $? after $((($(date +%s%N) - start) / 1000000)) ms"
                sed "s/^/$name: /" "$name.err"
            }
            python_keyring() {
                [ -n "$PYTHON" ] || return 0
                "$PYTHON" -c 'import sys, keyring
            from keyring.backends import SecretService
            keyring.set_keyring(SecretService.Keyring())
            command, service, username = sys.argv[1:4]
            if command == "get":
                print(keyring.get_password(service, username), end="")
            else:
                keyring.set_password(service, username, sys.stdin.read())' "$@"
            }
            start_keepassxc --pw-stdin "$DATABASE"
            wait_for unlocked

            tool generate key generate $(item notes.db)
            secret-tool lookup service "$SERVICE" account notes.db >generated.key
            tool migrate migrate -q --db-path notes.db --migrations migrations $(item notes.db)
            tool rekey rekey -q --db-path notes.db --migrations migrations $(item notes.db) \
                --new-key generate --new-keychain-service "$SERVICE" --new-keychain-account notes.db --no-backup
            secret-tool lookup service "$SERVICE" account notes.db >rotated.key
            python_keyring get "$SERVICE" notes.db >python-rotated.key
            echo "items: $(secret-tool search --all service "$SERVICE" 2>&1 | grep -c '^\[')"

            secret-tool store --label=app service "$SERVICE" account app.db <secret-tool.key
            tool secret-tool migrate -q --db-path app.db --migrations migrations $(item app.db)
            python_keyring set "$SERVICE" python.db <python.key
            [ -n "$PYTHON" ] && tool python migrate -q --db-path python.db --migrations migrations $(item python.db)
            tool store key store $(item stored.db) <secret-tool.key
            secret-tool lookup service "$SERVICE" account stored.db >stored.key
            python_keyring get "$SERVICE" stored.db >python-stored.key

            # Locked under the running tool, between two commands.
            cp notes.db notes.db.before
            QT_QPA_PLATFORM=offscreen "$KEEPASSXC" --lock >/dev/null 2>&1
            wait_for locked
            tool locked-status status --db-path notes.db --migrations migrations $(item notes.db)
            tool locked-rekey rekey --db-path notes.db --migrations migrations $(item notes.db) \
                --new-key generate --new-keychain-service "$SERVICE" --new-keychain-account notes.db --no-backup
            tool locked-store key store $(item stored.db) --force <python.key
            cmp -s notes.db notes.db.before && echo "notes.db unchanged"
            stop_keepassxc
            """#, environment: ["SERVICE": service, "PYTHON": python ?? ""])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for name in ["generate", "migrate", "rekey", "secret-tool", "store"] + (python == nil ? [] : ["python"]) {
            #expect(lines.contains { $0.hasPrefix("\(name): exit 0 after ") }, "\(name): \(result.output)")
        }
        // The rotation's items (the new key kept beside its place) are gone: one item.
        #expect(lines.contains("items: 1"), "\(result.output)")

        let generated = TestKey(text: try String(contentsOfFile: keePassXC.path("generated.key"), encoding: .utf8))
        let rotated = TestKey(text: try String(contentsOfFile: keePassXC.path("rotated.key"), encoding: .utf8))
        #expect(generated.isRaw && rotated.isRaw && generated != rotated, "\(generated) \(rotated)")
        let books = "SELECT count(*) FROM books;"
        let opened = try SQLCipherShell.run(keePassXC.path("notes.db"), key: rotated, books)
        #expect(opened.status == 0 && opened.stdout == "0\n", "the rotated key does not open the database: \(opened.output)")
        #expect(try SQLCipherShell.run(keePassXC.path("notes.db"), key: generated, books).status != 0, "the old key still opens it")
        let bySecretToolItem = try SQLCipherShell.run(keePassXC.path("app.db"), key: fromSecretTool, books)
        #expect(bySecretToolItem.status == 0 && bySecretToolItem.stdout == "0\n", "secret-tool's item: \(bySecretToolItem.output)")
        #expect(try String(contentsOfFile: keePassXC.path("stored.key"), encoding: .utf8) == fromSecretTool.text)
        if python != nil {
            #expect(try String(contentsOfFile: keePassXC.path("python-rotated.key"), encoding: .utf8) == rotated.text)
            #expect(try String(contentsOfFile: keePassXC.path("python-stored.key"), encoding: .utf8) == fromSecretTool.text)
            let byPython = try SQLCipherShell.run(keePassXC.path("python.db"), key: fromPython, books)
            #expect(byPython.status == 0 && byPython.stdout == "0\n", "Python's item: \(byPython.output)")
        } else {
            try #require(!isCI, "CI=true but MIGRATIONKIT_TEST_PYTHON names no python: run the tests through scripts/test.sh")
        }

        let item = { (account: String) in "service “\(service)”, account “\(account)”" }
        let locked = "because every keyring of the Secret Service is locked (“Passwords”); unlock it in KeePassXC or your keyring manager (such as Seahorse), then try again."
        for (name, sentence) in [("locked-status", "look up the key for \(item("notes.db"))"), ("locked-rekey", "look up the key for \(item("notes.db"))"),
                                 ("locked-store", "store the key for \(item("stored.db"))")] {
            let summary = lines.first { $0.hasPrefix("\(name): exit ") } ?? ""
            #expect(summary.hasPrefix("\(name): exit 5 after "), "\(result.output)")
            #expect(Self.milliseconds(summary) < 5_000, "not at once: \(summary)")
            #expect(lines.contains("\(name): migrationkit: error: Cannot \(sentence) \(locked)"), "\(result.output)")
        }
        #expect(lines.contains("notes.db unchanged"), "\(result.output)")
        for key in [generated, rotated, fromSecretTool, fromPython] {
            #expect(!result.output.contains(key.secret), "a key in the output")
        }
        #expect(!result.output.contains(PrivateKeePassXC.password))
    }

    /// KeePassXC as it is set up by default asks before it lets a program read an entry
    /// (every program, every run), and answers the program only once someone allows it.
    /// With nobody there, the tool waits `--lock-timeout`, not for ever, and says what to
    /// do: exit 5, naming the prompt, and no database is created with any key.
    @Test(.enabled(if: PrivateKeePassXC.isInstalled || isCI, "KeePassXC is not installed (scripts/install-deps.sh installs it)"))
    func aKeePassXCConfirmationNobodyAnswersEndsTheCommandWithinTheLockTimeout() throws {
        let keePassXC = try PrivateKeePassXC(exposing: "Secret Service")
        let service = "org.migrationkit.tests.keepassxc"
        let key = TestKey.raw()
        _ = try keePassXC.directory.write("app.key", key.text + "\n")
        _ = try keePassXC.directory.write("migrations/001_books.sql", "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL);\n")
        let result = try keePassXC.run(#"""
            start_keepassxc --pw-stdin "$DATABASE"
            wait_for unlocked
            # Another program's entry: KeePassXC lets the program that made it read it.
            secret-tool store --label=app service "$SERVICE" account app.db <app.key || exit 21
            start=$(date +%s%N)
            "$MIGRATIONKIT" migrate --db-path app.db --migrations migrations --keychain-service "$SERVICE" \
                --keychain-account app.db --lock-timeout 1 2>migrate.err
            echo "migrate: exit $? after $((($(date +%s%N) - start) / 1000000)) ms"
            cat migrate.err
            [ -e app.db ] || echo "no app.db"
            stop_keepassxc
            """#, environment: ["SERVICE": service], confirmations: true)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let summary = lines.first { $0.hasPrefix("migrate: exit ") } ?? ""
        #expect(summary.hasPrefix("migrate: exit 5 after "), "\(result.output)")
        #expect(Self.milliseconds(summary) < 6_000, "not within the lock timeout: \(summary)")
        #expect(lines.contains("migrationkit: error: The Secret Service (gnome-keyring, KeePassXC) did not answer within 1 s when asked to look up the key for service “\(service)”, account “app.db”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again."),
                "\(result.output)")
        #expect(lines.contains("no app.db"), "\(result.output)")
        #expect(!result.output.contains(key.secret))
    }

    /// The milliseconds a line `NAME: exit N after MS ms…` says a command took.
    private static func milliseconds(_ line: String) -> Int {
        let words = line.split(separator: " ")
        return words.firstIndex(of: "after").flatMap { Int(words[$0 + 1]) } ?? .max
    }
}

/// A KeePassXC of a test's own: its own `HOME`, XDG folders and `TMPDIR` (where KeePassXC
/// keeps its one-instance lock and socket, so that another KeePassXC of the same user,
/// another test's or another run's, is never taken for it), a database made with
/// `keepassxc-cli`, and a private bus that starts nothing on demand (the system's would
/// start gnome-keyring for the Secret Service's name): KeePassXC is the only Secret
/// Service that can answer. Drawn off screen (Qt's `offscreen` platform: the same code as
/// on a desktop, no display needed).
private struct PrivateKeePassXC {
    static let keePassXC = ["/usr/bin/keepassxc"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let keePassXCCLI = ["/usr/bin/keepassxc-cli"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var isInstalled: Bool { keePassXC != nil && keePassXCCLI != nil }
    /// The database's password, which KeePassXC reads from standard input (`--pw-stdin`).
    static let password = "kdbx-password-Rb8"

    let directory: TemporaryDirectory
    let keepassxc: String
    /// `home/Passwords.kdbx`: KeePassXC names its collection “Passwords” after it.
    var database: String { path("home/Passwords.kdbx") }

    /// The folders and the database. `group`, when given, is made in the database and
    /// exposed over the Secret Service, as KeePassXC's database settings do: its UUID in
    /// the database's custom data under `FDO_SECRETS_EXPOSED_GROUP` (KeePassXC exposes
    /// nothing of a database without it), written by exporting the database to XML and
    /// importing it, since `keepassxc-cli` has no command for custom data.
    init(exposing group: String?) throws {
        keepassxc = try #require(Self.keePassXC, "CI=true but keepassxc is missing: run scripts/install-deps.sh")
        let cli = try #require(Self.keePassXCCLI, "CI=true but keepassxc-cli is missing: run scripts/install-deps.sh")
        directory = try TemporaryDirectory()
        for folder in ["home", "config/keepassxc", "data", "cache", "runtime", "tmp", "migrations"] {
            try FileManager.default.createDirectory(atPath: directory.path(folder), withIntermediateDirectories: true)
        }
        for folder in ["runtime", "tmp"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path(folder))
        }
        let password = Data("\(Self.password)\n".utf8)
        let twice = Data("\(Self.password)\n\(Self.password)\n".utf8)
        // The smallest decryption time keepassxc-cli takes: each open costs 0.1 s.
        let environment = self.environment
        let create = { (command: [String], stdin: Data) throws in
            let result = try ChildProcess.run([cli] + command, stdin: stdin, environment: environment)
            #expect(result.status == 0, "keepassxc-cli \(command.first ?? ""): \(result.output)")
        }
        guard let group else {
            try create(["db-create", "--set-password", "--decryption-time", "100", database], twice)
            return
        }
        let plain = path("home/plain.kdbx")
        try create(["db-create", "--set-password", "--decryption-time", "100", plain], twice)
        try create(["mkdir", plain, group], password)
        let export = try ChildProcess.run([cli, "export", "--quiet", plain], stdin: password, environment: environment)
        #expect(export.status == 0, "keepassxc-cli export: \(export.stderr)")
        let xml = try Self.exposing(group, in: export.stdout)
        let exported = try directory.write("home/exposed.xml", xml)
        try create(["import", "--set-password", "--decryption-time", "100", exported, database], twice)
        try FileManager.default.removeItem(atPath: exported)
    }

    func path(_ name: String) -> String { directory.path(name) }

    /// `xml` (a database as `keepassxc-cli export` writes it) with the group named
    /// `group` exposed: KeePassXC reads the braced UUID form.
    private static func exposing(_ group: String, in xml: String) throws -> String {
        let pattern = try Regex("<UUID>([A-Za-z0-9+/=]+)</UUID>\\s*<Name>\(NSRegularExpression.escapedPattern(for: group))</Name>")
        let encoded = try #require(xml.firstMatch(of: pattern)?.output[1].substring, "no group \(group) in the export")
        let bytes = try #require(Data(base64Encoded: String(encoded)), "a group UUID that is not base64")
        try #require(bytes.count == 16)
        var hex = bytes.map { String(format: "%02x", $0) }.joined()
        for offset in [20, 16, 12, 8] { hex.insert("-", at: hex.index(hex.startIndex, offsetBy: offset)) }
        let setting = "<Item><Key>FDO_SECRETS_EXPOSED_GROUP</Key><Value>{\(hex)}</Value></Item>"
        let meta = try #require(xml.range(of: "</Meta>"), "no Meta in the export")
        if let custom = xml.range(of: "<CustomData>", range: xml.startIndex..<meta.lowerBound) {
            return xml.replacingCharacters(in: custom, with: "<CustomData>" + setting)
        }
        return xml.replacingCharacters(in: meta, with: "<CustomData>\(setting)</CustomData></Meta>")
    }

    /// The environment of everything the test starts: nothing of the person's.
    var environment: [String: String] {
        ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": path("home"), "TMPDIR": path("tmp"),
         "XDG_CONFIG_HOME": path("config"), "XDG_DATA_HOME": path("data"), "XDG_CACHE_HOME": path("cache"),
         "XDG_RUNTIME_DIR": path("runtime")]
    }

    /// Runs `script` by `sh` in the folder, on a private bus, after the functions it uses
    /// (`start_keepassxc ARGUMENTS…`, `stop_keepassxc`, `wait_for CONDITION…` with the
    /// conditions `shows TEXT`, `unlocked` and `locked`), with KeePassXC's settings:
    /// Secret Service integration on, and unless `confirmations`, without the
    /// confirmations nobody could answer here (“Confirm when passwords are retrieved by
    /// clients”, “Confirm when clients request entry deletion”; both on by default).
    func run(_ script: String, environment extra: [String: String] = [:], confirmations: Bool = false) throws -> ChildProcessResult {
        let settings = confirmations ? "" : "ConfirmAccessItem=false\nConfirmDeleteItem=false\n"
        try "[FdoSecrets]\nEnabled=true\n\(settings)"
            .write(toFile: path("config/keepassxc/keepassxc.ini"), atomically: true, encoding: .utf8)
        try PrivateBus.configuration(listeningIn: path("runtime")).write(toFile: path("bus.conf"), atomically: true, encoding: .utf8)
        let functions = #"""
            set -u
            property() {
                gdbus call --session --dest org.freedesktop.secrets --object-path "$1" \
                    --method org.freedesktop.DBus.Properties.Get "$2" "$3" 2>/dev/null
            }
            shows() { property /org/freedesktop/secrets org.freedesktop.Secret.Service Collections | grep -q "$1"; }
            collection_locked() {
                property /org/freedesktop/secrets/collection/Passwords org.freedesktop.Secret.Collection Locked | grep -q "<$1>"
            }
            unlocked() { collection_locked false; }
            locked() { collection_locked true; }
            wait_for() {
                tries=0
                until "$@"; do
                    tries=$((tries + 1))
                    [ $tries -gt 300 ] && { echo "gave up waiting for $*"; cat "$HOME/keepassxc.log"; kill -KILL $keepassxc; exit 20; }
                    sleep 0.1
                done
            }
            # The database's password on standard input, for `--pw-stdin`.
            start_keepassxc() {
                printf '%s\n' "$KDBX_PASSWORD" | QT_QPA_PLATFORM=offscreen "$KEEPASSXC" "$@" >"$HOME/keepassxc.log" 2>&1 &
                keepassxc=$!
            }
            # At once, even with a prompt open (which holds back a graceful exit); every
            # change is saved already (KeePassXC saves after each change by default).
            stop_keepassxc() { kill -KILL $keepassxc; wait $keepassxc; }

            """#
        var environment = self.environment
        environment["KEEPASSXC"] = keepassxc
        environment["MIGRATIONKIT"] = Binary.migrationkit
        environment["DATABASE"] = database
        environment["KDBX_PASSWORD"] = Self.password
        environment.merge(extra) { $1 }
        return try ChildProcess.run(["/usr/bin/dbus-run-session", "--config-file=\(path("bus.conf"))", "--", "/bin/sh", "-c", functions + script + "\nexit 0\n"],
                                    environment: environment, directory: directory.url.path, timeout: 120)
    }
}

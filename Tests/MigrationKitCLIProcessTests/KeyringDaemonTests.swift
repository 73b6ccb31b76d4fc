import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A gnome-keyring that misbehaves under a command: stopped, or killed and restarted while
/// a fleet waits at its unlock prompt. Each test runs the binary on a private bus of its
/// own, with a gnome-keyring of its own (the keyring the other tests share is never
/// stopped or killed under them) whose prompter (`org.gnome.keyring.SystemPrompter`) is
/// started but never answers, as a desktop's does with nobody at the screen.
@Suite struct KeyringDaemonTests {
    /// The reported hang: a fleet rotation waits at the locked keyring's unlock prompt,
    /// gnome-keyring is killed and started again, and libsecret never ends the request
    /// (GLib says `g_task_return_error: assertion 'error != NULL' failed`). The command
    /// ends within its lock timeout per call, exit 5, each tenant named with one sentence
    /// and none rotated: each still opens with its key, its file as it was.
    @Test(.enabled(if: Self.hasKeyring || isCI, "gnome-keyring-daemon or dbus-run-session is not installed (scripts/install-deps.sh installs them)"))
    func aKeyringRestartedDuringAFleetRotationEndsTheCommandWithEveryTenantOnItsKey() throws {
        let keyring = try PrivateKeyring()
        let names = ["t0", "t1", "t2"]
        var keys: [String: TestKey] = [:]
        for name in names {
            let key = TestKey.raw()
            keys[name] = key
            try keyring.item(name, key)
            #expect(try SQLCipherShell.run(keyring.path("tenants/\(name).db"), key: key, "CREATE TABLE seed (x); INSERT INTO seed VALUES (1);").status == 0)
        }
        let before = try names.map { try Data(contentsOf: URL(fileURLWithPath: keyring.path("tenants/\($0).db"))) }
        let result = try keyring.run(#"""
            locked_keyring_with_items
            first=$(keyring_pid)
            watch_prompts
            start=$(date +%s%N)
            timeout -k 5 45 "$MIGRATIONKIT" rekey --db-glob 'tenants/*.db' --migrations . --keychain-service "$SERVICE" \
                --keychain-account '{name}' --new-keychain-service "$SERVICE" --new-keychain-account '{name}.new' \
                --new-key generate --no-backup --jobs 1 --lock-timeout 1 >rekey.out 2>rekey.err &
            rekey=$!
            # The first tenant's lookup waits at the unlock prompt (the prompter never answers).
            wait_for prompted
            kill -KILL "$first"
            gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1 || exit 24
            wait_for answering
            [ "$(keyring_pid)" != "$first" ] && echo "restarted"
            wait $rekey
            echo "rekey: exit $? after $((($(date +%s%N) - start) / 1000000)) ms"
            cat rekey.out rekey.err
            """#)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "restarted", "\(result.output)")
        let summary = lines.first { $0.hasPrefix("rekey: ") } ?? ""
        #expect(summary.hasPrefix("rekey: exit 5 after "), "\(result.output)")
        // Three tenants, each given up on within 1 s (and a moment to cancel) per call.
        let milliseconds = summary.split(separator: " ").dropFirst(4).first.flatMap { Int($0) } ?? .max
        #expect(milliseconds < 20_000, "\(result.output)")
        for name in names {
            let line = lines.first { $0.hasPrefix("tenants/\(name).db ") } ?? ""
            #expect(line.contains("failed (exit 5): tenants/\(name).db: "), "\(result.output)")
        }
        let waited = lines.first { $0.hasPrefix("tenants/t0.db ") } ?? ""
        #expect(waited.hasSuffix("The Secret Service (gnome-keyring, KeePassXC) did not answer within 1 s when asked to look up the key for service “\(keyring.service)”, account “t0”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again."),
                "\(result.output)")
        #expect(lines.contains("migrationkit: error: 3 of 3 databases failed (listed above). Fix the cause and run the same command again."), "\(result.output)")
        Self.expectNoGLibNames(lines.filter { $0.contains("tenants/") || $0.hasPrefix("migrationkit:") })
        try Self.expectTenantsAsTheyWere(keyring, names: names, bytes: before, keys: keys)
    }

    /// A keyring that never answers (its daemon stopped): exit 5 within the lock timeout,
    /// one sentence without GLib's names, which only --verbose adds.
    @Test(.enabled(if: Self.hasKeyring || isCI, "gnome-keyring-daemon or dbus-run-session is not installed (scripts/install-deps.sh installs them)"))
    func aStoppedKeyringIsExit5WithinTheLockTimeoutAndGLibsErrorOnlyUnderVerbose() throws {
        let keyring = try PrivateKeyring()
        let key = TestKey.raw()
        try keyring.item("app", key)
        #expect(try SQLCipherShell.run(keyring.path("tenants/app.db"), key: key, "CREATE TABLE seed (x);").status == 0)
        try FileManager.default.createDirectory(atPath: keyring.path("migrations"), withIntermediateDirectories: true)
        let result = try keyring.run(#"""
            printf '%s' "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 21
            wait_for answering
            secret-tool store --label=app service "$SERVICE" account app < keys/app.key || exit 22
            daemon=$(keyring_pid)
            kill -STOP "$daemon"
            for output in "" --verbose --json; do
                start=$(date +%s%N)
                timeout -k 5 45 "$MIGRATIONKIT" status --db-path tenants/app.db --migrations migrations --keychain-service "$SERVICE" \
                    --keychain-account app --lock-timeout 1 $output >status.out 2>status.err
                echo "status${output:+ $output}: exit $? after $((($(date +%s%N) - start) / 1000000)) ms"
                cat status.err status.out
            done
            # --lock-timeout 0 never waits for a lock; the keyring still gets a second.
            "$MIGRATIONKIT" status --db-path tenants/app.db --migrations migrations --keychain-service "$SERVICE" \
                --keychain-account app --lock-timeout 0 2>&1 | grep -h 'error:' | sed 's/^/no wait: /'
            kill -CONT "$daemon"
            """#)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let sentence = "migrationkit: error: The Secret Service (gnome-keyring, KeePassXC) did not answer within 1 s when asked to look up the key for service “\(keyring.service)”, account “app”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again."
        for output in ["", " --verbose", " --json"] {
            let summary = lines.first { $0.hasPrefix("status\(output): ") } ?? ""
            #expect(summary.hasPrefix("status\(output): exit 5 after "), "\(result.output)")
            let milliseconds = summary.split(separator: " ").dropFirst(output.isEmpty ? 4 : 5).first.flatMap { Int($0) } ?? .max
            #expect(milliseconds < 6_000, "not within the lock timeout: \(summary)")
        }
        #expect(lines.contains(sentence), "\(result.output)")
        // GLib's domain and code only with --verbose, after the sentence.
        #expect(lines.contains(sentence + " [GLib error g-io-error-quark 24]"), "\(result.output)")
        #expect(lines.contains(#"    "message" : "The Secret Service (gnome-keyring, KeePassXC) did not answer within 1 s when asked to look up the key for service “\#(keyring.service)”, account “app”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again.""#),
                "\(result.output)")
        #expect(lines.contains("no wait: " + sentence), "\(result.output)")
        Self.expectNoGLibNames(lines.filter { !$0.contains("[GLib error ") })
    }

    /// A stopped keyring under a fleet rotation of six tenants, each with its keys in
    /// items: the first lookup waits the lock timeout, and every later keyring call of the
    /// command (each tenant's lookup, and the looks for a new key a rerun would find) fails
    /// at once, saying the keyring was not asked. So the command ends within about one lock
    /// timeout, not one per lookup of each tenant (three each before, 36 s here), exit 5,
    /// every tenant named with the sentence, on its old key, with no new key made for it.
    @Test(.enabled(if: Self.hasKeyring || isCI, "gnome-keyring-daemon or dbus-run-session is not installed (scripts/install-deps.sh installs them)"))
    func aStoppedKeyringCostsAFleetRotationOneLockTimeoutNotOnePerLookup() throws {
        let keyring = try PrivateKeyring()
        let names = (0..<6).map { "t\($0)" }
        var keys: [String: TestKey] = [:]
        for name in names {
            let key = TestKey.raw()
            keys[name] = key
            try keyring.item(name, key)
            #expect(try SQLCipherShell.run(keyring.path("tenants/\(name).db"), key: key, "CREATE TABLE seed (x); INSERT INTO seed VALUES (1);").status == 0)
        }
        let before = try names.map { try Data(contentsOf: URL(fileURLWithPath: keyring.path("tenants/\($0).db"))) }
        let result = try keyring.run(#"""
            keyring_with_items
            daemon=$(keyring_pid)
            kill -STOP "$daemon"
            start=$(date +%s%N)
            timeout -k 5 90 "$MIGRATIONKIT" rekey --db-glob 'tenants/*.db' --migrations . --keychain-service "$SERVICE" \
                --keychain-account '{name}' --new-keychain-service "$SERVICE" --new-keychain-account '{name}.new' \
                --new-key generate --no-backup --jobs 2 --lock-timeout 2 >rekey.out 2>rekey.err
            echo "rekey: exit $? after $((($(date +%s%N) - start) / 1000000)) ms"
            kill -CONT "$daemon"
            wait_for answering
            for key in keys/*.key; do
                name=$(basename "$key" .key)
                for account in "$name.new" "$name.new.migrationkit-new-key"; do
                    secret-tool lookup service "$SERVICE" account "$account" >/dev/null 2>&1 && echo "a new key in $account"
                done
            done
            cat rekey.out rekey.err
            """#)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let summary = lines.first { $0.hasPrefix("rekey: ") } ?? ""
        #expect(summary.hasPrefix("rekey: exit 5 after "), "\(result.output)")
        // One lock timeout (2 s) and the work, far from 6 tenants × 3 lookups × 2 s.
        let milliseconds = summary.split(separator: " ").dropFirst(4).first.flatMap { Int($0) } ?? .max
        #expect(milliseconds < 10_000, "\(result.output)")
        let tenantLines = names.map { name in lines.first { $0.hasPrefix("tenants/\(name).db ") } ?? "" }
        let advice = "; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again."
        let waited = tenantLines.filter { line in
            names.contains { line.hasSuffix("The Secret Service (gnome-keyring, KeePassXC) did not answer within 2 s when asked to look up the key for service “\(keyring.service)”, account “\($0)”" + advice) }
        }
        #expect(waited.count == 1, "\(result.output)")
        for (name, line) in zip(names, tenantLines) where !waited.contains(line) {
            #expect(line.hasSuffix("failed (exit 5): tenants/\(name).db: The Secret Service (gnome-keyring, KeePassXC) did not answer within 2 s when asked earlier, so it was not asked to look up the key for service “\(keyring.service)”, account “\(name)”" + advice),
                    "\(result.output)")
        }
        #expect(lines.contains("migrationkit: error: 6 of 6 databases failed (listed above). Fix the cause and run the same command again."), "\(result.output)")
        #expect(!lines.contains { $0.hasPrefix("a new key in ") }, "\(result.output)")
        Self.expectNoGLibNames(lines.filter { $0.contains("tenants/") || $0.hasPrefix("migrationkit:") })
        try Self.expectTenantsAsTheyWere(keyring, names: names, bytes: before, keys: keys)
    }

    /// The keyring stopped as a rotation reads its new key back from the item: the rekey,
    /// its new key read, waits for another process to close the tenant (a WAL database
    /// leaves WAL mode only alone), and the test stops the keyring then. The tenant fails,
    /// exit 5, with the Secret Service's own sentence, never as a key missing from the
    /// item (which would ask for it to be put back); `--old-key delete` leaves the old key
    /// file, as the new key is not proven; once the keyring answers, the item's key opens
    /// the tenant.
    @Test(.enabled(if: Self.hasKeyring || isCI, "gnome-keyring-daemon or dbus-run-session is not installed (scripts/install-deps.sh installs them)"))
    func aKeyringStoppedAsARotationReadsTheNewKeyBackIsSaidNotToAnswer() throws {
        let keyring = try PrivateKeyring()
        let old = TestKey.raw()
        let new = TestKey.raw()
        try keyring.item("t0", old)
        try (new.text + "\n").write(toFile: keyring.path("keys/t0.new"), atomically: true, encoding: .utf8)
        #expect(try SQLCipherShell.run(keyring.path("tenants/t0.db"), key: old, "PRAGMA journal_mode = WAL; CREATE TABLE seed (x); INSERT INTO seed VALUES (1);").status == 0)
        let result = try keyring.run(#"""
            printf '%s' "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 21
            wait_for answering
            secret-tool store --label=new service "$SERVICE" account t0.new < keys/t0.new || exit 22
            daemon=$(keyring_pid)
            # Another process with the tenant open, until the keyring is stopped.
            sleep 600 < tenants/t0.db &
            holder=$!
            "$MIGRATIONKIT" rekey --db-path tenants/t0.db --migrations . --password-file keys/t0.key --new-keychain-service "$SERVICE" \
                --new-keychain-account t0.new --old-key delete --no-backup --lock-timeout 3 --json >rekey.out 2>rekey.err &
            rekey=$!
            # Its connection to the tenant (the WAL index open) comes after the new key's lookup.
            rekeying() { ls -l "/proc/$rekey/fd" 2>/dev/null | grep -q 't0\.db-shm$'; }
            wait_for rekeying
            kill -STOP "$daemon"
            kill "$holder"
            wait $rekey
            echo "rekey: exit $?"
            kill -CONT "$daemon"
            wait_for answering
            [ -f keys/t0.key ] && echo "old key file kept"
            secret-tool lookup service "$SERVICE" account t0.new >item.key && echo "new key in its item"
            cat rekey.err rekey.out
            """#)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("rekey: exit 5"), "\(result.output)")
        let sentence = "The Secret Service (gnome-keyring, KeePassXC) did not answer within 3 s when asked to look up the key for service “\(keyring.service)”, account “t0.new”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again. "
            + "tenants/t0.db is on its new key, but whether the Secret Service item for service \"\(keyring.service)\", account \"t0.new\" holds it is not known. "
            + "The old key was left where it was, though it no longer opens the database."
        #expect(lines.contains("migrationkit: error: " + sentence), "\(result.output)")
        #expect(lines.contains(#"    "kind" : "key.secretServiceNotAnswering","#), "\(result.output)")
        #expect(!result.stdout.contains("does not hold it") && !result.stdout.contains("Put the new key back"), "\(result.output)")
        #expect(lines.contains("old key file kept") && lines.contains("new key in its item"), "\(result.output)")
        Self.expectNoGLibNames(lines.filter { $0.hasPrefix("migrationkit:") })
        let item = try String(contentsOfFile: keyring.path("item.key"), encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(item == new.text, "the item holds another key")
        let read = try SQLCipherShell.run(keyring.path("tenants/t0.db"), key: new, "SELECT count(*) FROM seed;")
        #expect(read.status == 0 && read.stdout == "1\n", "\(read.output)")
        #expect(try SQLCipherShell.run(keyring.path("tenants/t0.db"), key: old, "SELECT count(*) FROM seed;").status != 0, "the old key still opens it")
    }

    /// A rerun of a finished rotation (the tenant on its new key, in its item; the old key
    /// file kept) whose keyring stops once the new key was read, while the rekey waits to
    /// open the tenant (another connection holds it in an exclusive transaction): the old
    /// key then does not open it, and the look for the new key, which would show the
    /// rotation done, gets no answer. That is what the tenant fails with, exit 5, not a
    /// wrong key (exit 4); the tenant is as it was.
    @Test(.enabled(if: Self.hasKeyring || isCI, "gnome-keyring-daemon or dbus-run-session is not installed (scripts/install-deps.sh installs them)"))
    func aKeyringStoppedBeforeARerunFindsItsNewKeyIsNotAWrongKey() throws {
        let keyring = try PrivateKeyring()
        let old = TestKey.raw()
        let new = TestKey.raw()
        try keyring.item("t0", old)
        try (new.text + "\n").write(toFile: keyring.path("keys/t0.new"), atomically: true, encoding: .utf8)
        try "PRAGMA key = \(new.pragma);\n".write(toFile: keyring.path("keys/t0.pragma"), atomically: true, encoding: .utf8)
        #expect(try SQLCipherShell.run(keyring.path("tenants/t0.db"), key: old, "CREATE TABLE seed (x); INSERT INTO seed VALUES (1); PRAGMA rekey = \(new.pragma);").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: keyring.path("tenants/t0.db")))
        let result = try keyring.run(#"""
            printf '%s' "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 21
            wait_for answering
            secret-tool store --label=new service "$SERVICE" account t0.new < keys/t0.new || exit 22
            daemon=$(keyring_pid)
            # Another connection holds the tenant in an exclusive transaction until the keyring is stopped.
            mkfifo holding
            "$SQLCIPHER" -batch tenants/t0.db <holding >held.out 2>&1 &
            shell=$!
            exec 4>holding
            cat keys/t0.pragma >&4
            echo "BEGIN EXCLUSIVE; SELECT 'held';" >&4
            held() { grep -q held held.out; }
            wait_for held
            "$MIGRATIONKIT" rekey --db-path tenants/t0.db --migrations . --password-file keys/t0.key --new-keychain-service "$SERVICE" \
                --new-keychain-account t0.new --no-backup --lock-timeout 2 >rekey.out 2>rekey.err &
            rekey=$!
            # Its connection to the tenant (beside its change lock) comes after the new key's lookup.
            opening() { [ "$(ls -l "/proc/$rekey/fd" 2>/dev/null | grep -c 't0\.db$')" -ge 2 ]; }
            wait_for opening
            kill -STOP "$daemon"
            echo "COMMIT;" >&4
            exec 4>&-
            wait $shell
            wait $rekey
            echo "rekey: exit $?"
            kill -CONT "$daemon"
            cat rekey.err rekey.out
            """#)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("rekey: exit 5"), "\(result.output)")
        #expect(lines.contains("migrationkit: error: The Secret Service (gnome-keyring, KeePassXC) did not answer within 2 s when asked to look up the key for service “\(keyring.service)”, account “t0.new”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again."),
                "\(result.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyring.path("tenants/t0.db"))) == before, "the tenant changed")
        let read = try SQLCipherShell.run(keyring.path("tenants/t0.db"), key: new, "SELECT count(*) FROM seed;")
        #expect(read.status == 0 && read.stdout == "1\n", "\(read.output)")
    }

    /// The library's stores, with the keyring stopped: each store on its own waits its
    /// timeout in every lookup (an app asks again each time), while the stores of one
    /// `SecretServiceKeyStore.Batch` wait once, and the later lookups fail at once, saying
    /// the Secret Service was not asked. (`KeyStoreProbe`, as an app calls the store.)
    @Test(.enabled(if: Self.hasKeyring || isCI, "gnome-keyring-daemon or dbus-run-session is not installed (scripts/install-deps.sh installs them)"))
    func storesWaitInEachCallUnlessABatchStoppedWaiting() throws {
        let keyring = try PrivateKeyring()
        try keyring.item("app", TestKey.raw())
        let result = try keyring.run(#"""
            keyring_with_items
            daemon=$(keyring_pid)
            kill -STOP "$daemon"
            for mode in "" --batch; do
                echo "mode ${mode:-alone}"
                "$PROBE" lookups 3 "$SERVICE" app 1 $mode 2>&1
            done
            kill -CONT "$daemon"
            """#)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        func milliseconds(_ mode: String, _ index: Int) -> Int? {
            guard let start = lines.firstIndex(of: "mode \(mode)") else { return nil }
            let line = lines[start...].first { $0.hasPrefix("lookup \(index): error secretServiceNotAnswering after ") } ?? ""
            return line.split(separator: " ").dropLast().last.flatMap { Int($0) }
        }
        for index in 1...3 {
            let alone = milliseconds("alone", index) ?? 0
            #expect(alone >= 1_000, "lookup \(index) alone did not wait: \(result.output)")
        }
        #expect((milliseconds("--batch", 1) ?? 0) >= 1_000, "\(result.output)")
        for index in 2...3 {
            let batched = milliseconds("--batch", index) ?? .max
            #expect(batched < 500, "lookup \(index) of the batch waited: \(result.output)")
        }
        let notAsked = "The Secret Service (gnome-keyring, KeePassXC) did not answer within 1 s when asked earlier, so it was not asked to look up the key for service “\(keyring.service)”, account “app”; check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again."
        #expect(lines.filter { $0.hasSuffix(notAsked) }.count == 2, "\(result.output)")
    }

    /// Each tenant byte for byte as it was, still opening with its key and holding its row.
    private static func expectTenantsAsTheyWere(_ keyring: PrivateKeyring, names: [String], bytes: [Data], keys: [String: TestKey],
                                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (name, data) in zip(names, bytes) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: keyring.path("tenants/\(name).db"))) == data, "\(name) changed", sourceLocation: sourceLocation)
            let read = try SQLCipherShell.run(keyring.path("tenants/\(name).db"), key: keys[name]!, "SELECT count(*) FROM seed;")
            #expect(read.status == 0 && read.stdout == "1\n", "\(name): \(read.output)", sourceLocation: sourceLocation)
        }
    }

    /// No sentence names GLib's internals: error domains, D-Bus error names.
    private static func expectNoGLibNames(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for line in lines {
            for name in ["quark", "secret-error", "GDBus.Error", "org.freedesktop.DBus.Error"] {
                #expect(!line.contains(name), "\(line)", sourceLocation: sourceLocation)
            }
        }
    }

    static let hasKeyring = ["/usr/bin/gnome-keyring-daemon", "/usr/bin/dbus-run-session", "/usr/bin/secret-tool"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A folder with `tenants/`, `keys/` and a private session bus whose only Secret Service
/// is the gnome-keyring a test's script starts, and whose prompter never answers.
private struct PrivateKeyring {
    let directory: TemporaryDirectory
    let service = "org.migrationkit.tests.daemon.\(UUID().uuidString)"

    init() throws {
        directory = try TemporaryDirectory()
        for folder in ["home", "config", "data", "cache", "runtime", "services", "tenants", "keys"] {
            try FileManager.default.createDirectory(atPath: directory.path(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path("runtime"))
        // Started when gnome-keyring asks for a prompt; it never takes the prompter's name
        // (the bus waits for it as long as the test runs) and ends with the bus.
        let prompter = directory.path("prompter.sh")
        try writeExecutableScript(prompter, """
            #!/bin/sh
            exec dbus-monitor --address "$DBUS_STARTER_ADDRESS" "type='signal',interface='org.migrationkit.Nothing'" >/dev/null 2>&1
            """)
        try """
            [D-BUS Service]
            Name=org.gnome.keyring.SystemPrompter
            Exec=\(prompter)
            """.write(toFile: directory.path("services/org.gnome.keyring.SystemPrompter.service"), atomically: true, encoding: .utf8)
        var configuration = PrivateBus.configuration(listeningIn: directory.path("runtime"))
        configuration = configuration.replacingOccurrences(
            of: "  <auth>EXTERNAL</auth>\n",
            with: "  <auth>EXTERNAL</auth>\n  <servicedir>\(directory.path("services"))</servicedir>\n  <limit name=\"service_start_timeout\">600000</limit>\n")
        try configuration.write(toFile: directory.path("bus.conf"), atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { directory.path(name) }

    /// The key of the item `account` the script stores (`locked_keyring_with_items`).
    func item(_ account: String, _ key: TestKey) throws {
        try (key.text + "\n").write(toFile: path("keys/\(account).key"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path("keys/\(account).key"))
    }

    /// Runs `script` by `sh` in the folder, on the private bus, after the functions it uses.
    func run(_ script: String) throws -> ChildProcessResult {
        let functions = #"""
            set -u
            keyring_pid() {
                gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
                    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null |
                    sed -n 's/^(uint32 \([0-9]*\),)$/\1/p'
            }
            answering() {
                gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                    --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Service Collections >/dev/null 2>&1
            }
            wait_for() {
                tries=0
                until "$@"; do
                    tries=$((tries + 1)); [ $tries -gt 400 ] && { echo "gave up waiting for $*"; exit 20; }
                    sleep 0.05
                done
            }
            # The keyring unlocked, each keys/NAME.key stored as item NAME.
            keyring_with_items() {
                printf '%s' "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 21
                wait_for answering
                for key in keys/*.key; do
                    secret-tool store --label=tenant service "$SERVICE" account "$(basename "$key" .key)" < "$key" || exit 22
                done
            }
            # The same, then its login keyring locked.
            locked_keyring_with_items() {
                keyring_with_items
                gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                    --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/collection/login']" >/dev/null || exit 23
            }
            # Records every call of a Secret Service prompt's Prompt method (`prompted`).
            watch_prompts() {
                dbus-monitor "type='method_call',interface='org.freedesktop.Secret.Prompt',member='Prompt'" >prompts.log 2>&1 &
                # Once it is a monitor, the bus takes back the name it had.
                wait_for grep -q "member=NameLost" prompts.log
            }
            prompted() { grep -q "member=Prompt" prompts.log; }

            """#
        let environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": path("home"),
                           "XDG_CONFIG_HOME": path("config"), "XDG_DATA_HOME": path("data"), "XDG_CACHE_HOME": path("cache"),
                           "XDG_RUNTIME_DIR": path("runtime"), "MIGRATIONKIT": Binary.migrationkit, "SQLCIPHER": SQLCipherShell.path,
                           "PROBE": Binary.productsDirectory.appendingPathComponent("KeyStoreProbe").path, "SERVICE": service,
                           "KEYRING_PASSWORD": "migrationkit-daemon-test"]
        return try ChildProcess.run(["/usr/bin/dbus-run-session", "--config-file=\(path("bus.conf"))", "--", "/bin/sh", "-c", functions + script],
                                    environment: environment, directory: directory.url.path, timeout: 120)
    }
}

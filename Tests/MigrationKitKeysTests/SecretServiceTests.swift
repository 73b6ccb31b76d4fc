import Foundation
import MigrationKitTestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Against the real gnome-keyring that scripts/with-test-keyring.sh starts in a private
/// D-Bus session, never a fake and never the user's own keyring. Every test uses its own
/// service name and deletes what it stored.
@Suite(TestKeyring.trait) struct SecretServiceTests {
    let store = SecretServiceKeyStore()
    let secret = "keyring-secret-Hv2"

    @Test func storeLookupReplaceDelete() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("roundtrip")
        defer { _ = try? store.delete(service: service, account: "alice") }

        try store.store(service: service, account: "alice", label: "MigrationKit test", key: .passphrase(secret))
        #expect(try store.lookup(service: service, account: "alice").isSameKey(as: .passphrase(secret)))

        // Replacing keeps one item and changes its secret.
        try store.store(service: service, account: "alice", key: .passphrase(secret + "-new"))
        #expect(try store.lookup(service: service, account: "alice").isSameKey(as: .passphrase(secret + "-new")))
        #expect(try TestKeyring.secretToolCount(["service", service]) == 1)

        // Another account under the same service is another item.
        expectKeyError(.itemNotFound) { _ = try store.lookup(service: service, account: "bob") }

        #expect(try store.delete(service: service, account: "alice"))
        expectKeyError(.itemNotFound) { _ = try store.lookup(service: service, account: "alice") }
        #expect(try store.delete(service: service, account: "alice") == false)
    }

    /// libsecret hands the secret over in its own (locked) memory; the lookup copies it
    /// into `SecretBytes` and releases libsecret's value before returning, so the key
    /// that lives on is in locked, never-dumped pages of ours.
    @Test func aSecretFromTheKeyringLivesInLockedMemory() throws {
        guard TestKeyring.require() else { return }
        let limit = memoryLockLimit() ?? 1
        let service = TestKeyring.uniqueService("locked")
        defer { _ = try? store.delete(service: service, account: "app") }
        try TestKeyring.secretToolStore(secret: secret, attributes: ["service", service, "account", "app"])
        let key = try store.lookup(service: service, account: "app")
        #expect(key.isSameKey(as: .passphrase(secret)))
        #expect(key.isLockedInMemory == (limit > 0), "RLIMIT_MEMLOCK \(limit)")
    }

    @Test func rawKeysAreStoredInTheirTextForm() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("raw")
        defer { _ = try? store.delete(service: service, account: "app") }
        let bytes = (0..<32).map { UInt8(255 - $0) }
        try store.store(service: service, account: "app", key: .rawKey(bytes))
        let key = try store.lookup(service: service, account: "app")
        #expect(key.kind == .rawKey)
        #expect(key.isSameKey(as: .rawKey(bytes)))
        // What secret-tool sees is the x'<hex>' text another tool can use as is.
        let shown = try runProgram(Paths.program("secret-tool") ?? "/usr/bin/secret-tool", ["lookup", "service", service, "account", "app"])
        let matches = shown.stdout == rawKeyText(bytes)
        #expect(matches, "secret-tool does not show the raw key's text form")
    }

    @Test func itemsStoredBySecretToolAreFound() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("secret-tool")
        defer { TestKeyring.secretToolClear(["service", service, "account", "carol"]) }
        try TestKeyring.secretToolStore(secret: secret, attributes: ["service", service, "account", "carol"])
        #expect(try store.lookup(service: service, account: "carol").isSameKey(as: .passphrase(secret)))
        #expect(try KeySource.secretService(service: service, account: "carol").resolve().isSameKey(as: .passphrase(secret)))
    }

    @Test func pythonKeyringsServiceUsernameFormIsFoundToo() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("keyring")
        defer {
            TestKeyring.secretToolClear(["service", service, "username", "dave"])
            TestKeyring.secretToolClear(["service", service, "account", "dave"])
        }
        try TestKeyring.secretToolStore(secret: secret, attributes: ["service", service, "username", "dave"])
        #expect(try store.lookup(service: service, account: "dave").isSameKey(as: .passphrase(secret)))

        // Both forms holding the same key (the item's text may differ by its line break):
        // one key, whichever is read.
        try TestKeyring.secretToolStore(secret: secret + "\n", attributes: ["service", service, "account", "dave"])
        #expect(try store.lookup(service: service, account: "dave").isSameKey(as: .passphrase(secret)))

        // delete removes both, so nothing is left for a lookup to find.
        #expect(try store.delete(service: service, account: "dave"))
        expectKeyError(.itemNotFound) { _ = try store.lookup(service: service, account: "dave") }
    }

    /// Two items that either convention finds and that hold different keys (a Python app
    /// rotated its item, another tool stored a second copy): the lookup says so instead of
    /// returning whichever the provider lists first, and names no secret.
    @Test func itemsThatDisagreeAreRefusedNotPickedFrom() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("ambiguous")
        defer { _ = try? store.delete(service: service, account: "ivan") }
        for (form, text) in [("account", secret + "-one"), ("username", secret + "-two")] {
            try TestKeyring.secretToolStore(secret: text, attributes: ["service", service, form, "ivan"])
        }
        let error = expectKeyError(.ambiguousItems) { _ = try store.lookup(service: service, account: "ivan") }
        #expect(error?.message.contains("2 items") == true, "\(String(describing: error))")
        // The library names its own API; the command line words the remedy as `key store`.
        #expect(error?.remedy == .storeKeyAgain(service: service, account: "ivan"))
        #expect(error?.message.contains("SecretServiceKeyStore.store") == true, "\(String(describing: error))")
        #expect(error?.message.contains(secret) == false)
        // Two copies in the same form disagree just the same.
        let copies = TestKeyring.uniqueService("ambiguous-copies")
        defer { TestKeyring.secretToolClear(["service", copies, "account", "ivan"]) }
        try TestKeyring.secretToolStore(secret: secret + "-one", attributes: ["service", copies, "account", "ivan", "copy", "1"])
        try TestKeyring.secretToolStore(secret: secret + "-two", attributes: ["service", copies, "account", "ivan", "copy", "2"])
        expectKeyError(.ambiguousItems) { _ = try store.lookup(service: copies, account: "ivan") }

        // Storing replaces them all: one item, the new key, for either convention.
        try store.store(service: service, account: "ivan", key: .passphrase(secret + "-new"))
        #expect(try store.lookup(service: service, account: "ivan").isSameKey(as: .passphrase(secret + "-new")))
        #expect(try TestKeyring.secretToolCount(["service", service]) == 1)
    }

    /// The item `store` makes is the one `secret-tool lookup … account A` and Python's
    /// `keyring` (service + username) find; a Python-keyring item it replaces is gone.
    @Test func aStoredItemCarriesBothConventionsAndReplacesAPythonKeyringItem() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("conventions")
        defer { _ = try? store.delete(service: service, account: "judy") }
        try TestKeyring.secretToolStore(secret: secret + "-old", attributes: ["service", service, "username", "judy", "application", "Python keyring library"])
        try store.store(service: service, account: "judy", key: .passphrase(secret + "-new"))
        #expect(try TestKeyring.secretToolCount(["service", service]) == 1)
        for form in ["account", "username"] {
            let shown = try runProgram(Paths.program("secret-tool") ?? "/usr/bin/secret-tool", ["lookup", "service", service, form, "judy"])
            #expect(shown.stdout == secret + "-new", "secret-tool lookup by \(form)")
        }
        #expect(try TestKeyring.secretToolCount(["service", service, "xdg:schema", SecretServiceKeyStore.schemaName]) == 1)
    }

    @Test func storingReplacesAnItemSecretToolMade() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("replace-foreign")
        defer { _ = try? store.delete(service: service, account: "erin") }
        try TestKeyring.secretToolStore(secret: secret + "-old", attributes: ["service", service, "account", "erin"])
        try store.store(service: service, account: "erin", key: .passphrase(secret + "-new"))
        // gnome-keyring alone would keep both items (ours has an extra xdg:schema).
        #expect(try TestKeyring.secretToolCount(["service", service, "account", "erin"]) == 1)
        for _ in 0..<3 {
            #expect(try store.lookup(service: service, account: "erin").isSameKey(as: .passphrase(secret + "-new")))
        }
    }

    @Test func aMissingItemIsNamedButNoSecretIs() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("missing")
        let error = expectKeyError(.itemNotFound) { _ = try store.lookup(service: service, account: "frank") }
        #expect(error?.message.contains(service) == true)
        #expect(error?.message.contains("frank") == true)
        #expect(error?.message.contains("secret-tool store") == true)
        expectKeyError(.itemNotFound) { _ = try KeySource.secretService(service: service, account: "frank").resolve() }
        #expect(try store.delete(service: service, account: "frank") == false)
    }

    @Test func keysFromTheKeyringNeverAppearInOutput() throws {
        guard TestKeyring.require() else { return }
        let service = TestKeyring.uniqueService("redaction")
        defer { _ = try? store.delete(service: service, account: "gina") }
        try store.store(service: service, account: "gina", key: .passphrase(secret))
        let result = try runProbe(["resolve", "keychain", service, "gina"], environment: inheritedEnvironment())
        #expect(result.lines == ["key passphrase"], "\(result.stderr)")
        #expect(!result.mentions(secret))
        let key = try store.lookup(service: service, account: "gina")
        #expect(!"\(key)".contains(secret))
    }
}

/// Failures that need a process of their own: libsecret caches its bus connection per
/// process, so "no bus", "no provider" and "locked" each run in a fresh probe.
@Suite struct SecretServiceFailureTests {
    @Test func emptyNamesAreRefusedBeforeAnyBusIsTouched() {
        let store = SecretServiceKeyStore()
        expectKeyError(.invalidItemName) { _ = try store.lookup(service: "", account: "a") }
        expectKeyError(.invalidItemName) { try store.store(service: "s", account: "", key: .passphrase("x")) }
        expectKeyError(.invalidItemName) { _ = try store.delete(service: "", account: "") }
    }

    /// A key SQLCipher could not use is refused by the key store itself, which no longer
    /// links SQLCipher, before any bus is touched.
    /// A passphrase the key text rule would read back as another key (its line break at
    /// the end dropped) is never stored as an item's text: a lookup would give another key.
    @Test func aKeyWhoseTextWouldReadBackAsAnotherIsNotStored() {
        let store = SecretServiceKeyStore()
        for ending: [UInt8] in [[0x0A], [0x0D], [0x0D, 0x0A]] {
            let key = DatabaseKey.passphrase(bytes: SecretBytes(copying: [0x9C, 0x01, 0xFE] + ending))
            let error = expectKeyError(.keyNotStorableAsText) { try store.store(service: "s", account: "a", key: key) }
            #expect(error?.message.contains("hex key file") == true, "\(String(describing: error))")
        }
        let bom = DatabaseKey.passphrase(bytes: SecretBytes(copying: [0xEF, 0xBB, 0xBF, 0x41]))
        expectKeyError(.keyNotStorableAsText) { try store.store(service: "s", account: "a", key: bom) }
    }

    @Test func unusableKeysAreRefusedBeforeAnyBusIsTouched() {
        let store = SecretServiceKeyStore()
        let empty = expectKeyError(.unusableKey) { try store.store(service: "s", account: "a", key: .passphrase("")) }
        #expect(empty?.message.contains("empty") == true)
        let short = expectKeyError(.unusableKey) { try store.store(service: "s", account: "a", key: .rawKey([1, 2, 3])) }
        #expect(short?.message.contains("32 bytes") == true)
    }

    @Test func withoutASessionBusTheErrorSaysHowToGetOne() throws {
        let directory = try TemporaryDirectory()
        // No DBUS_SESSION_BUS_ADDRESS, DISPLAY or XDG_RUNTIME_DIR: GLib cannot find or
        // autolaunch a bus.
        let environment = isolatedEnvironment(home: directory.url.path)
        for arguments in [["resolve", "keychain", "svc", "acct"], ["delete", "svc", "acct"], ["store", "svc", "acct", "password", "pw-Nb6"]] {
            let result = try runProbe(arguments, environment: environment)
            #expect(result.errorCode == "noSessionBus", "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("dbus-run-session"))
            #expect(result.stderr.contains("read the key from a file instead"))
            #expect(!result.mentions("pw-Nb6"))
        }
        // A stale address (the bus went away) is the same situation.
        let stale = try runProbe(["resolve", "keychain", "svc", "acct"],
                                 environment: isolatedEnvironment(home: directory.url.path, extra: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory.path("gone"))"]))
        #expect(stale.errorCode == "noSessionBus", "\(stale.stderr)")
    }

    @Test(.enabled(if: Paths.program("dbus-run-session") != nil || TestKeyring.isCI, "dbus-run-session is not installed"))
    func aBusWithoutAProviderSaysWhatToStart() throws {
        let directory = try TemporaryDirectory()
        // A session bus that can activate nothing: the system's bus would start
        // gnome-keyring on demand through its org.freedesktop.secrets.service file.
        let config = directory.path("bus.conf")
        try PrivateBus.configuration(listeningIn: directory.url.path).write(toFile: config, atomically: true, encoding: .utf8)
        let result = try runProgram(Paths.program("dbus-run-session") ?? "/usr/bin/dbus-run-session",
                                    ["--config-file=\(config)", "--", Paths.probe, "resolve", "keychain", "svc", "acct"],
                                    environment: isolatedEnvironment(home: directory.url.path))
        #expect(result.errorCode == "noSecretService", "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("gnome-keyring-daemon"))
        #expect(result.stderr.contains("KeePassXC"))
    }

    /// Locks the login collection of a keyring of its own (a nested with-test-keyring.sh),
    /// so the keyring the other tests share is never locked under them.
    @Test(TestKeyring.trait) func aLockedKeyringIsToldApartFromAMissingItem() throws {
        guard TestKeyring.require() else { return }
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("key", "locked-secret-Pm3")
        let script = """
            set -u
            probe="$1"; keyfile="$2"
            "$probe" store locked-svc acct file "$keyfile" >/dev/null || exit 10
            gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/collection/login']" >/dev/null || exit 11
            start=$(date +%s%N)
            echo "lookup: $("$probe" resolve keychain locked-svc acct 2>/dev/null)"
            echo "lookup-ms: $((($(date +%s%N) - start) / 1000000))"
            echo "fallback: $("$probe" resolve keychain locked-svc nobody 2>/dev/null)"
            echo "store: $("$probe" store other-svc acct file "$keyfile" 2>/dev/null)"
            echo "delete: $("$probe" delete locked-svc acct 2>/dev/null)"
            "$probe" resolve keychain locked-svc acct
            """
        var environment = inheritedEnvironment()
        // A fresh private session, not the one these tests run in.
        for name in ["MIGRATIONKIT_INSIDE_TEST_KEYRING", "DBUS_SESSION_BUS_ADDRESS", "MIGRATIONKIT_TEST_KEYRING"] {
            environment.removeValue(forKey: name)
        }
        environment["CI"] = "true"  // fail rather than run without a keyring
        let result = try runProgram(Paths.withTestKeyring, ["/bin/sh", "-c", script, "sh", Paths.probe, keyFile],
                                    environment: environment, timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.lines.contains("lookup: error keyringLocked"), "\(result.stdout)")
        // At once, as for KeePassXC (KeyringInteropTests): the unlock prompt that cannot
        // be shown fails at once, and no call waits for D-Bus's 25 seconds.
        let milliseconds = result.lines.first { $0.hasPrefix("lookup-ms: ") }.flatMap { Int($0.dropFirst(11)) } ?? .max
        #expect(milliseconds < 5_000, "\(result.stdout)")
        // An account that does not exist is still "not found", locked keyring or not.
        #expect(result.lines.contains("fallback: error itemNotFound"), "\(result.stdout)")
        // Storing into the locked default collection (the probe prints the key kind first).
        #expect(result.stdout.contains("store: key passphrase\nerror keyringLocked"), "\(result.stdout)")
        #expect(result.lines.contains("delete: error keyringLocked"), "\(result.stdout)")
        #expect(result.stderr.contains("locked keyring"))
        #expect(result.stderr.contains("locked-svc"))
        // GLib's domain and code are the error's `glibError`, never its sentence.
        #expect(!result.stderr.contains("secret-error") && !result.stderr.contains("quark"), "\(result.stderr)")
        #expect(!result.mentions("locked-secret-Pm3"))
    }
}

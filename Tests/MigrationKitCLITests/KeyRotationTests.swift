import Foundation
@testable import MigrationKitCLI
@testable import MigrationKitCommands
import MigrationKitCLITestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rekey --new-key generate` over a fleet, as docs/fleets.md's rotation runs it: a new key
/// is published to its place only once its tenant is on it, read back from there and
/// proven before the old one is retired, read back once more at the end, and a run stopped
/// or disturbed anywhere leaves every tenant opening with a key found where the docs say.
/// (A rotation beside a cleaner, killed at random moments: MigrationKitCLIProcessTests.)
@Suite struct KeyRotationTests {
    /// Tenants in `tenants/`, each with its own raw key in `keys/NAME.key`, made by the shell.
    private struct Tenants {
        let workspace: Workspace
        let names: [String]

        init(_ count: Int) throws {
            workspace = try Workspace()
            for folder in ["tenants", "keys"] {
                try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
            }
            names = (0..<count).map { "tenant\($0)" }
            for name in names {
                let key = TestKey.raw()
                try workspace.write("keys/\(name).key", key.text + "\n", mode: 0o600)
                let made = try SQLCipherShell.run(database(name), key: key, "CREATE TABLE seed (x); INSERT INTO seed VALUES ('kept');")
                try #require(made.status == 0, "\(made.output)")
            }
        }

        func database(_ name: String) -> String { workspace.path("tenants/\(name).db") }

        func run(_ arguments: [String]) throws -> CommandResult {
            try Tool.run(arguments + ["--migrations", workspace.migrations], directory: workspace.root)
        }

        /// The key in `keys/NAME.SUFFIX`, or nil when there is no such file.
        func key(_ name: String, _ suffix: String = "key") -> TestKey? {
            guard let text = try? String(contentsOfFile: workspace.path("keys/\(name).\(suffix)"), encoding: .utf8) else { return nil }
            return TestKey(text: text.trimmingCharacters(in: .newlines))
        }

        /// Whether `key` opens the tenant and reads its row.
        func opens(_ name: String, with key: TestKey?) throws -> Bool {
            guard let key else { return false }
            let read = try SQLCipherShell.run(database(name), key: key, "SELECT x FROM seed;")
            return read.status == 0 && read.stdout == "kept\n"
        }

        /// The MigrationKit files left in the key folder (staged keys, write temporaries).
        var leftovers: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: workspace.path("keys"))) ?? []).filter { $0.contains("migrationkit") }.sorted()
        }
    }

    /// The recipe's rotation in place: the app reads `keys/NAME.key`, and after the run that
    /// file holds the tenant's new key, proven; nothing is left beside it; a rerun finds
    /// every tenant done.
    @Test func aRotationInPlaceLeavesEachTenantItsOneKeyFile() throws {
        let tenants = try Tenants(3)
        let before = tenants.names.map { tenants.key($0) }
        let rotation = ["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.key",
                        "--new-key", "generate", "--no-backup"]
        let rotated = try tenants.run(rotation + ["--json"])
        #expect(rotated.status == 0, "\(rotated.output)")
        let entries = try decodeJSON(rotated.stdout)["databases"] as? [[String: Any]] ?? []
        #expect(entries.count == 3 && entries.allSatisfy { ($0["report"] as? [String: Any])?["oldKey"] as? String == "replaced" }, "\(rotated.stdout)")
        for (index, name) in tenants.names.enumerated() {
            #expect(tenants.key(name) != before[index], "\(name) kept its key")
            #expect(try tenants.opens(name, with: tenants.key(name)), "\(name) does not open with the key in its file")
            #expect(try !tenants.opens(name, with: before[index]), "\(name) still opens with its old key")
        }
        #expect(tenants.leftovers.isEmpty, "\(tenants.leftovers)")
        let rerun = try tenants.run(rotation)
        #expect(rerun.status == 0 && rerun.stdout.contains("3 done"), "\(rerun.output)")
        let backedUp = try tenants.run(Array(rotation.dropLast()))
        #expect(backedUp.exitCode == .usage && backedUp.stderr.contains("give --no-backup") && backedUp.stdout.isEmpty, "\(backedUp.output)")
    }

    /// One database rotated in place: refused without `--new-key generate` (the key in
    /// its place is the current one) and with a backup (no key would open it), each
    /// before anything changes; with both, its one key file holds the new key.
    @Test func aRotationInPlaceOfOneDatabaseNeedsAGeneratedKeyAndNoBackup() throws {
        let tenants = try Tenants(1)
        let name = tenants.names[0]
        let before = tenants.key(name)
        let inPlace = ["rekey", "--db-path", "tenants/\(name).db", "--password-file", "keys/\(name).key", "--new-password-file", "keys/\(name).key"]
        let given = try tenants.run(inPlace + ["--no-backup"])
        #expect(given.exitCode == .usage && given.stderr.contains("give --new-key generate"), "\(given.output)")
        let backedUp = try tenants.run(inPlace + ["--new-key", "generate"])
        #expect(backedUp.exitCode == .usage && backedUp.stderr.contains("give --no-backup"), "\(backedUp.output)")
        #expect(tenants.key(name) == before && tenants.leftovers.isEmpty, "a refused rotation changed the key folder: \(tenants.leftovers)")
        #expect(try tenants.opens(name, with: before))
        let rotated = try tenants.run(inPlace + ["--new-key", "generate", "--no-backup"])
        #expect(rotated.status == 0, "\(rotated.output)")
        #expect(tenants.key(name) != before, "\(rotated.output)")
        #expect(try tenants.opens(name, with: tenants.key(name)), "\(rotated.output)")
    }

    /// The current key's file named another way: a hard link is the same file (a rotation
    /// in place, refused without `--new-key generate`), and a key file whose other names
    /// a rename would leave on the old key is refused before the database changes; the
    /// same file read as hex digits by one option and as text by the other is refused too.
    @Test func theCurrentKeyFileUnderAnotherNameIsTheSamePlace() throws {
        let tenants = try Tenants(1)
        let name = tenants.names[0]
        let before = tenants.key(name)
        let database = try fileBytes(tenants.database(name))
        #expect(link(tenants.workspace.path("keys/\(name).key"), tenants.workspace.path("keys/\(name).link")) == 0)
        let rekey = ["rekey", "--db-path", "tenants/\(name).db", "--password-file", "keys/\(name).key", "--no-backup"]
        let given = try tenants.run(rekey + ["--new-password-file", "keys/\(name).link"])
        #expect(given.exitCode == .usage && given.stderr.contains("give --new-key generate"), "\(given.output)")
        let generated = try tenants.run(rekey + ["--new-password-file", "keys/\(name).link", "--new-key", "generate"])
        #expect(generated.status != 0 && generated.stderr.contains("names (hard links)") && generated.stderr.split(separator: "\n").count == 1, "\(generated.output)")
        let hex = try tenants.run(["rekey", "--db-path", "tenants/\(name).db", "--password-file", "keys/\(name).key", "--no-backup",
                                   "--new-password-hex-file", "keys/\(name).key", "--new-key", "generate"])
        #expect(hex.exitCode == .usage && hex.stderr.contains("read as hex digits by one option"), "\(hex.output)")
        #expect(try fileBytes(tenants.database(name)) == database)
        #expect(tenants.key(name) == before && tenants.key(name, "link") == before)
        #expect(tenants.leftovers.isEmpty, "\(tenants.leftovers)")
    }

    /// docs/fleets.md's monthly unit, its `ExecStart=` line run as written (its folders
    /// moved into the test's): every tenant ends on a new key in the one file the app
    /// reads, twice in a row, as two months of the timer would.
    @Test func theDocumentedMonthlyUnitRotatesEveryTenantInItsOneKeyFile() throws {
        let tenants = try Tenants(2)
        let article = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/fleets.md"), encoding: .utf8)
        let line = try #require(article.split(separator: "\n").first { $0.hasPrefix("ExecStart=/usr/bin/migrationkit ") }, "docs/fleets.md has no ExecStart line")
        var arguments: [String] = []
        var word = ""
        var quoted = false
        for character in line.dropFirst("ExecStart=/usr/bin/migrationkit ".count) {
            if character == "\"" { quoted.toggle(); continue }
            if character == " ", !quoted { if !word.isEmpty { arguments.append(word) }; word = ""; continue }
            word.append(character)
        }
        if !word.isEmpty { arguments.append(word) }
        arguments = arguments.map {
            $0.replacingOccurrences(of: "/srv/myapp/tenants", with: tenants.workspace.path("tenants"))
                .replacingOccurrences(of: "/etc/myapp/keys", with: tenants.workspace.path("keys"))
        }
        for month in 1...2 {
            let before = tenants.names.map { tenants.key($0) }
            let rotated = try tenants.run(arguments)
            #expect(rotated.status == 0 && rotated.stdout.isEmpty, "month \(month): \(rotated.output)")
            for (index, name) in tenants.names.enumerated() {
                let opens = try tenants.opens(name, with: tenants.key(name))
                #expect(tenants.key(name) != before[index] && opens, "month \(month): \(name)")
            }
        }
        #expect(tenants.leftovers.isEmpty, "\(tenants.leftovers)")
    }

    /// A tenant whose rekey cannot happen (another connection holds it) gets no new key
    /// where the app or next month's rotation would take it for the live one, and nothing
    /// staged for it is left; the others are rotated.
    @Test func aTenantThatWasNotRekeyedGetsNoPublishedKey() throws {
        let tenants = try Tenants(2)
        let reader = try ShellInReadTransaction(tenants.database("tenant1"), key: try #require(tenants.key("tenant1")), reading: "seed")
        defer { reader.end() }
        let rotated = try tenants.run(["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next",
                                       "--new-key", "generate", "--old-key", "delete", "--no-backup", "--lock-timeout", "1"])
        #expect(rotated.exitCode == .locked, "\(rotated.output)")
        #expect(try tenants.opens("tenant0", with: tenants.key("tenant0", "next")) && tenants.key("tenant0") == nil, "tenant0 was not rotated")
        #expect(tenants.key("tenant1", "next") == nil, "a key that does not open tenant1 was published for it")
        #expect(try tenants.opens("tenant1", with: tenants.key("tenant1")), "tenant1 lost its key")
        #expect(tenants.leftovers.isEmpty, "\(tenants.leftovers)")
    }

    /// Killed after its tenant's rekey committed and before the key's publication: the
    /// key is kept staged beside its place, and the next run publishes it, proves it and
    /// retires the old key. (The state is made as a kill leaves it: the shell rekeys the
    /// tenant to the staged key.)
    @Test func aKeyStagedByAStoppedRunIsPublishedByTheNextOne() throws {
        let tenants = try Tenants(1)
        let staged = TestKey.raw()
        try tenants.workspace.write("keys/.tenant0.next.migrationkit-new-key", staged.text + "\n", mode: 0o600)
        let old = try #require(tenants.key("tenant0"))
        #expect(try SQLCipherShell.run(tenants.database("tenant0"), key: old, "PRAGMA rekey = \(staged.pragma);").status == 0)
        let rotated = try tenants.run(["rekey", "--db-path", "tenants/tenant0.db", "--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next",
                                       "--new-key", "generate", "--old-key", "delete", "--no-backup"])
        #expect(rotated.status == 0 && rotated.stdout.contains("published it to keys/tenant0.next"), "\(rotated.output)")
        #expect(tenants.key("tenant0", "next") == staged && tenants.key("tenant0") == nil, "the staged key was not published, or the old one not retired")
        #expect(tenants.leftovers.isEmpty, "\(tenants.leftovers)")
    }

    /// The rotation's last look at a tenant (`PublishedKey.finish`), with the new key file
    /// removed right after the old key is deleted: the key is written back once, mode
    /// 0600, the copy kept beside it stays, and the tenant fails with a sentence naming
    /// the file and the cause, never the key; the command run again finishes the tenant.
    @Test func aNewKeyRemovedOnceTheOldOneIsDeletedIsWrittenBackAndItsTenantFails() throws {
        let tenants = try Tenants(1)
        let (new, published) = try publishedNewKey(tenants, place: { .file(path: tenants.workspace.path("keys/tenant0.next")) })
        let oldKeyFile = tenants.workspace.path("keys/tenant0.key")
        let failure = #expect(throws: CLIError.self) {
            try published.finish(retiring: .file(path: oldKeyFile), afterRetiring: { unlink(tenants.workspace.path("keys/tenant0.next")) })
        }
        let message = failure?.message ?? ""
        #expect(failure?.reason == .newKeyNotStored && failure?.exitCode == .keyUnavailable)
        #expect(message.contains("keys/tenant0.next does not hold it (it was removed after the key was proven there)")
                    && message.contains("written back there once") && message.contains("The old key is deleted")
                    && message.contains("is kept in \(tenants.workspace.path("keys/.tenant0.next.migrationkit-new-key"))"), "\(message)")
        #expect(!message.contains(new.text))
        #expect(tenants.key("tenant0", "next") == new && tenants.key(".tenant0", "next.migrationkit-new-key") == new && tenants.key("tenant0") == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: tenants.workspace.path("keys/tenant0.next"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try tenants.opens("tenant0", with: tenants.key("tenant0", "next")))

        let rerun = try tenants.run(["rekey", "--db-path", "tenants/tenant0.db", "--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next",
                                     "--new-key", "generate", "--old-key", "delete", "--no-backup"])
        #expect(rerun.status == 0 && rerun.stdout.contains("already opens with the new key"), "\(rerun.output)")
        #expect(tenants.key("tenant0", "next") == new && tenants.leftovers.isEmpty, "\(tenants.leftovers)")
    }

    /// The same last look with nothing removed: the copy kept beside the key file becomes
    /// the key file (a rename of the same key), and nothing else is left; with another
    /// key put there meanwhile, that key is left as it is and the tenant fails.
    @Test func theLastLookGivesUpTheKeptCopyOnlyForTheKeyAtItsPlace() throws {
        let tenants = try Tenants(2)
        let (new, published) = try publishedNewKey(tenants, place: { .file(path: tenants.workspace.path("keys/tenant0.next")) })
        try published.finish(retiring: .file(path: tenants.workspace.path("keys/tenant0.key")))
        #expect(tenants.key("tenant0", "next") == new && tenants.key("tenant0") == nil && tenants.leftovers.isEmpty, "\(tenants.leftovers)")
        #expect(try tenants.opens("tenant0", with: new))

        let (other, replaced) = try publishedNewKey(tenants, name: "tenant1", place: { .file(path: tenants.workspace.path("keys/tenant1.next")) })
        let stranger = TestKey.raw()
        let failure = #expect(throws: CLIError.self) {
            try replaced.finish(retiring: nil, afterRetiring: { try tenants.workspace.write("keys/tenant1.next", stranger.text + "\n", mode: 0o600) })
        }
        #expect(failure?.message.contains("holds another key, left as it is") == true && failure?.message.contains("old key was left where it was") == true,
                "\(failure?.message ?? "")")
        #expect(tenants.key("tenant1", "next") == stranger && tenants.key(".tenant1", "next.migrationkit-new-key") == other)
        #expect(try tenants.opens("tenant1", with: other))
    }

    /// A new key the user gave in a hex key file (not generated, so kept nowhere else),
    /// removed once the old key is deleted: written back once, in hex, mode 0600, and the
    /// tenant fails; the key file opens the tenant.
    @Test func aGivenHexKeyFileRemovedAtTheEndIsWrittenBackInHex() throws {
        let tenants = try Tenants(1)
        let new = TestKey.raw()
        let old = try #require(tenants.key("tenant0"))
        let database = tenants.database("tenant0")
        #expect(try SQLCipherShell.run(database, key: old, "PRAGMA rekey = \(new.pragma);").status == 0)
        let hexFile = tenants.workspace.path("keys/tenant0.hex")
        try tenants.workspace.write("keys/tenant0.hex", Array(new.text.utf8).map { String(format: "%02x", $0) }.joined() + "\n", mode: 0o600)
        let published = PublishedKey(key: new.databaseKey, place: .hex(.file(path: hexFile)), staged: nil, database: database, ownedLike: nil,
                                     inPlace: false, publishes: false, opens: { key in (try? SQLCipherWriter(path: database, key: key)) != nil },
                                     putBack: { Issue.record("a key file is written back, never put back") },
                                     world: CommandWorld(layer: SQLCipherCommandLayer(host: .sqlFiles), root: RootCommand.self))
        let failure = #expect(throws: CLIError.self) {
            try published.finish(retiring: .file(path: tenants.workspace.path("keys/tenant0.key")), afterRetiring: { unlink(hexFile) })
        }
        #expect(failure?.message.contains("written back there once") == true && failure?.message.contains("Stop whatever removes \(hexFile)") == true,
                "\(failure?.message ?? "")")
        let mode = try FileManager.default.attributesOfItem(atPath: hexFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let status = try tenants.run(["status", "--db-path", "tenants/tenant0.db", "--password-hex-file", "keys/tenant0.hex"])
        #expect(status.status == 0, "\(status.output)")
    }

    /// The last look at a key in a Secret Service item deleted right after the old key's
    /// item: the item is stored back once, the kept item stays, the tenant fails; the
    /// command run again finishes it.
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func aNewKeyItemDeletedOnceTheOldOneIsDeletedIsStoredBackAndItsTenantFails() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let rotation = try ItemRotation(publishing: publishedNewKey)
        defer { rotation.clear() }
        let (tenants, service, new, published, item) = (rotation.tenants, rotation.service, rotation.new, rotation.published, rotation.item)
        let failure = #expect(throws: CLIError.self) {
            try published.finish(retiring: .secretService(service: service, account: "tenant0"), afterRetiring: {
                let cleared = try Binary.run(["clear", "service", service, "account", "tenant0.next"], executable: "/usr/bin/secret-tool")
                #expect(cleared.status == 0, "\(cleared.output)")
            })
        }
        let message = failure?.message ?? ""
        #expect(message.contains("account \"tenant0.next\" does not hold it (it was removed after the key was proven there)")
                    && message.contains("account \"tenant0.next.migrationkit-new-key\""), "\(message)")
        #expect(try item("tenant0.next") == new && item("tenant0.next.migrationkit-new-key") == new && item("tenant0") == nil)

        let rerun = try tenants.run(["rekey", "--db-path", "tenants/tenant0.db", "--keychain-service", service, "--keychain-account", "{name}",
                                     "--new-keychain-service", service, "--new-keychain-account", "{name}.next",
                                     "--new-key", "generate", "--old-key", "delete", "--no-backup"])
        #expect(rerun.status == 0 && rerun.stdout.contains("already opens with the new key"), "\(rerun.output)")
        #expect(try item("tenant0.next") == new && item("tenant0.next.migrationkit-new-key") == nil)
    }

    /// The look after an item's staged copy is given up finds another key at its place (a
    /// store, a cleaner, an item deleted while it is read): the copy is kept again before
    /// the tenant fails, so the key is where the sentence says and the command run again
    /// finishes it.
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func aLastLookThatFailsAfterTheKeptItemIsGivenUpKeepsItAgain() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let rotation = try ItemRotation(publishing: publishedNewKey)
        defer { rotation.clear() }
        let (service, new, published, item) = (rotation.service, rotation.new, rotation.published, rotation.item)
        let stranger = TestKey.raw()
        let failure = #expect(throws: CLIError.self) {
            try published.finish(retiring: .secretService(service: service, account: "tenant0"), afterReleasing: {
                let replaced = try Binary.run(["store", "--label", "stranger", "service", service, "account", "tenant0.next"],
                                              executable: "/usr/bin/secret-tool", stdin: stranger.text)
                #expect(replaced.status == 0, "\(replaced.output)")
            })
        }
        let message = failure?.message ?? ""
        #expect(message.contains("account \"tenant0.next\" does not hold it (it holds another key, left as it is)")
                    && message.contains("The new key is kept in the Secret Service item for service \"\(service)\", account \"tenant0.next.migrationkit-new-key\""),
                "\(message)")
        #expect(try item("tenant0.next.migrationkit-new-key") == new && item("tenant0.next") == stranger && item("tenant0") == nil)
    }

    /// One tenant whose old key is in a Secret Service item of a service of its own, as a
    /// rotation to the item `tenant0.next` leaves it just before the old key is retired;
    /// `clear()` removes its items.
    private struct ItemRotation {
        let tenants: Tenants
        let service = "org.migrationkit.tests.last-look.\(UUID().uuidString)"
        let new: TestKey
        let published: PublishedKey

        init(publishing: (Tenants, String, () -> KeySource) throws -> (TestKey, PublishedKey)) throws {
            tenants = try Tenants(1)
            let old = try #require(tenants.key("tenant0"))
            #expect(try Binary.run(["store", "--label", "old", "service", service, "account", "tenant0"], executable: "/usr/bin/secret-tool", stdin: old.text).status == 0)
            let service = service
            (new, published) = try publishing(tenants, "tenant0") { .secretService(service: service, account: "tenant0.next") }
        }

        /// The key in the item for `account`, or nil.
        func item(_ account: String) throws -> TestKey? {
            let found = try Binary.run(["lookup", "service", service, "account", account], executable: "/usr/bin/secret-tool")
            return found.status == 0 && !found.stdout.isEmpty ? TestKey(text: found.stdout.trimmingCharacters(in: .newlines)) : nil
        }

        func clear() {
            for account in ["tenant0", "tenant0.next", "tenant0.next.migrationkit-new-key"] {
                _ = try? Binary.run(["clear", "service", service, "account", account], executable: "/usr/bin/secret-tool")
            }
        }
    }

    /// A tenant as a rotation leaves it just before its old key is retired: on a new raw
    /// key (rekeyed by the shell), that key written to `place` and kept beside it.
    private func publishedNewKey(_ tenants: Tenants, name: String = "tenant0", place: () -> KeySource) throws -> (TestKey, PublishedKey) {
        let new = TestKey.raw()
        let old = try #require(tenants.key(name))
        let database = tenants.database(name)
        #expect(try SQLCipherShell.run(database, key: old, "PRAGMA rekey = \(new.pragma);").status == 0)
        let stage = try #require(KeyStage(publishingTo: place(), reading: .processDefaults))
        try KeyStage.write(new.databaseKey, to: stage.place, ownedLike: nil, .processDefaults)
        try stage.write(new.databaseKey, ownedLike: nil)
        let published = PublishedKey(key: new.databaseKey, place: stage.place, staged: stage, database: database, ownedLike: nil, inPlace: false,
                                     publishes: true, opens: { key in (try? SQLCipherWriter(path: database, key: key)) != nil },
                                     putBack: { Issue.record("a key file or item is written back, never put back") },
                                     world: CommandWorld(layer: SQLCipherCommandLayer(host: .sqlFiles), root: RootCommand.self))
        return (new, published)
    }
}

import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `rekey --new-key generate --new-key-store-command CMD --new-password-command CMD2`: the
/// new key is handed to the store command and read back through the key command before
/// the database changes, proven from the store after the rekey, and only then is the old
/// key retired. A store that fails, overstays or keeps another key leaves the database on
/// its old key, which still opens it.
@Suite struct KeyCommandRotationTests {
    /// A migrated workspace with a `store/` folder standing in for a secret store.
    private func migrated() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--no-backup"])
        try #require(migrate.status == 0, "\(migrate)")
        try FileManager.default.createDirectory(atPath: workspace.path("store"), withIntermediateDirectories: false)
        return workspace
    }

    private func storedKey(_ workspace: Workspace, _ name: String) throws -> TestKey {
        TestKey(text: try String(contentsOfFile: workspace.path("store/\(name).key"), encoding: .utf8).trimmingCharacters(in: .newlines))
    }

    private func opens(_ workspace: Workspace, _ key: TestKey) throws -> Bool {
        try SQLCipherShell.run(workspace.database, key: key, "SELECT count(*) FROM sqlite_master;").status == 0
    }

    @Test func theNewKeyIsStoredAndReadBackBeforeTheDatabaseChangesAndProvenFromTheStoreAfter() throws {
        let workspace = try migrated()
        let oldKey = workspace.key
        // A key already in the store, or kept beside the database by a run that never
        // rekeyed, is not reused: the rotation makes its own.
        let placed = TestKey.raw()
        try workspace.write("store/app.key", placed.text + "\n", mode: 0o600)
        try workspace.write(Self.keptCopy, placed.text + "\n", mode: 0o600)
        // Each read-back keeps a copy of the database as it was at that moment; the store
        // command, the key kept beside the database then.
        let result = try workspace.run("rekey", [
            "--new-key", "generate", "--old-key", "delete", "--no-backup",
            "--new-key-store-command", "!echo store >> calls; cp \(Self.keptCopy) seen-kept; echo said-by-the-store; tr '\\0' ' ' < /proc/$$/cmdline > seen-store; env >> seen-store; umask 077; cat > store/{name}.key",
            "--new-password-command", "!echo read >> calls; cp app.db \"seen-$(wc -l < calls).db\"; cat store/{name}.key",
        ])
        #expect(result.status == 0, "\(result)")
        let newKey = try storedKey(workspace, "app")
        #expect(newKey.isRaw && newKey != oldKey && newKey != placed)
        // Its text form and a line break on the store's standard input; the store's output discarded.
        #expect(try String(contentsOfFile: workspace.path("store/app.key"), encoding: .utf8) == newKey.text + "\n")
        #expect(!result.output.contains("said-by-the-store"), "\(result)")
        #expect(try opens(workspace, newKey) && !(try opens(workspace, oldKey)))
        #expect(!FileManager.default.fileExists(atPath: workspace.keyFile), "the old key was retired")
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)), "the copy kept beside the database was given up")
        // Kept beside the database before the store got it, with the key the store got.
        #expect(try String(contentsOfFile: workspace.path("seen-kept"), encoding: .utf8) == newKey.text + "\n")
        let calls = try String(contentsOfFile: workspace.path("calls"), encoding: .utf8).split(separator: "\n")
        // Read back before the rekey, after it, and once more at the end.
        #expect(calls == ["store", "read", "read", "read"], "\(calls)")
        // The first read-back saw the database still on its old key; the last, on the new one.
        #expect(try SQLCipherShell.run(workspace.path("seen-2.db"), key: oldKey, "SELECT count(*) FROM sqlite_master;").status == 0)
        #expect(try SQLCipherShell.run(workspace.path("seen-\(calls.count).db"), key: newKey, "SELECT count(*) FROM sqlite_master;").status == 0)
        #expect(!result.output.contains(newKey.secret) && !result.output.contains(oldKey.secret))
        // The store got the key on its standard input only: not in its arguments or environment.
        let seen = try String(contentsOfFile: workspace.path("seen-store"), encoding: .utf8)
        #expect(seen.contains("/bin/sh -c") && !seen.contains(newKey.secret) && !seen.contains(oldKey.secret), "\(seen)")
    }

    /// Every way the store can fail before the rekey leaves the database byte for byte
    /// on its old key, the old key file where it was (despite `--old-key delete`), and
    /// says so: exit 5, one sentence naming the database and the command.
    @Test func aStoreThatFailsOverstaysOrKeepsAnotherKeyLeavesTheDatabaseOnItsOldKey() throws {
        let workspace = try migrated()
        let other = TestKey.raw()
        try workspace.write("other.key", other.text + "\n", mode: 0o600)
        let before = try fileBytes(workspace.database)
        let cases: [(store: String, read: String, says: String)] = [
            ("false", "cat store/{name}.key", "storing the new key with `false` failed (the command failed with exit status 1)"),
            ("sleep 600", "cat store/{name}.key", "did not finish within 0.5 seconds"),
            ("!cat > /dev/null; cp other.key store/{name}.key", "cat store/{name}.key", "gave back another key than the one stored"),
            ("!cat > store/{name}.key", "cat other.key", "gave back another key than the one stored"),
            ("!cat > store/{name}.key", "false", "could not be read back"),
        ]
        for (store, read, says) in cases {
            let result = try workspace.run("rekey", [
                "--new-key", "generate", "--old-key", "delete", "--no-backup", "--key-command-timeout", "0.5",
                "--new-key-store-command", store, "--new-password-command", read,
            ])
            #expect(result.status == 5, "\(store) / \(read): \(result)")
            #expect(result.stderr.contains("app.db was not rekeyed and is still on its old key, which still opens it") && result.stderr.contains(says),
                    "\(store) / \(read): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
            #expect(try fileBytes(workspace.database) == before, "\(store) / \(read)")
            #expect(FileManager.default.fileExists(atPath: workspace.keyFile), "\(store) / \(read)")
            #expect(try opens(workspace, workspace.key), "\(store) / \(read)")
            #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)), "\(store) / \(read)")
            #expect(!result.output.contains(other.secret) && !result.output.contains(workspace.key.secret))
        }
    }

    /// Where a rotation through a store keeps the new key until the end: beside the database.
    private static let keptCopy = ".app.db.migrationkit-new-key"

    /// A read-back command that reads `store/app.key`, except that its call number `call`
    /// does `fault` instead (its calls counted in `reads`).
    private static func readBack(failing call: Int, with fault: String) -> String {
        "!n=$(($(cat reads 2>/dev/null || echo 0) + 1)); echo $n > reads; if [ $n -eq \(call) ]; then \(fault); fi; cat store/{name}.key"
    }

    /// A store that does not give the new key back after the rekey (it fails, overstays,
    /// gives another key, or lost it) has the database put back on its old key, read again
    /// from where the current key is read: exit 5, one sentence saying so, the old key not
    /// retired (despite `--old-key delete`), nothing kept beside the database.
    @Test func aStoreThatDoesNotGiveTheKeyBackAfterTheRekeyHasTheDatabasePutBackOnItsOldKey() throws {
        let workspace = try migrated()
        let other = TestKey.raw()
        try workspace.write("other.key", other.text + "\n", mode: 0o600)
        let cases: [(fault: String, says: String)] = [
            ("exit 3", "it could not be read back: the command failed with exit status 3"),
            ("exec sleep 600", "did not finish within 0.5 seconds"),
            ("cat other.key; exit 0", "it holds another key"),
            ("rm store/{name}.key; exit 1", "it could not be read back"),
        ]
        for (fault, says) in cases {
            unlink(workspace.path("reads"))
            // The second read is the first after the rekey.
            let result = try workspace.run("rekey", [
                "--new-key", "generate", "--old-key", "delete", "--no-backup", "--key-command-timeout", "0.5",
                "--new-key-store-command", "!umask 077; cat > store/{name}.key", "--new-password-command", Self.readBack(failing: 2, with: fault),
            ])
            #expect(result.status == 5, "\(fault): \(result)")
            #expect(result.stderr.contains("app.db was put back on its old key, which opens it as read again from its place: the store the key command")
                        && result.stderr.contains("did not give the new key back after the rekey (") && result.stderr.contains(says)
                        && result.stderr.contains("so the old key was not retired."), "\(fault): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
            #expect(try opens(workspace, workspace.key), "\(fault)")
            #expect(FileManager.default.fileExists(atPath: workspace.keyFile), "\(fault)")
            #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)), "\(fault)")
            #expect(!result.output.contains(other.secret) && !result.output.contains(workspace.key.secret))
        }
    }

    /// At the last look, with the old key kept, the same: put back on the old key, which
    /// `--password-command` reads again for it, twice (before and after), after the read
    /// as the rotation began and the one that proved the store wrote another entry.
    @Test func aStoreThatLosesTheKeyBeforeTheLastLookHasTheDatabasePutBackWhenTheOldKeyIsKept() throws {
        let workspace = try migrated()
        let result = try Tool.run(["rekey", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-command", "!echo current >> current-reads; cat key",
                                   "--new-key", "generate", "--no-backup", "--new-key-store-command", "!umask 077; cat > store/{name}.key",
                                   "--new-password-command", Self.readBack(failing: 3, with: "rm store/{name}.key; exit 1")],
                                  directory: workspace.root)
        #expect(result.status == 5 && result.stderr.contains("app.db was put back on its old key"), "\(result)")
        #expect(try opens(workspace, workspace.key))
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)))
        #expect(try String(contentsOfFile: workspace.path("current-reads"), encoding: .utf8) == "current\ncurrent\ncurrent\ncurrent\n")
    }

    /// At the last look, once `--old-key delete` deleted the old key, there is no key to
    /// put the database back on: it stays on its new key, kept beside the database (0600),
    /// and the rerun stores it again from there and finishes.
    @Test func aKeyLostOnceTheOldKeyIsDeletedIsKeptBesideTheDatabaseAndTheRerunStoresItAgain() throws {
        let workspace = try migrated()
        let store = "!echo store >> stores; umask 077; cat > store/{name}.key"
        let result = try workspace.run("rekey", [
            "--new-key", "generate", "--old-key", "delete", "--no-backup",
            "--new-key-store-command", store, "--new-password-command", Self.readBack(failing: 3, with: "rm store/{name}.key; exit 1"),
        ])
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("app.db is on its new key, but the store the key command") && result.stderr.contains("The old key is deleted.")
                    && result.stderr.contains("The new key is kept in \(workspace.path(Self.keptCopy))"), "\(result)")
        let kept = TestKey(text: try String(contentsOfFile: workspace.path(Self.keptCopy), encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(try FileManager.default.attributesOfItem(atPath: workspace.path(Self.keptCopy))[.posixPermissions] as? Int == 0o600)
        #expect(try opens(workspace, kept) && !(try opens(workspace, workspace.key)))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("store/app.key")))

        let rerun = try workspace.run("rekey", ["--new-key", "generate", "--old-key", "delete", "--no-backup",
                                                "--new-key-store-command", store, "--new-password-command", "cat store/{name}.key"])
        #expect(rerun.status == 0 && rerun.stdout.contains("was already on its new key, kept where a stopped run left it: published it to the store"), "\(rerun)")
        #expect(try storedKey(workspace, "app") == kept && opens(workspace, kept))
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)))
        #expect(try String(contentsOfFile: workspace.path("stores"), encoding: .utf8) == "store\nstore\n")
        #expect(!rerun.output.contains(kept.secret) && !result.output.contains(kept.secret))
    }

    /// When the database cannot be put back (the current key cannot be read again), it
    /// stays on its new key, kept beside the database; a rerun whose store still fails
    /// then puts it back on its old key.
    @Test func aDatabaseThatCannotBePutBackKeepsItsNewKeyBesideItAndARerunPutsItBack() throws {
        let workspace = try migrated()
        let result = try workspace.run("rekey", [
            "--new-key", "generate", "--no-backup",
            "--new-key-store-command", "!umask 077; cat > store/{name}.key",
            "--new-password-command", Self.readBack(failing: 2, with: "mv key key.away; rm store/{name}.key; exit 1"),
        ])
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("app.db is on its new key, but the store the key command") && result.stderr.contains("putting the database back on its old key failed (")
                    && result.stderr.contains("The new key is kept in \(workspace.path(Self.keptCopy)); run the command again"), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        let kept = TestKey(text: try String(contentsOfFile: workspace.path(Self.keptCopy), encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(try opens(workspace, kept))

        #expect(rename(workspace.path("key.away"), workspace.keyFile) == 0)
        let rerun = try workspace.run("rekey", ["--new-key", "generate", "--no-backup",
                                                "--new-key-store-command", "false", "--new-password-command", "cat store/{name}.key"])
        #expect(rerun.status == 5 && rerun.stderr.contains("app.db was put back on its old key") && rerun.stderr.contains("writing it there failed"), "\(rerun)")
        #expect(try opens(workspace, workspace.key))
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)))
    }

    /// A run killed after the rekey committed left the database on the stored key: the
    /// rerun finds it there through the key command, stores nothing, and finishes.
    @Test func aRerunAfterTheRekeyFindsTheDatabaseOnTheStoredKey() throws {
        let workspace = try migrated()
        let stored = TestKey.raw()
        try workspace.write("store/app.key", stored.text + "\n", mode: 0o600)
        let killedRun = try workspace.run("rekey", ["--new-password-file", "store/app.key", "--no-backup"])
        try #require(killedRun.status == 0, "\(killedRun)")
        let rerun = try workspace.run("rekey", ["--new-key", "generate", "--no-backup",
                                                "--new-key-store-command", "!echo store >> calls; cat > store/{name}.key",
                                                "--new-password-command", "cat store/{name}.key"])
        #expect(rerun.status == 0 && rerun.stdout.contains("already opens with the new key"), "\(rerun)")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("calls")))
        #expect(try opens(workspace, stored))
        // A store that does not answer then may hold the key the database is on: its
        // command's failure is said, not that the current key is wrong.
        let unanswered = try workspace.run("rekey", ["--new-key", "generate", "--no-backup",
                                                     "--new-key-store-command", "!cat > store/{name}.key", "--new-password-command", "false"])
        #expect(unanswered.status == 5 && unanswered.stderr.contains("The key command `false` failed"), "\(unanswered)")
        #expect(unanswered.stderr.split(separator: "\n").count == 1, "\(unanswered)")
        #expect(try opens(workspace, stored))
    }

    @Test func aStoreCommandNeedsGenerateAndAKeyCommandToReadItBack() throws {
        let workspace = try migrated()
        let noReadBack = try workspace.run("rekey", ["--new-key", "generate", "--no-backup", "--new-key-store-command", "!cat > store/app.key",
                                                     "--new-password-file", "store/app.key"])
        #expect(noReadBack.status == 64 && noReadBack.stderr.contains("--new-key-store-command"), "\(noReadBack)")
        let noStore = try workspace.run("rekey", ["--new-key", "generate", "--no-backup", "--new-password-command", "cat store/app.key"])
        #expect(noStore.status == 64 && noStore.stderr.contains("needs --new-key-store-command"), "\(noStore)")
        // Read back where the current key is read: a failed rekey would leave the database on a key no longer there.
        let inPlace = try Tool.run(["rekey", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-command", "cat key",
                                    "--new-key", "generate", "--no-backup", "--new-key-store-command", "!cat > key", "--new-password-command", "cat key"],
                                   directory: workspace.root)
        #expect(inPlace.status == 64, "\(inPlace)")
        #expect(inPlace.stderr.contains("store the new key under another name or version"), "\(inPlace)")
        #expect(try opens(workspace, workspace.key))
    }

    /// The current key's entry and the new key's spelled two ways (Keys/README.md,
    /// "Rotating through the store"): the text differs, the entry is one, so the store
    /// command's write replaces the current key. The current key's place, read again after
    /// the store, gives the new key: the old key is stored back with the same command, and
    /// the rotation is refused (exit 64) with the database byte for byte as it was, its key
    /// in its place, and no copy of either key left beside it.
    @Test(arguments: [
        (current: "cat ./key", new: "cat key"),
        (current: "!cat key", new: "cat key"),
        (current: "cat  key", new: "cat key"),
        (current: "cat key", new: "cat linked-key"),
    ])
    func oneEntrySpelledTwoWaysIsRefusedWithTheOldKeyStoredBack(current: String, new: String) throws {
        let workspace = try migrated()
        #expect(symlink("key", workspace.path("linked-key")) == 0)
        let before = try fileBytes(workspace.database)
        let result = try Tool.run(["rekey", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-command", current,
                                   "--new-key", "generate", "--no-backup", "--new-key-store-command", "!echo store >> stores; cat > key",
                                   "--new-password-command", new],
                                  directory: workspace.root)
        #expect(result.status == 64, "\(current) / \(new): \(result)")
        #expect(result.stderr.contains("app.db was not rekeyed: the new key came back from the store the key command `\(current)` reads")
                    && result.stderr.contains("the old key was stored back there"), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(try fileBytes(workspace.database) == before)
        #expect(try TestKey(text: String(contentsOfFile: workspace.keyFile, encoding: .utf8).trimmingCharacters(in: .newlines)) == workspace.key)
        // The new key, then the old one stored back.
        #expect(try String(contentsOfFile: workspace.path("stores"), encoding: .utf8) == "store\nstore\n")
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCopy)))
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCurrentKey)))
        #expect(!result.output.contains(workspace.key.secret))
    }

    /// Two entries: the current key's place, read again after the store, still gives the
    /// current key, and the copy of it kept beside the database meanwhile (0600) is given
    /// up before the database changes.
    @Test func theCurrentKeyIsKeptBesideTheDatabaseUntilTheStoreIsSeenToLeaveIt() throws {
        let workspace = try migrated()
        let result = try workspace.run("rekey", [
            "--new-key", "generate", "--no-backup",
            "--new-key-store-command", "!cp \(Self.keptCurrentKey) seen-kept; stat -c %a \(Self.keptCurrentKey) > seen-mode; umask 077; cat > store/{name}.key",
            "--new-password-command", "!test -e \(Self.keptCurrentKey) && echo kept >> reads; cat store/{name}.key",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(try TestKey(text: String(contentsOfFile: workspace.path("seen-kept"), encoding: .utf8).trimmingCharacters(in: .newlines)) == workspace.key)
        #expect(try String(contentsOfFile: workspace.path("seen-mode"), encoding: .utf8) == "600\n")
        // Kept at the read-back before the rekey, gone at the reads after it.
        #expect(try String(contentsOfFile: workspace.path("reads"), encoding: .utf8) == "kept\n")
        #expect(!FileManager.default.fileExists(atPath: workspace.path(Self.keptCurrentKey)))
        #expect(try opens(workspace, storedKey(workspace, "app")))
    }

    /// Where a rotation through a store keeps the current key until the store is seen to
    /// leave it: beside the database.
    private static let keptCurrentKey = ".app.db.migrationkit-old-key"

    /// Over a fleet, each tenant's key is stored and read back as its own, the store asked
    /// once per tenant.
    @Test func aFleetRotatesEachTenantThroughTheStore() throws {
        let fleet = try Fleet(3)
        let workspace = fleet.workspace
        try FileManager.default.createDirectory(atPath: workspace.path("store"), withIntermediateDirectories: false)
        let result = try fleet.run(["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-key", "generate", "--no-backup",
                                    "--new-key-store-command", "!echo {name} >> stored; umask 077; cat > store/{name}.key",
                                    "--new-password-command", "cat store/{name}.key"])
        #expect(result.status == 0, "\(result)")
        let stored = try String(contentsOfFile: workspace.path("stored"), encoding: .utf8).split(separator: "\n").sorted()
        #expect(stored == ["tenant0", "tenant1", "tenant2"], "\(stored)")
        for index in 0..<3 {
            let key = try storedKey(workspace, "tenant\(index)")
            #expect(try fleet.rows(index, key: key) == 1)
            #expect(try fleet.rows(index, key: fleet.keys[index]) == nil)
            #expect(!result.output.contains(key.secret))
        }
        // A store command the tenants would share is refused before any changes.
        let shared = try fleet.run(["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-key", "generate", "--no-backup",
                                    "--new-key-store-command", "!cat > store/all.key", "--new-password-command", "cat store/all.key"])
        #expect(shared.status != 0 && shared.stderr.contains("need {name}"), "\(shared)")
    }
}

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
        // A key already in the store is not reused: the rotation makes its own.
        let placed = TestKey.raw()
        try workspace.write("store/app.key", placed.text + "\n", mode: 0o600)
        // Each read-back keeps a copy of the database as it was at that moment.
        let result = try workspace.run("rekey", [
            "--new-key", "generate", "--old-key", "delete", "--no-backup",
            "--new-key-store-command", "!echo store >> calls; echo said-by-the-store; tr '\\0' ' ' < /proc/$$/cmdline > seen-store; env >> seen-store; umask 077; cat > store/{name}.key",
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
            ("false", "cat store/{name}.key", "storing the new key with `false` failed"),
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
            #expect(!result.output.contains(other.secret) && !result.output.contains(workspace.key.secret))
        }
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

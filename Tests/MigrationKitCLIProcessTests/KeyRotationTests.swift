import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The key rotation tests whose subject is other processes at once: a fleet's rotation
/// (the binary) beside a cleaner that removes the new keys from their place, or through a
/// key command's store that loses writes, the rotation killed at random moments. The
/// others are in MigrationKitCLITests.
///
/// What a cleaner removes after a tenant's last look is beyond any rotation; what it
/// removes while the tenant's old key is still in its place (which the rotation deletes
/// only after proving the new key there) comes before that last look. So each removal is
/// judged by whether the old key was still there right after it.
@Suite struct KeyRotationTests {
    /// docs/fleets.md's rotation with a new key file per tenant and `--old-key delete`,
    /// beside a cleaner that removes `keys/*.next` (a configuration-management purge of
    /// files it does not manage): every tenant the cleaner reached before its old key was
    /// deleted is reported failed, exit 5, and opens with a key at its place or kept beside
    /// it, killed or not; every tenant it never reached is rotated and opens with the key
    /// in its file; a run after the cleaner stops finishes every tenant with a key.
    @Test func aKeyFolderCleanerBesideARotationNeverStrandsATenant() throws {
        try soak(KeyFiles(), tenants: 8, rounds: TestDepth.count(quick: 3, full: 8))
    }

    /// The same with each tenant's keys in Secret Service items, and a cleaner that
    /// deletes the new keys' items (`secret-tool clear`).
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func anItemCleanerBesideAKeyringRotationNeverStrandsATenant() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        try soak(KeyringItems(), tenants: 6, rounds: TestDepth.count(quick: 2, full: 5))
    }

    /// A fleet rotated round after round through a key command's store (files in
    /// `store/`, written by a store command and read by the key commands) that loses writes
    /// at random — a write kept nowhere, another key kept, a key lost or replaced at one of
    /// the reads after its write — and whose reads fail or overstay at random, while the
    /// rotation is killed at a random moment and run again. After every round each tenant
    /// opens with the key of its store's current entry or of its new entry (the current
    /// one once the operator makes it so), or, failed at the fleet's last look, with the
    /// copy its line names; a tenant reported done is on its new entry's key, and nothing
    /// is left beside it. The faults and kill
    /// times come from a seed, printed with every failure (`MIGRATIONKIT_SOAK_SEED` replays
    /// them; a kill's moment depends on the machine too).
    @Test func aStoreThatLosesWritesBesideAKilledRotationNeverStrandsATenant() throws {
        let seed = ProcessInfo.processInfo.environment["MIGRATIONKIT_SOAK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(state: seed)
        let fleet = try StoreFleet(count: 8)
        var full = Duration.zero
        for round in 0..<TestDepth.count(quick: 4, full: 6) {
            let context = "seed \(seed) (MIGRATIONKIT_SOAK_SEED), round \(round)"
            try fleet.planFaults(&generator)
            // The first round runs to its end; the others are killed at a random moment of
            // a run as long as the first (or not at all, past its end), then run again.
            let delay = round == 0 ? nil : Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            let started = ContinuousClock.now
            let (finished, firstStatus, firstOutput) = try fleet.rotate(killedAfter: delay, context: context)
            if round == 0 { full = ContinuousClock.now - started }
            var (status, output) = (firstStatus, firstOutput)
            if !finished {
                let rerun = try fleet.rerun()
                (status, output) = (rerun.status, rerun.output)
            }
            #expect(status == 0 || status == 5, "\(context): \(output)")
            let table = output.split(separator: "\n").map(String.init)
            var anyFailed = false
            for name in fleet.names {
                let line = table.first { $0.hasPrefix("tenants/\(name).db ") } ?? "(no line)"
                let current = try fleet.key(name, "key"), new = try fleet.key(name, "next")
                let onCurrent = try current.map { try fleet.opens(name, with: $0) } ?? false
                let onNew = try new.map { try fleet.opens(name, with: $0) } ?? false
                let onKept = try fleet.keptCopy(name).map { try fleet.opens(name, with: $0) } ?? false
                // A store that lost the key at the fleet's last look leaves it kept beside the
                // database, which the failed line names.
                let keptAndNamed = onKept && line.contains("failed (exit 5)") && line.contains(".\(name).db.migrationkit-new-key")
                #expect(onCurrent || onNew || keptAndNamed,
                        "\(context): \(name) opens with no key its store holds (with the copy kept beside it: \(onKept)): \(line)")
                if line.contains("failed") {
                    anyFailed = true
                    #expect(line.contains("failed (exit 5)"), "\(context): \(line)")
                    // The fleet's last look keeps the key beside the database when the store
                    // does not give it back, and says so.
                    #expect(fleet.keptCopy(name) == nil || line.contains(".\(name).db.migrationkit-new-key"),
                            "\(context): \(name) has a copy of a key left beside it that its line does not name: \(line)")
                } else {
                    #expect(fleet.keptCopy(name) == nil, "\(context): \(name) has a copy of a key left beside it: \(line)")
                    #expect(line.contains("rekeyed") || line.contains("already on the new key"), "\(context): \(line)")
                    #expect(onNew && !onCurrent, "\(context): \(name) was reported done but is not on its new entry's key: \(line)")
                }
                for key in [current, new].compactMap({ $0 }) { #expect(!output.contains(key.text), "\(context): a key was printed") }
                // What an operator does after a rotation: the entry the tenant is on (or the
                // copy its line names) is the current one.
                try fleet.settle(name, onNew: onNew && !onCurrent, onKept: keptAndNamed && !onNew && !onCurrent)
                #expect(try fleet.key(name, "key").map { try fleet.opens(name, with: $0) } == true, "\(context): \(name) after the round")
            }
            #expect(status == (anyFailed ? 5 : 0), "\(context): \(output)")
        }
    }

    /// One entry spelled two ways (`cat ./key` and `cat key`): a rotation killed right
    /// after its store command wrote the new key over that entry, before the rekey, leaves
    /// the database on its old key, which is kept beside it (0600) and opens it; the rerun
    /// finds the entry holding the key the stopped run stored, stores the old key back,
    /// refuses (exit 64) and leaves the database on the key in its entry, nothing else
    /// kept.
    @Test func aKillAfterTheStoreWroteOverTheCurrentEntryLeavesTheOldKeyKept() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        func rekey(store: String) -> [String] {
            ["rekey", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-command", "cat ./key",
             "--new-key", "generate", "--no-backup", "--new-key-store-command", store, "--new-password-command", "cat key", "--key-command-timeout", "120"]
        }
        let process = try ChildProcess([Binary.migrationkit] + rekey(store: "!cat > key; touch stored; exec sleep 120"),
                                       environment: Binary.environment(), directory: workspace.root)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: workspace.path("stored")) { usleep(2_000) }
        try #require(FileManager.default.fileExists(atPath: workspace.path("stored")), "the store command never ran")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        func fileKey(_ name: String) throws -> TestKey? {
            (try? String(contentsOfFile: workspace.path(name), encoding: .utf8)).map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
        }
        func opens(_ key: TestKey?) throws -> Bool {
            guard let key else { return false }
            return try SQLCipherShell.run(workspace.database, key: key, "SELECT count(*) FROM sqlite_master;").status == 0
        }
        let kept = ".app.db.migrationkit-old-key"
        #expect(try !opens(fileKey("key")), "the store wrote the new key over the entry before the kill")
        #expect(try opens(fileKey(kept)) && fileKey(kept) == workspace.key, "no stored or kept key opens the database")
        #expect(try FileManager.default.attributesOfItem(atPath: workspace.path(kept))[.posixPermissions] as? Int == 0o600)

        let rerun = try Binary.run(rekey(store: "!cat > key"), directory: workspace.root)
        #expect(rerun.status == 64 && rerun.stderr.contains("the two key commands name one entry"), "\(rerun)")
        #expect(try fileKey("key") == workspace.key && opens(workspace.key))
        #expect(!FileManager.default.fileExists(atPath: workspace.path(kept)))
        #expect(!FileManager.default.fileExists(atPath: workspace.path(".app.db.migrationkit-new-key")))
        #expect(!rerun.output.contains(workspace.key.secret))
    }

    /// One database's rotation stopped by SIGTERM after its rekey committed (its store's
    /// read-back after the rekey waits): the stop's sentence says it is on its new key and
    /// where that key is, read after the stop, not that it is as it was.
    @Test func aRotationStoppedAfterItsRekeySaysWhichKeyTheDatabaseIsOn() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        try FileManager.default.createDirectory(atPath: workspace.path("store"), withIntermediateDirectories: false)
        let readBack = "!n=$(($(cat reads 2>/dev/null || echo 0) + 1)); echo $n > reads; if [ $n -eq 2 ]; then touch rekeyed; exec sleep 120; fi; cat store/app.key"
        let process = try ChildProcess([Binary.migrationkit, "rekey", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                        "--password-file", workspace.keyFile, "--new-key", "generate", "--no-backup", "--key-command-timeout", "300",
                                        "--new-key-store-command", "!umask 077; cat > store/app.key", "--new-password-command", readBack],
                                       environment: Binary.environment(), directory: workspace.root, errors: .file(workspace.path("err")))
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: workspace.path("rekeyed")) { usleep(5_000) }
        try #require(FileManager.default.fileExists(atPath: workspace.path("rekeyed")), "the rotation never reached its read-back after the rekey")
        process.send(SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        let stderr = try String(contentsOfFile: workspace.path("err"), encoding: .utf8)
        #expect(stderr.contains("Stopped by SIGTERM during the key rotation: the database \(workspace.database) is on its new key, stored in the store the key command")
                    && stderr.contains("kept in"), "\(stderr)")
        let stored = TestKey(text: try String(contentsOfFile: workspace.path("store/app.key"), encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(try SQLCipherShell.run(workspace.database, key: stored, "SELECT count(*) FROM sqlite_master;").status == 0)
        #expect(!stderr.contains(stored.secret))
    }

    /// `rounds` in `make check` and `make test`, many more in `make soak`
    /// (MIGRATIONKIT_SOAK_KILLS); the first one runs to its end, the others are killed at
    /// a random moment of a run as long as the first (or not at all, past its end).
    private func soak(_ store: some RotationKeyStore, tenants count: Int, rounds depth: Int) throws {
        let rounds = ProcessInfo.processInfo.environment["MIGRATIONKIT_SOAK_KILLS"].flatMap(Int.init).map { max(1, $0 / 10) } ?? depth
        var full = Duration.zero
        var generator = SystemRandomNumberGenerator()
        for round in 0..<rounds {
            let delay = round == 0 ? nil : Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            let took = try rotateBesideACleaner(store, tenants: count, killedAfter: delay, round: round)
            if round == 0 { full = took }
        }
    }

    /// One round: new tenants, the rotation beside the cleaner (killed after `delay`), the
    /// verdicts, then the rerun without the cleaner. Returns how long the rotation ran.
    private func rotateBesideACleaner(_ store: some RotationKeyStore, tenants count: Int, killedAfter delay: Duration?, round: Int) throws -> Duration {
        let fleet = try RotationFleet(store, count: count)
        defer { fleet.removeItems() }
        let cleaner = Cleaner(fleet)
        let started = ContinuousClock.now
        let process = try fleet.launchRotation()
        if let delay {
            let deadline = started + delay
            while process.isRunning, ContinuousClock.now < deadline { usleep(500) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let took = ContinuousClock.now - started
        let removals = cleaner.stop()
        let finished = process.terminationReason == .exit
        let output = fleet.output()
        let table = output.stdout.split(separator: "\n").map(String.init)
        var keyless: [String] = []
        var anyFailed = false
        for name in fleet.names {
            let keys = try fleet.keys(name)
            let opening = try keys.values.filter { try fleet.opens(name, with: $0) }
            let newKeyOpens = try keys[.new].map { try fleet.opens(name, with: $0) } ?? false
            let stagedKeyOpens = try keys[.staged].map { try fleet.opens(name, with: $0) } ?? false
            let line = table.first { $0.hasPrefix("tenants/\(name).db ") } ?? "(no line)"
            let touched = removals[name] ?? []
            // true: removed while the old key was still in its place.
            let early = touched.contains(true)
            if opening.isEmpty { keyless.append(name) }
            if touched.isEmpty || early {
                #expect(!opening.isEmpty, "round \(round): \(name) opens with none of its keys (removals \(touched)): \(line)")
            }
            for key in keys.values { #expect(!(output.stdout + output.stderr).contains(key.text), "round \(round): a key was printed") }
            guard finished else { continue }
            if line.contains("failed") {
                anyFailed = true
                #expect(line.contains("failed (exit 5)") && line.contains(fleet.store.stagedName(name)), "round \(round): \(line)")
                #expect(newKeyOpens || stagedKeyOpens, "round \(round): \(name) failed and opens with no new key at its place or beside it: \(line)")
            } else {
                #expect(line.contains("rekeyed; old key deleted"), "round \(round): \(line)")
            }
            if early {
                #expect(line.contains("failed (exit 5)"), "round \(round): \(name)'s new key was removed before its old key was deleted, but: \(line)")
            }
            if touched.isEmpty {
                // Reported done: the key is where the app reads it, and nothing else is left.
                #expect(line.contains("rekeyed") && newKeyOpens && keys[.old] == nil && keys[.staged] == nil, "round \(round): \(name): \(line)")
            }
        }
        if finished {
            #expect(process.terminationStatus == (anyFailed ? 5 : 0), "round \(round): \(output.stdout)\(output.stderr)")
            if !anyFailed { #expect(fleet.leftovers.isEmpty, "round \(round): \(fleet.leftovers)") }
        }

        // With the cleaner stopped, the same command finishes every tenant that has a key.
        let rerun = try fleet.rerun()
        #expect(rerun.status == (keyless.isEmpty ? 0 : 5), "round \(round): \(rerun.output)")
        for name in fleet.names {
            let line = rerun.stdout.split(separator: "\n").first { $0.hasPrefix("tenants/\(name).db ") }.map(String.init) ?? "(no line)"
            if keyless.contains(name) {
                #expect(line.contains("failed"), "round \(round): \(line)")
                continue
            }
            let keys = try fleet.keys(name)
            let atPlace = try keys[.new].map { try fleet.opens(name, with: $0) } ?? false
            #expect(atPlace && keys[.old] == nil && keys[.staged] == nil, "round \(round): \(name) after the rerun: \(line)")
            #expect(line.hasSuffix("; old key deleted"), "round \(round): \(line)")
        }
        return took
    }
}

/// Where a tenant's keys are, as the rotation names them: its current key, its new key's
/// place, and the new key kept beside that place until the end (docs/fleets.md).
private enum KeySlot: CaseIterable {
    case old, new, staged
}

/// A store of the tenants' keys: key files or Secret Service items.
private protocol RotationKeyStore: Sendable {
    /// The key options of the rotation, with `{name}`.
    func options(_ fleet: RotationFleet<Self>) -> [String]
    func write(_ key: TestKey, _ slot: KeySlot, of name: String, in fleet: RotationFleet<Self>) throws
    func read(_ slot: KeySlot, of name: String, in fleet: RotationFleet<Self>) throws -> TestKey?
    /// Removes the new key from its place, as the cleaner does: whether one was there.
    func removeNewKey(of name: String, in fleet: RotationFleet<Self>) throws -> Bool
    /// How the failure sentence names where the new key is kept.
    func stagedName(_ name: String) -> String
    /// Whatever the rotation left in the store that is not a key (write temporaries).
    func leftovers(_ fleet: RotationFleet<Self>) -> [String]
    func removeItems(_ fleet: RotationFleet<Self>)
}

/// `keys/NAME.key`, `keys/NAME.next`, `keys/.NAME.next.migrationkit-new-key`.
private struct KeyFiles: RotationKeyStore {
    func options(_ fleet: RotationFleet<Self>) -> [String] {
        ["--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next"]
    }

    private func file(_ slot: KeySlot, _ name: String) -> String {
        switch slot {
        case .old: return "keys/\(name).key"
        case .new: return "keys/\(name).next"
        case .staged: return "keys/" + stagedName(name)
        }
    }

    func write(_ key: TestKey, _ slot: KeySlot, of name: String, in fleet: RotationFleet<Self>) throws {
        try fleet.workspace.write(file(slot, name), key.text + "\n", mode: 0o600)
    }

    func read(_ slot: KeySlot, of name: String, in fleet: RotationFleet<Self>) throws -> TestKey? {
        (try? String(contentsOfFile: fleet.workspace.path(file(slot, name)), encoding: .utf8)).map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
    }

    func removeNewKey(of name: String, in fleet: RotationFleet<Self>) throws -> Bool {
        unlink(fleet.workspace.path(file(.new, name))) == 0
    }

    func stagedName(_ name: String) -> String { ".\(name).next.migrationkit-new-key" }

    func leftovers(_ fleet: RotationFleet<Self>) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fleet.workspace.path("keys"))) ?? []).filter { $0.contains("migrationkit") }.sorted()
    }

    func removeItems(_ fleet: RotationFleet<Self>) {}
}

/// Items of one service per round: accounts `NAME`, `NAME.next`,
/// `NAME.next.migrationkit-new-key`, read and removed with `secret-tool`.
private struct KeyringItems: RotationKeyStore {
    func options(_ fleet: RotationFleet<Self>) -> [String] {
        ["--keychain-service", fleet.service, "--keychain-account", "{name}",
         "--new-keychain-service", fleet.service, "--new-keychain-account", "{name}.next"]
    }

    private func account(_ slot: KeySlot, _ name: String) -> String {
        switch slot {
        case .old: return name
        case .new: return name + ".next"
        case .staged: return name + ".next.migrationkit-new-key"
        }
    }

    private func secretTool(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try Binary.run(arguments, executable: "/usr/bin/secret-tool", stdin: stdin)
    }

    func write(_ key: TestKey, _ slot: KeySlot, of name: String, in fleet: RotationFleet<Self>) throws {
        let stored = try secretTool(["store", "--label", "rotation", "service", fleet.service, "account", account(slot, name)], stdin: key.text)
        #expect(stored.status == 0, "\(stored.output)")
    }

    func read(_ slot: KeySlot, of name: String, in fleet: RotationFleet<Self>) throws -> TestKey? {
        let found = try secretTool(["lookup", "service", fleet.service, "account", account(slot, name)])
        return found.status == 0 && !found.stdout.isEmpty ? TestKey(text: found.stdout.trimmingCharacters(in: .newlines)) : nil
    }

    func removeNewKey(of name: String, in fleet: RotationFleet<Self>) throws -> Bool {
        // `secret-tool clear` exits 1 when nothing matched.
        try secretTool(["clear", "service", fleet.service, "account", account(.new, name)]).status == 0
    }

    func stagedName(_ name: String) -> String { "account \"\(account(.staged, name))\"" }

    func leftovers(_ fleet: RotationFleet<Self>) -> [String] { [] }

    func removeItems(_ fleet: RotationFleet<Self>) {
        for name in fleet.names {
            for slot in KeySlot.allCases { _ = try? secretTool(["clear", "service", fleet.service, "account", account(slot, name)]) }
        }
    }
}

/// Tenants in `tenants/`, each with its own raw key in `store`, made by the shell, and
/// the rotation of docs/fleets.md over them.
private final class RotationFleet<Store: RotationKeyStore>: @unchecked Sendable {
    let store: Store
    let workspace: Workspace
    let names: [String]
    let service = "org.migrationkit.tests.rotation.\(UUID().uuidString)"

    init(_ store: Store, count: Int) throws {
        self.store = store
        workspace = try Workspace()
        names = (0..<count).map { "tenant\($0)" }
        for folder in ["tenants", "keys"] {
            try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
        }
        for name in names {
            let key = TestKey.raw()
            try store.write(key, .old, of: name, in: self)
            let made = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: key, "CREATE TABLE seed (x); INSERT INTO seed VALUES ('kept');")
            try #require(made.status == 0, "\(made.output)")
        }
    }

    var rotation: [String] {
        ["rekey", "--db-glob", "tenants/*.db"] + store.options(self)
            + ["--new-key", "generate", "--old-key", "delete", "--no-backup", "--jobs", "2", "--migrations", workspace.migrations]
    }

    /// Starts the rotation, its output kept in `rotation.out` and `rotation.err`.
    func launchRotation() throws -> ChildProcess {
        try ChildProcess([Binary.migrationkit] + rotation, environment: Binary.environment(), directory: workspace.root,
                         output: .file(workspace.path("rotation.out")), errors: .file(workspace.path("rotation.err")))
    }

    /// What the rotation printed.
    func output() -> (stdout: String, stderr: String) {
        let stdout = (try? String(contentsOfFile: workspace.path("rotation.out"), encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: workspace.path("rotation.err"), encoding: .utf8)) ?? ""
        return (stdout, stderr)
    }

    func rerun() throws -> CommandResult {
        try Binary.run(rotation, directory: workspace.root)
    }

    /// The keys the tenant has in each slot.
    func keys(_ name: String) throws -> [KeySlot: TestKey] {
        var keys: [KeySlot: TestKey] = [:]
        for slot in KeySlot.allCases { keys[slot] = try store.read(slot, of: name, in: self) }
        return keys
    }

    /// Whether `key` opens the tenant and reads its row.
    func opens(_ name: String, with key: TestKey) throws -> Bool {
        let read = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: key, "SELECT x FROM seed;")
        return read.status == 0 && read.stdout == "kept\n"
    }

    var leftovers: [String] { store.leftovers(self) }

    func removeItems() { store.removeItems(self) }
}

/// Removes the tenants' new keys from their place while it runs, at most twice each (the
/// second time, a key the rotation wrote back), and records for each removal whether the
/// tenant's old key was still in its place right after it.
private final class Cleaner<Store: RotationKeyStore>: @unchecked Sendable {
    private let fleet: RotationFleet<Store>
    private let lock = NSLock()
    private var stopping = false
    private var removals: [String: [Bool]] = [:]
    private let finished = DispatchSemaphore(value: 0)

    /// Starts cleaning `fleet`'s new keys.
    init(_ fleet: RotationFleet<Store>) {
        self.fleet = fleet
        Thread { [self] in
            while !lock.withLock({ stopping }) {
                for name in fleet.names where lock.withLock({ removals[name]?.count ?? 0 }) < 2 {
                    guard (try? fleet.store.removeNewKey(of: name, in: fleet)) == true else { continue }
                    let oldKeyThere = (try? fleet.store.read(.old, of: name, in: fleet)) != nil
                    lock.withLock { removals[name, default: []].append(oldKeyThere) }
                }
                sched_yield()
            }
            finished.signal()
        }.start()
    }

    /// Stops it and waits for it: each tenant's removals, in order.
    func stop() -> [String: [Bool]] {
        lock.withLock { stopping = true }
        if finished.wait(timeout: .now() + 120) == .timedOut { Issue.record("the cleaner did not stop within 120 s") }
        return lock.withLock { removals }
    }
}

/// Tenants in `tenants/` whose keys a small secret store keeps as files in `store/`:
/// `NAME.key` the current entry (read by `--password-command`), `NAME.next` the new one
/// (written by `--new-key-store-command`, read by `--new-password-command`). Each round's
/// faults are written to `faults/`, where the store's scripts read them. The scripts take
/// a shared lock on `store.lock` and act only for the run `run` names, so a command a
/// killed run left running never touches the store its rerun uses (`fence`).
private final class StoreFleet: @unchecked Sendable {
    let workspace: Workspace
    let names: [String]
    private var run = 0

    /// What a write does: keep the key; keep nothing (`drop`) or another key (`other`),
    /// exiting 0 all the same; or keep it and lose it (`lose`) or replace it (`swap`) at
    /// the given read after the write: the first is the check before the rekey, the
    /// second the proof after it, the third the tenant's last look (the fourth, the
    /// fleet's, may fail or overstay as any read).
    private static let writeFaults = ["ok", "ok", "ok", "ok", "ok", "ok", "drop", "other", "lose 1", "lose 2", "lose 3", "swap 2", "swap 3"]
    /// What a read does besides: fail, or overstay the key commands' time bound.
    private static let readFaults = Array(repeating: "ok", count: 10) + ["fail", "hang"]

    private static let store = """
        exec 9>>store.lock; flock -s 9; [ "$(cat run)" = "$STORE_RUN" ] || exit 75
        name=$1; set -- $(cat "faults/$name.write")
        : > "faults/$name.since"
        umask 077
        case $1 in
        drop) cat > /dev/null ;;
        other) cat > /dev/null; cp other.key "store/$name.tmp" && mv "store/$name.tmp" "store/$name.next" ;;
        *) cat > "store/$name.tmp" && mv "store/$name.tmp" "store/$name.next" ;;
        esac
        """
    private static let read = """
        exec 9>>store.lock; flock -s 9; [ "$(cat run)" = "$STORE_RUN" ] || exit 75
        name=$1; set -- $(cat "faults/$name.write")
        echo >> "faults/$name.since"; echo >> "faults/$name.reads"
        if [ "$2" = "$(wc -l < "faults/$name.since")" ]; then
            case $1 in
            lose) rm -f "store/$name.next" ;;
            swap) cp other.key "store/$name.next" ;;
            esac
        fi
        case $(sed -n "$(wc -l < "faults/$name.reads")p" "faults/$name.read") in
        fail) exit 1 ;;
        hang) exec sleep 3 ;;
        esac
        cat "store/$name.next"
        """

    init(count: Int) throws {
        workspace = try Workspace()
        names = (0..<count).map { "tenant\($0)" }
        for folder in ["tenants", "store", "faults"] {
            try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
        }
        try workspace.write("store.sh", Self.store)
        try workspace.write("read.sh", Self.read)
        try workspace.write("other.key", TestKey.raw().text + "\n", mode: 0o600)
        try workspace.write("run", "0\n")
        for name in names {
            let key = TestKey.raw()
            try workspace.write("store/\(name).key", key.text + "\n", mode: 0o600)
            let made = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: key, "CREATE TABLE seed (x); INSERT INTO seed VALUES ('kept');")
            try #require(made.status == 0, "\(made.output)")
        }
    }

    /// Each tenant's faults for a round: one for its writes, one for each of its reads.
    func planFaults(_ generator: inout SeededGenerator) throws {
        for name in names {
            try workspace.write("faults/\(name).write", Self.writeFaults.randomElement(using: &generator)! + "\n")
            try workspace.write("faults/\(name).read", (0..<12).map { _ in Self.readFaults.randomElement(using: &generator)! + "\n" }.joined())
            unlink(workspace.path("faults/\(name).reads"))
        }
    }

    private var rotation: [String] {
        ["rekey", "--db-glob", "tenants/*.db", "--password-command", "cat store/{name}.key", "--new-key", "generate", "--no-backup",
         "--new-key-store-command", "sh store.sh {name}", "--new-password-command", "sh read.sh {name}",
         "--key-command-timeout", "1", "--jobs", "2", "--migrations", workspace.migrations]
    }

    /// Waits (bounded) until no store command of an earlier run is running, then lets
    /// only the next run's commands act on the store: its number in `STORE_RUN`.
    private func fence() throws -> [String: String] {
        let descriptor = open(workspace.path("store.lock"), O_RDWR | O_CREAT, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let deadline = ContinuousClock.now + .seconds(30)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            try #require(ContinuousClock.now < deadline, "a store command of a killed run is still running after 30 s")
            usleep(1000)
        }
        run += 1
        try workspace.write("run", "\(run)\n")
        return Binary.environment(["STORE_RUN": "\(run)"])
    }

    /// The rotation, killed after `delay` unless it ended first: whether it ended by
    /// itself, its status and its output.
    func rotate(killedAfter delay: Duration?, context: String) throws -> (Bool, Int32, String) {
        let started = ContinuousClock.now
        let process = try ChildProcess([Binary.migrationkit] + rotation, environment: try fence(), directory: workspace.root,
                                       output: .file(workspace.path("rotation.out")), errors: .sameAsOutput)
        let deadline = started + (delay ?? .seconds(60))
        while process.isRunning, ContinuousClock.now < deadline { usleep(500) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(delay != nil || process.terminationReason == .exit, "\(context): the rotation did not end within 60 s")
        let printed = (try? String(contentsOfFile: workspace.path("rotation.out"), encoding: .utf8)) ?? ""
        return (process.terminationReason == .exit, process.terminationStatus, printed)
    }

    /// The same command again, to its end.
    func rerun() throws -> CommandResult {
        try Binary.run(rotation, environment: try fence(), directory: workspace.root)
    }

    /// The key in `store/NAME.ENTRY`, if there is one.
    func key(_ name: String, _ entry: String) throws -> TestKey? {
        (try? String(contentsOfFile: workspace.path("store/\(name).\(entry)"), encoding: .utf8)).map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
    }

    /// The new key a rotation keeps beside the tenant, if one is there.
    func keptCopy(_ name: String) -> TestKey? {
        (try? String(contentsOfFile: workspace.path("tenants/.\(name).db.migrationkit-new-key"), encoding: .utf8))
            .map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
    }

    /// The new entry becomes the current one when the tenant is on it, or the copy kept
    /// beside the tenant when it is on that alone; otherwise the new entry goes.
    func settle(_ name: String, onNew: Bool, onKept: Bool) throws {
        let kept = workspace.path("tenants/.\(name).db.migrationkit-new-key")
        if onKept {
            #expect(rename(kept, workspace.path("store/\(name).key")) == 0)
            unlink(workspace.path("store/\(name).next"))
        } else if onNew {
            #expect(rename(workspace.path("store/\(name).next"), workspace.path("store/\(name).key")) == 0)
        } else {
            unlink(workspace.path("store/\(name).next"))
        }
    }

    /// Whether `key` opens the tenant and reads its row.
    func opens(_ name: String, with key: TestKey) throws -> Bool {
        let read = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: key, "SELECT x FROM seed;")
        return read.status == 0 && read.stdout == "kept\n"
    }
}

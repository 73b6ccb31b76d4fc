import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fleet tests whose subject is the process: a key rotation and a cipher upgrade
/// killed part way, and Ctrl-C on a terminal. The others are in MigrationKitCLITests.
@Suite struct FleetCommandsTests {
    /// Key rotation over a fleet with generated keys, killed at a random moment once some
    /// tenants are done and others are not, then run again: at every moment each tenant
    /// opens with exactly one of the keys in its two files, with every row; the rerun
    /// reuses the keys the killed run wrote and finishes what is left, deleting each old
    /// key once its new one is proven.
    @Test func aKilledKeyRotationLeavesEveryTenantOnOneKnownKeyAndTheRerunFinishes() throws {
        let fleet = try Fleet(10, filler: 100_000)
        let arguments = [Binary.migrationkit, "rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key",
                         "--new-password-file", "keys/{name}.new", "--new-key", "generate", "--old-key", "delete", "--jobs", "2", "--no-backup"]
        let process = try Guarded.launch(arguments, directory: fleet.workspace.root)
        // Until two old keys are deleted, in the fleet's own order, then a random moment more.
        func rotatedInOrder() -> Int {
            fleet.paths.indices.prefix { !FileManager.default.fileExists(atPath: fleet.workspace.path("keys/tenant\($0).key")) }.count
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline, rotatedInOrder() < 2 { usleep(2_000) }
        var generator = SystemRandomNumberGenerator()
        usleep(UInt32.random(in: 0...150_000, using: &generator))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        var rotated = 0
        var written: [Int: TestKey] = [:]
        for index in fleet.paths.indices {
            let keys = try keysOnDisk(fleet, index)
            let opening = try keys.filter { try fleet.rows(index, key: $0) == 100_001 }
            #expect(opening.count == 1, "tenant\(index) opens with \(opening.count) of the \(keys.count) keys in its files")
            if keys.count == 1, opening.first != fleet.keys[index] { rotated += 1 }
            if let new = keys.last, new != fleet.keys[index] { written[index] = new }
        }
        try #require(rotated >= 2 && rotated < fleet.paths.count, "the kill did not land in the middle of the fleet (\(rotated) of \(fleet.paths.count) rotated)")
        for index in written.keys {
            for file in keyFiles(fleet, index).dropFirst() where FileManager.default.fileExists(atPath: file) {
                let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file) is \(String(describing: mode))")
            }
        }

        let rerun = try fleet.run(Array(arguments.dropFirst()))
        #expect(rerun.status == 0, "\(rerun.output)")
        #expect(rerun.stdout.split(separator: "\n").filter { $0.contains("already on the new key") }.count >= rotated, "\(rerun.stdout)")
        for index in fleet.paths.indices {
            let keys = try keysOnDisk(fleet, index)
            #expect(keys.count == 1 && keys[0] != fleet.keys[index], "tenant\(index): \(keys.count) key files")
            if let first = written[index] { #expect(keys.first == first, "tenant\(index)'s new key was made twice") }
            #expect(try fleet.rows(index, key: keys[0]) == 100_001)
            #expect(!rerun.output.contains(keys[0].text))
        }
        // The killed run's unfinished copies, and the keys it kept staged, are gone after the rerun.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fleet.workspace.path("tenants")).filter { !$0.hasSuffix(".db") }
            + FileManager.default.contentsOfDirectory(atPath: fleet.workspace.path("keys")).filter { $0.contains("migrationkit") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// `cipher-upgrade` over a fleet of SQLCipher 3 files, killed at a random moment once
    /// some are upgraded, then run again: each tenant opens with its key in exactly one
    /// of the two formats, with every row, and the rerun upgrades only what is left. On
    /// SQLCipher 3, which cannot write the new format, the fleet is refused untouched.
    @Test func aKilledFleetCipherUpgradeLeavesEveryTenantInOneFormatAndTheRerunFinishes() throws {
        let fleet = try Fleet(10, filler: 100_000, sqlcipher3: true)
        let arguments = [Binary.migrationkit, "cipher-upgrade", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key",
                         "--jobs", "2", "--no-backup"]
        guard Fleet.isFour else {
            let before = fleet.paths.map { fleet.workspace.bytes($0) }
            let refused = try fleet.run(Array(arguments.dropFirst()))
            #expect(refused.exitCode == .usage, "\(refused.output)")
            #expect(fleet.paths.map { fleet.workspace.bytes($0) } == before)
            return
        }
        let process = try Guarded.launch(arguments, directory: fleet.workspace.root)
        func upgradedInOrder() throws -> Int {
            var count = 0
            for index in fleet.paths.indices {
                guard try fleet.rows(index, key: fleet.keys[index]) != nil else { break }
                count += 1
            }
            return count
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline, try upgradedInOrder() < 2 { usleep(5_000) }
        var generator = SystemRandomNumberGenerator()
        usleep(UInt32.random(in: 0...150_000, using: &generator))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        var upgraded = 0
        for index in fleet.paths.indices {
            let four = try fleet.rows(index, key: fleet.keys[index])
            let three = try fleet.rows(index, key: fleet.keys[index], sqlcipher3: true)
            #expect((four == nil) != (three == nil), "tenant\(index) opens in \(four == nil ? "neither" : "both") format")
            #expect((four ?? three) == 100_001, "tenant\(index) has \(String(describing: four ?? three)) rows")
            if four != nil { upgraded += 1 }
        }
        try #require(upgraded >= 2 && upgraded < fleet.paths.count, "the kill did not land in the middle of the fleet (\(upgraded) of \(fleet.paths.count) upgraded)")
        let rerun = try fleet.run(Array(arguments.dropFirst()))
        #expect(rerun.status == 0, "\(rerun.output)")
        #expect(rerun.stdout.split(separator: "\n").filter { $0.contains("already in") }.count == upgraded, "\(rerun.stdout)")
        for index in fleet.paths.indices {
            #expect(try fleet.rows(index, key: fleet.keys[index]) == 100_001)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fleet.workspace.path("tenants")).filter { !$0.hasSuffix(".db") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// Ctrl-C on a terminal stops taking tenants: the ones running finish or are left as
    /// they were, the rest are listed as not started, and the rerun finishes.
    @Test func ctrlCOnATerminalStopsTheFleetAndSaysWhatIsLeft() throws {
        let fleet = try Fleet(12, filler: 100_000)
        let newKeys = fleet.paths.map { _ in TestKey.raw() }
        for (index, key) in newKeys.enumerated() { try fleet.workspace.write("keys/tenant\(index).new", key.text + "\n", mode: 0o600) }
        let arguments = ["rekey", "--db-glob", fleet.workspace.path("tenants/*.db"), "--password-file", fleet.workspace.path("keys/{name}.key"),
                         "--new-password-file", fleet.workspace.path("keys/{name}.new"), "--jobs", "1", "--no-backup"]
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let result = try PseudoTerminal.run([Binary.migrationkit] + arguments, environment: environment,
                                            steps: [.init(expect: "databases done", send: "\u{03}")], timeout: 120)
        #expect(result.status == 130 || result.signal == SIGINT, "\(result.transcript)")
        #expect(result.transcript.contains("Stopped by SIGINT") && result.transcript.contains("never started"), "\(result.transcript)")
        #expect(result.transcript.contains("not started"), "\(result.transcript)")
        var onNewKey = 0
        for index in fleet.paths.indices {
            let old = try fleet.rows(index, key: fleet.keys[index])
            let new = try fleet.rows(index, key: newKeys[index])
            #expect((old == nil) != (new == nil) && (old ?? new) == 100_001, "tenant\(index)")
            if new != nil { onNewKey += 1 }
        }
        #expect(onNewKey >= 1 && onNewKey < 12, "\(onNewKey) tenants rekeyed before Ctrl-C")
        let rerun = try Tool.run(arguments, directory: fleet.workspace.root)
        #expect(rerun.status == 0, "\(rerun.output)")
        #expect(rerun.stdout.split(separator: "\n").filter { $0.contains("already on the new key") }.count == onNewKey, "\(rerun.stdout)")
    }

    /// A rotation through a store stopped by SIGTERM with one tenant past its rekey and
    /// another not yet rekeyed: each stopped tenant is listed with the key it is
    /// on, read after the stop, and where that key is — the first on its new key, which
    /// its store gave back, the second on its old key, in its file — in the table and in
    /// `--json`, never "as it was" for a tenant already on its new key; and each is as
    /// its line says.
    @Test(arguments: [false, true])
    func aStoppedRotationTellsEachTenantsKeyAsItIs(json: Bool) throws {
        let fleet = try Fleet.withStore(2)
        let workspace = fleet.workspace
        // tenant1's first read-back, before its rekey, waits; tenant0's second, the first
        // after its rekey, waits.
        let store = "!umask 077; cat > store/{name}.key"
        let readBack = Fleet.readBack("tenant11) touch storing; exec sleep 120 ;; tenant02) touch rekeyed; exec sleep 120 ;;")
        let process = try ChildProcess([Binary.migrationkit, "rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-key", "generate",
                                        "--no-backup", "--jobs", "2", "--key-command-timeout", "300", "--new-key-store-command", store,
                                        "--new-password-command", readBack, "--migrations", workspace.migrations] + (json ? ["--json"] : []),
                                       environment: Binary.environment(), directory: workspace.root, output: .file(workspace.path("out")), errors: .file(workspace.path("err")))
        let deadline = ContinuousClock.now + .seconds(60)
        func both() -> Bool { ["storing", "rekeyed"].allSatisfy { FileManager.default.fileExists(atPath: workspace.path($0)) } }
        while process.isRunning, ContinuousClock.now < deadline, !both() { usleep(5_000) }
        try #require(both(), "the two tenants never reached their waits")
        process.send(SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        let stdout = try String(contentsOfFile: workspace.path("out"), encoding: .utf8)
        let stored = TestKey(text: try String(contentsOfFile: workspace.path("store/tenant0.key"), encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(try fleet.rows(0, key: stored) == 1 && fleet.rows(0, key: fleet.keys[0]) == nil, "tenant0 is not on the key its store holds")
        #expect(try fleet.rows(1, key: fleet.keys[1]) == 1, "tenant1 is not on its old key")
        if json {
            let entries = try Fleet.entries(stdout)
            let first = try #require(entries["tenants/tenant0.db"]?["key"] as? [String: Any], "\(stdout)")
            let second = try #require(entries["tenants/tenant1.db"]?["key"] as? [String: Any], "\(stdout)")
            #expect(entries["tenants/tenant0.db"]?["result"] as? String == "stopped" && first["on"] as? String == "new", "\(stdout)")
            #expect((first["storedIn"] as? [String])?.first?.contains("store/tenant0.key") == true, "\(stdout)")
            #expect(second["on"] as? String == "old" && second["storedIn"] as? [String] == ["keys/tenant1.key"], "\(stdout)")
        } else {
            let lines = stdout.split(separator: "\n").map(String.init)
            let first = lines.first { $0.hasPrefix("tenants/tenant0.db ") } ?? "(no line)"
            let second = lines.first { $0.hasPrefix("tenants/tenant1.db ") } ?? "(no line)"
            #expect(first.contains("stopped: on its new key, stored in the store the key command") && first.contains("store/tenant0.key"), "\(stdout)")
            #expect(second.contains("stopped: on its old key, stored in keys/tenant1.key"), "\(stdout)")
            #expect(!stdout.contains("as it was"), "\(stdout)")
        }
        #expect(!stdout.contains(stored.secret) && !stdout.contains(fleet.keys[1].secret))
    }

    /// A key removed from its place after its tenant was done, before the fleet's end (a
    /// cleaner that purges what it does not manage; here the next tenant's key command):
    /// the rotation ends by reading every tenant's key from its place once more and
    /// opening the tenant with it, so that tenant fails, exit 5, its key kept beside its
    /// place (0600) and named; the rerun publishes it from there and finishes.
    @Test func aKeyRemovedAfterItsTenantWasDoneFailsTheFleetAtItsEnd() throws {
        let fleet = try Fleet(2)
        let workspace = fleet.workspace
        let rotation = ["rekey", "--db-glob", "tenants/*.db", "--new-password-file", "keys/{name}.next",
                        "--new-key", "generate", "--no-backup", "--jobs", "1", "--migrations", workspace.migrations]
        let result = try Binary.run(rotation + ["--password-command", "!if [ {name} = tenant1 ]; then rm keys/tenant0.next; fi; cat keys/{name}.key"],
                                    directory: workspace.root)
        #expect(result.status == 5, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let first = lines.first { $0.hasPrefix("tenants/tenant0.db ") } ?? "(no line)"
        let kept = "keys/.tenant0.next.migrationkit-new-key"
        #expect(first.contains("failed (exit 5): tenants/tenant0.db is on its new key, but at the end of the run keys/tenant0.next did not hold it")
                    && first.contains("The new key is kept in \(kept)"), "\(result)")
        #expect(lines.contains { $0.hasPrefix("tenants/tenant1.db ") && $0.hasSuffix("rekeyed") }, "\(result)")
        let keptKey = TestKey(text: try String(contentsOfFile: workspace.path(kept), encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(try FileManager.default.attributesOfItem(atPath: workspace.path(kept))[.posixPermissions] as? Int == 0o600)
        #expect(try fleet.rows(0, key: keptKey) == 1)
        #expect(!result.output.contains(keptKey.secret))

        let rerun = try Binary.run(rotation + ["--password-file", "keys/{name}.key"], directory: workspace.root)
        #expect(rerun.status == 0, "\(rerun)")
        let published = TestKey(text: try String(contentsOfFile: workspace.path("keys/tenant0.next"), encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(try published == keptKey && fleet.rows(0, key: published) == 1)
        #expect(!FileManager.default.fileExists(atPath: workspace.path(kept)))
    }

    /// The keys a tenant's key files hold now: its current one and its new one, where
    /// each file exists.
    /// (docs/fleets.md) Its current key file, its new one, and the new key kept staged
    /// beside that until it is published (`.tenantN.new.migrationkit-new-key`); each key
    /// once.
    private func keysOnDisk(_ fleet: Fleet, _ index: Int) throws -> [TestKey] {
        var keys: [TestKey] = []
        for file in keyFiles(fleet, index) where FileManager.default.fileExists(atPath: file) {
            let key = TestKey(text: try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines))
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    private func keyFiles(_ fleet: Fleet, _ index: Int) -> [String] {
        ["keys/tenant\(index).key", "keys/tenant\(index).new", "keys/.tenant\(index).new.migrationkit-new-key"].map(fleet.workspace.path)
    }
}

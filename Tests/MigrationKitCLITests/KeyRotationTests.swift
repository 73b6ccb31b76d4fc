import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rekey --new-key generate` over a fleet, as docs/fleets.md's rotation runs it: a new key
/// is published to its place only once its tenant is on it, read back from there and
/// proven before the old one is retired, and a run stopped or disturbed anywhere leaves
/// every tenant opening with a key found where the docs say.
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

    /// A cleaner that removes the new key files from the key folder while a rotation
    /// runs (a configuration-management purge of files it does not manage): an old key is
    /// deleted only where the new one was proven in its place at that moment; every other
    /// tenant keeps its old key file and opens with it or with the new key kept staged,
    /// which its failure names; a run after the cleaner stops finishes those tenants.
    @Test func aKeyFolderCleanerBesideARotationNeverStrandsATenant() throws {
        // A few rounds here, many in `make soak` (MIGRATIONKIT_SOAK_KILLS).
        let rounds = ProcessInfo.processInfo.environment["MIGRATIONKIT_SOAK_KILLS"].flatMap(Int.init).map { max(1, $0 / 10) }
            ?? TestDepth.count(quick: 1, full: 3)
        for _ in 0..<rounds { try rotateBesideACleaner() }
    }

    private func rotateBesideACleaner() throws {
        let tenants = try Tenants(8)
        let stop = StopFlag()
        let cleaner = Thread {
            while !stop.isSet {
                for file in (try? FileManager.default.contentsOfDirectory(atPath: tenants.workspace.path("keys"))) ?? [] where file.hasSuffix(".next") {
                    unlink(tenants.workspace.path("keys/" + file))
                }
            }
        }
        cleaner.start()
        let rotation = ["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next",
                        "--new-key", "generate", "--old-key", "delete", "--no-backup", "--jobs", "2"]
        let disturbed = try tenants.run(rotation)
        stop.set()
        while !cleaner.isFinished { usleep(1000) }
        #expect(disturbed.status == 0 || disturbed.exitCode == .keyUnavailable, "\(disturbed.output)")
        let table = disturbed.stdout.split(separator: "\n").map(String.init)
        var unfinished: [String] = []
        for name in tenants.names {
            let line = table.first { $0.hasPrefix("tenants/\(name).db ") } ?? ""
            if tenants.key(name) == nil {
                // Retired: only after its new key was read back from its place and opened it.
                #expect(line.contains("rekeyed; old key deleted"), "\(name)'s old key is gone, but: \(line)")
                continue
            }
            unfinished.append(name)
            let staged = tenants.key(".\(name)", "next.migrationkit-new-key")
            #expect(try tenants.opens(name, with: tenants.key(name)) || tenants.opens(name, with: staged), "\(name) opens with no key it has: \(line)")
            if line.contains("failed") {
                #expect(line.contains("is kept in keys/.\(name).next.migrationkit-new-key") && line.contains("old key was left where it was"), "\(line)")
            }
        }
        let finished = try tenants.run(rotation)
        for name in unfinished {
            #expect(try tenants.opens(name, with: tenants.key(name, "next")) && tenants.key(name) == nil, "\(name): \(finished.output)")
        }
        #expect(tenants.leftovers.isEmpty, "\(tenants.leftovers)")
    }
}

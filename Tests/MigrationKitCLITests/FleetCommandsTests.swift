import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every per-database command over a fleet (`FleetCommand`, `FleetRun`): the selectors
/// `migrate` has, each tenant's own key through `{name}` (the new key's too), one table
/// and one `--json` document, the worst exit code, shards, reruns that change nothing
/// twice, and kills and Ctrl-C that leave every tenant opening with one known key.
@Suite struct FleetCommandsTests {
    /// One folder per tenant (`tenants/<id>/main.db`): every tenant's `{name}` is
    /// `main`, so a rotation keyed by `{name}` would write one new key for all and delete
    /// the old key they all still need. It is refused before anything changes, naming
    /// two tenants; `{folder}` gives each its own key, the rotation runs, and `--shard`
    /// then follows `{folder}`, each tenant in exactly one shard.
    @Test func tenantsWhoseNamesCollideAreRefusedAndTheirFolderTellsThemApart() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let tenants = ["acme", "globex", "initech"]
        var keys: [String: TestKey] = [:]
        for tenant in tenants {
            try FileManager.default.createDirectory(atPath: workspace.path("tenants/\(tenant)"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: workspace.path("keys"), withIntermediateDirectories: true)
            keys[tenant] = TestKey.raw()
            try workspace.write("keys/\(tenant).key", keys[tenant]!.text + "\n", mode: 0o600)
            try workspace.write("keys/main.key", TestKey.raw().text + "\n", mode: 0o600)
            #expect(try SQLCipherShell.run(workspace.path("tenants/\(tenant)/main.db"), key: keys[tenant]!, "CREATE TABLE seed (x);").status == 0)
        }
        func run(_ arguments: [String]) throws -> CommandResult {
            try Tool.run(arguments + ["--migrations", workspace.migrations], directory: workspace.root)
        }
        let before = try TreeSnapshot(workspace.root)
        let rotation = ["rekey", "--db-glob", "tenants/*/main.db", "--new-key", "generate", "--old-key", "delete", "--no-backup"]
        let colliding = try run(rotation + ["--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next"])
        #expect(colliding.exitCode == .usage, "\(colliding.output)")
        #expect(colliding.stderr.contains("tenants/acme/main.db and tenants/globex/main.db would share one name: --password-file keys/{name}.key names keys/main.key for both")
                && colliding.stderr.contains("{folder}"), "\(colliding.stderr)")
        #expect(try TreeSnapshot(workspace.root) == before, "a refused rotation changed something")
        let oneExport = try run(["decrypt", "--db-glob", "tenants/*/main.db", "--password-file", "keys/{folder}.key", "--output", "plain-{name}.db"])
        #expect(oneExport.exitCode == .usage && oneExport.stderr.contains("--output plain-{name}.db names plain-main.db for both"), "\(oneExport.output)")
        #expect(try TreeSnapshot(workspace.root) == before, "a refused export wrote something")

        let rotated = try run(rotation + ["--password-file", "keys/{folder}.key", "--new-password-file", "keys/{folder}.next"])
        #expect(rotated.status == 0, "\(rotated.output)")
        for tenant in tenants {
            let next = TestKey(text: try String(contentsOfFile: workspace.path("keys/\(tenant).next"), encoding: .utf8).trimmingCharacters(in: .newlines))
            #expect(next != keys[tenant], "\(tenant) kept its key")
            #expect(try SQLCipherShell.run(workspace.path("tenants/\(tenant)/main.db"), key: next, "SELECT count(*) FROM seed;").status == 0, "\(tenant)")
            #expect(!FileManager.default.fileExists(atPath: workspace.path("keys/\(tenant).key")), "\(tenant)'s old key is still there")
        }
        #expect(FileManager.default.fileExists(atPath: workspace.path("keys/main.key")), "a key no tenant was rotated from was deleted")

        var seen: [String] = []
        for shard in 0..<2 {
            let status = try run(["status", "--db-glob", "tenants/*/main.db", "--password-file", "keys/{folder}.next", "--shard", "\(shard)/2", "--json"])
            #expect(status.status == 0, "\(status.output)")
            seen += try Fleet.entries(status.stdout).keys
        }
        #expect(seen.sorted() == tenants.map { "tenants/\($0)/main.db" }, "\(seen)")
        let byName = try run(["status", "--db-glob", "tenants/*/main.db", "--password-file", "keys/shared.key", "--shard", "0/2"])
        #expect(byName.exitCode == .usage && byName.stderr.contains("--shard follows {name}, and both are main"), "\(byName.output)")
    }

    /// The same file name in several folders (`eu/acme.db`, `us/acme.db`): `{path}`, the
    /// path under the pattern's folder, names each one's key (`keys/eu/acme.key`).
    @Test func tenantsWithOneFileNameInSeveralFoldersAreToldApartByTheirPath() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        for region in ["eu", "us"] {
            try FileManager.default.createDirectory(atPath: workspace.path("tenants/\(region)"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: workspace.path("keys/\(region)"), withIntermediateDirectories: true)
            let key = TestKey.raw()
            try workspace.write("keys/\(region)/acme.key", key.text + "\n", mode: 0o600)
            #expect(try SQLCipherShell.run(workspace.path("tenants/\(region)/acme.db"), key: key, "CREATE TABLE seed (x);").status == 0)
        }
        let byName = try Tool.run(["migrate", "--accept-existing-tables", "--db-glob", "tenants/*/*.db", "--password-file", "keys/{name}.key", "--migrations", workspace.migrations], directory: workspace.root)
        #expect(byName.exitCode == .usage && byName.stderr.contains("names keys/acme.key for both"), "\(byName.output)")
        let byPath = try Tool.run(["migrate", "--accept-existing-tables", "--db-glob", "tenants/*/*.db", "--password-file", "keys/{path}.key", "--no-backup", "--migrations", workspace.migrations], directory: workspace.root)
        #expect(byPath.status == 0 && byPath.stdout.contains("2 migrated"), "\(byPath.output)")
    }

    /// With `--quiet` (a timer's unit) or `--json`, no table lists the failed tenants:
    /// standard error names each, with its sentence and code, before the fleet's own.
    @Test(arguments: ["--quiet", "--json"]) func withoutATableEachFailedDatabaseIsNamedOnStandardError(_ mode: String) throws {
        let fleet = try Fleet(3)
        try fleet.workspace.write("keys/tenant1.key", TestKey.raw().text + "\n", mode: 0o600)
        let verify = try fleet.run(["verify", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", mode])
        #expect(verify.exitCode == .wrongKeyOrNotADatabase, "\(verify.output)")
        let lines = verify.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("migrationkit: error: tenants/tenant1.db: Wrong key") && $0.hasSuffix("(exit 4)") }, "\(verify.stderr)")
        #expect(!verify.stderr.contains("tenant0.db") && !verify.stderr.contains("tenant2.db"), "\(verify.stderr)")
        #expect(lines.last?.hasPrefix("migrationkit: error: 1 of 3 databases failed (listed above)") == true, "\(verify.stderr)")
    }

    /// `--db-list -` and a key read from standard input cannot share it: refused before
    /// anything is read or changed, naming the key option as it was given (a hex key
    /// file, rekey's new key).
    @Test func aListOnStandardInputIsRefusedBesideAKeyThatReadsItNamingThatKeyOption() throws {
        let fleet = try Fleet(1)
        let before = try Data(contentsOf: URL(fileURLWithPath: fleet.paths[0]))
        for (arguments, option) in [
            (["migrate", "--password-file", "-"], "--password-file"),
            (["verify", "--password-hex-file", "-"], "--password-hex-file"),
            (["rekey", "--password-file", "keys/{name}.key", "--new-password-hex-file", "-"], "--new-password-hex-file"),
        ] {
            let result = try fleet.run(arguments + ["--db-list", "-"], stdin: "tenants/tenant0.db\n")
            #expect(result.exitCode == .usage, "\(arguments): \(result.output)")
            #expect(result.stderr.contains("--db-list - and \(option) - both read standard input"), "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: fleet.paths[0])) == before)
    }

    /// A listed tenant whose file is missing is flagged, first, and fails the fleet
    /// (exit 9); alone, `status` of a database not created yet is no failure.
    @Test func statusOverAListFlagsAListedDatabaseThatIsMissing() throws {
        let fleet = try Fleet(2)
        try fleet.workspace.write("tenants.list", "tenants/tenant0.db\ntenants/gone.db\ntenants/tenant1.db\n")
        let status = try fleet.run(["status", "--db-list", "tenants.list", "--password-file", "keys/{name}.key"])
        #expect(status.exitCode == .fileError, "\(status.output)")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count > 1 && lines[1].hasPrefix("tenants/gone.db") && lines[1].contains("missing (exit 9), below"), "\(status.stdout)")
        #expect(status.stdout.contains("tenants/gone.db: is listed, but no database exists at this path"), "\(status.stdout)")
        #expect(!FileManager.default.fileExists(atPath: fleet.workspace.path("tenants/gone.db")), "status created it")
        let alone = try fleet.run(["status", "--db-path", "tenants/gone.db", "--password-file", "keys/tenant0.key"])
        #expect(alone.status == 0, "\(alone.output)")
    }

    @Test func statusOverAFleetIsOneTableWithTheOnesNeedingAttentionFirst() throws {
        let fleet = try Fleet(3)
        try fleet.workspace.migration("0003_genre.sql", "-- migrate:up\nCREATE TABLE genres (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE genres;\n")
        let one = try fleet.run(["migrate", "--accept-existing-tables", "--db-path", "tenants/tenant1.db", "--password-file", "keys/tenant1.key", "--no-backup"])
        try #require(one.status == 0, "\(one.output)")
        let status = try fleet.run(["status", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--exit-code"])
        // Two tenants are behind: the table lists them first, and the code says pending.
        #expect(status.exitCode == .pendingMigrations, "\(status.output)")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ").map(String.init) == ["DATABASE", "APPLIED", "PENDING", "ATTENTION", "FORMAT", "LAST", "APPLIED", "SIZE"],
                "\(status.stdout)")
        #expect(lines.dropFirst().prefix(3).map { $0.split(separator: " ").first.map(String.init) ?? "" }
            == ["tenants/tenant0.db", "tenants/tenant2.db", "tenants/tenant1.db"], "\(status.stdout)")
        let caughtUp = lines[3], behind = lines[1]
        #expect(caughtUp.contains("0003_genre"), "\(status.stdout)")
        #expect(behind.contains("0002_books"), "\(status.stdout)")
        #expect(behind.contains("sqlcipher"), "\(status.stdout)")

        let json = try fleet.run(["status", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--json"])
        #expect(json.status == 0, "\(json.output)")
        let entries = try Fleet.entries(json.stdout)
        #expect(entries.count == 3)
        let report = try #require(entries["tenants/tenant0.db"]?["report"] as? [String: Any])
        #expect(report["pendingCount"] as? Int == 1 && report["appliedCount"] as? Int == 2, "\(report)")
        #expect(try decodeJSON(json.stdout)["command"] as? String == "status")
    }

    @Test func verifyOverAFleetNamesEachFailingTenantWithItsCheckAndEndsWithTheWorstCode() throws {
        let fleet = try Fleet(3)
        // tenant1: an orphan row, written with foreign keys off; tenant2: a key file
        // that is not its key.
        let orphan = try SQLCipherShell.run(fleet.paths[1], key: fleet.keys[1],
                                            "PRAGMA foreign_keys = OFF; INSERT INTO books (authorId, title) VALUES (42, 'orphan');")
        try #require(orphan.status == 0, "\(orphan.output)")
        try fleet.workspace.write("keys/tenant2.key", TestKey.raw().text + "\n", mode: 0o600)
        #expect(chmod(fleet.workspace.path("keys/tenant0.key"), 0o644) == 0)
        let before = fleet.paths.map { fleet.workspace.bytes($0) }
        let result = try fleet.run(["verify", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key"])
        // Damage (3) is worse than a wrong key (4).
        #expect(result.exitCode == .verificationFailed, "\(result.output)")
        let line = { (name: String) in result.stdout.split(separator: "\n").first { $0.hasPrefix("tenants/\(name).db") }.map(String.init) ?? "" }
        #expect(line("tenant0").contains("passed"), "\(result.stdout)")
        #expect(line("tenant1").contains("failed (exit 3)") && line("tenant1").contains("foreign_key_check"), "\(result.stdout)")
        #expect(line("tenant2").contains("failed (exit 4)"), "\(result.stdout)")
        #expect(result.stderr.contains("2 of 3 databases failed"), "\(result.stderr)")
        // A tenant's own warning is said, naming the tenant, once.
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("readable by its group") }
        #expect(warnings.count == 1 && warnings[0].hasPrefix("warning: tenants/tenant0.db: "), "\(result.stderr)")
        // No progress line in a pipe (the Ctrl-C test sees it on a terminal).
        #expect(!result.stderr.contains("databases done"), "\(result.stderr)")
        #expect(fleet.paths.map { fleet.workspace.bytes($0) } == before)

        let json = try fleet.run(["verify", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--json"])
        let entries = try Fleet.entries(json.stdout)
        #expect(entries["tenants/tenant1.db"]?["exitCode"] as? Int == 3 && entries["tenants/tenant2.db"]?["exitCode"] as? Int == 4)
        #expect((entries["tenants/tenant1.db"]?["report"] as? [String: Any])?["passed"] as? Bool == false)
        #expect(entries["tenants/tenant0.db"]?["result"] as? String == "finished")
    }

    /// Two shards of `verify` and of `rekey` take every tenant exactly once between them.
    @Test func shardsOfVerifyAndRekeyCoverTheFleetOnce() throws {
        let fleet = try Fleet(6)
        for index in fleet.paths.indices {
            try fleet.workspace.write("keys/tenant\(index).new", TestKey.raw().text + "\n", mode: 0o600)
        }
        for command in [["verify"], ["rekey", "--new-password-file", "keys/{name}.new", "--no-backup"]] {
            var seen: [String] = []
            var documents: [String] = []
            for shard in 0..<2 {
                let result = try fleet.run(command + ["--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key",
                                                      "--shard", "\(shard)/2", "--json"])
                #expect(result.status == 0, "\(command) shard \(shard): \(result.output)")
                let document = try decodeJSON(result.stdout)
                #expect(document["listed"] as? Int == 6 && document["shard"] as? String == "\(shard)/2", "\(document)")
                seen += try Fleet.entries(result.stdout).keys
                documents.append(result.stdout)
            }
            // docs/fleets.md's jq line merges any command's shards into one document.
            let merged = try FleetsArticle.merge(documents)
            #expect((merged["databases"] as? [Any])?.count == 6 && merged["failed"] as? Int == 0 && merged["unfinished"] as? Int == 0
                    && merged["listed"] as? Int == 6, "\(merged)")
            // A shard that printed nothing (killed, never run) is never merged away.
            let silent = try FleetsArticle.runMerge([documents[0]])
            #expect(silent.status != 0 && silent.stderr.contains("a shard printed no document: the fleet is unfinished"), "\(silent.output)")
            #expect(seen.sorted() == fleet.paths.map { "tenants/" + URL(fileURLWithPath: $0).lastPathComponent }, "\(command): \(seen)")
        }
        for index in fleet.paths.indices {
            let newKey = TestKey(text: try String(contentsOfFile: fleet.workspace.path("keys/tenant\(index).new"), encoding: .utf8)
                .trimmingCharacters(in: .newlines))
            #expect(try fleet.rows(index, key: newKey) == 1 && fleet.rows(index, key: fleet.keys[index]) == nil)
        }
    }

    /// Each tenant's new key from a template; a rerun finds every tenant on its new key
    /// and changes nothing; a tenant whose new key file is missing fails alone.
    @Test func rekeyGivesEachTenantItsOwnNewKeyAndARerunChangesNothing() throws {
        let fleet = try Fleet(3)
        let newKeys = fleet.paths.map { _ in TestKey.raw() }
        for index in 0..<2 { try fleet.workspace.write("keys/tenant\(index).new", newKeys[index].text + "\n", mode: 0o600) }
        let arguments = ["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.new"]
        let first = try fleet.run(arguments + ["--no-backup"])
        #expect(first.exitCode == .keyUnavailable, "\(first.output)")
        #expect(first.stdout.contains("keys/tenant2.new"), "\(first.stdout)")
        #expect(try fleet.rows(2, key: fleet.keys[2]) == 1)
        try fleet.workspace.write("keys/tenant2.new", newKeys[2].text + "\n", mode: 0o600)
        let second = try fleet.run(arguments + ["--no-backup", "--json"])
        #expect(second.status == 0, "\(second.output)")
        let entries = try Fleet.entries(second.stdout)
        #expect(entries.values.compactMap { ($0["report"] as? [String: Any])?["changed"] as? Bool }.sorted { !$0 && $1 } == [false, false, true], "\(entries)")
        for index in fleet.paths.indices {
            #expect(try fleet.rows(index, key: newKeys[index]) == 1 && fleet.rows(index, key: fleet.keys[index]) == nil)
        }
        let before = fleet.paths.map { fleet.workspace.bytes($0) }
        let third = try fleet.run(arguments)
        #expect(third.status == 0 && third.stdout.contains("3 done"), "\(third.output)")
        #expect(third.stdout.split(separator: "\n").filter { $0.contains("already on the new key") }.count == 3, "\(third.stdout)")
        #expect(fleet.paths.map { fleet.workspace.bytes($0) } == before)
        #expect(!third.output.contains(newKeys[0].text) && !second.output.contains(newKeys[1].text))

        // Deleting the old key: never a key the tenants share, never one a backup needs.
        let shared = try fleet.run(["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/tenant0.new",
                                    "--new-password-file", "keys/{name}.next", "--new-key", "generate", "--old-key", "delete", "--no-backup"])
        #expect(shared.exitCode == .usage && shared.stderr.contains("each database's own current key"), "\(shared.output)")
        let backedUp = try fleet.run(["rekey", "--db-path", "tenants/tenant0.db", "--password-file", "keys/tenant0.new",
                                      "--new-password-file", "keys/tenant0.next", "--new-key", "generate", "--old-key", "delete"])
        #expect(backedUp.exitCode == .usage && backedUp.stderr.contains("the only key that opens the backup"), "\(backedUp.output)")
        #expect(!FileManager.default.fileExists(atPath: fleet.workspace.path("keys/tenant0.next")))
        // A wrong current key: refused, and no new key is made for it.
        try fleet.workspace.write("keys/wrong.key", TestKey.raw().text + "\n", mode: 0o600)
        let wrong = try fleet.run(["rekey", "--db-path", "tenants/tenant0.db", "--password-file", "keys/wrong.key",
                                   "--new-password-file", "keys/tenant0.next", "--new-key", "generate", "--no-backup"])
        #expect(wrong.exitCode == .wrongKeyOrNotADatabase, "\(wrong.output)")
        #expect(!FileManager.default.fileExists(atPath: fleet.workspace.path("keys/tenant0.next")))
        #expect(fleet.paths.map { fleet.workspace.bytes($0) } == before)
    }

    /// rollback takes --to over a fleet, so a second run rolls nothing back twice;
    /// baseline, diff, encrypt --in-place and decrypt each take a fleet too.
    @Test func theOtherCommandsRunAFleetAndRerunsChangeNothingTwice() throws {
        let fleet = try Fleet(2)
        let key = ["--password-file", "keys/{name}.key"]
        let steps = try fleet.run(["rollback", "--db-glob", "tenants/*.db"] + key)
        #expect(steps.exitCode == .usage && steps.stderr.contains("rollback takes --to ID"), "\(steps.output)")
        for _ in 0..<2 {
            let back = try fleet.run(["rollback", "--db-glob", "tenants/*.db", "--to", "0001_authors", "--no-backup"] + key)
            #expect(back.status == 0, "\(back.output)")
        }
        // Managed tenants behind the target, without its table: a baseline would record
        // a migration that never ran; each is refused (exit 7) and nothing recorded.
        let baseline = try fleet.run(["baseline", "--db-glob", "tenants/*.db", "--to", "0002_books", "--json"] + key)
        #expect(baseline.exitCode == .refused, "\(baseline.output)")
        #expect(try Fleet.entries(baseline.stdout).values.allSatisfy {
            $0["result"] as? String == "failed" && (($0["error"] as? [String: Any])?["message"] as? String)?.contains("`migrate --to 0002_books`") == true
        }, "\(baseline.stdout)")
        // Each tenant's seed table, made before its migrations: drift, exit 3.
        let drift = try fleet.run(["diff", "--db-glob", "tenants/*.db"] + key)
        #expect(drift.exitCode == .verificationFailed && drift.stdout.contains("drift: table seed: only in the database"), "\(drift.output)")

        let noName = try fleet.run(["decrypt", "--db-glob", "tenants/*.db", "--output", "plain.db"] + key)
        #expect(noName.exitCode == .usage && noName.stderr.contains("{name}"), "\(noName.output)")
        try FileManager.default.createDirectory(atPath: fleet.workspace.path("plain"), withIntermediateDirectories: true)
        let decrypted = try fleet.run(["decrypt", "--db-glob", "tenants/*.db", "--output", "plain/{name}.db"] + key)
        #expect(decrypted.status == 0, "\(decrypted.output)")
        // Run again (after a kill, or a tenant that failed): the copies written are done;
        // one that is not a copy of its tenant is still a file in the way (exit 9).
        let exports = (0..<2).map { fleet.workspace.path("plain/tenant\($0).db") }
        let written = exports.map { fleet.workspace.bytes($0) }
        let again = try fleet.run(["decrypt", "--db-glob", "tenants/*.db", "--output", "plain/{name}.db", "--json"] + key)
        let rerun = try Fleet.entries(again.stdout).values
        #expect(again.status == 0 && rerun.count == 2 && rerun.allSatisfy { ($0["report"] as? [String: Any])?["changed"] as? Bool == false }, "\(again.output)")
        #expect(exports.map { fleet.workspace.bytes($0) } == written, "a rerun rewrote a copy")
        #expect(try SQLCipherShell.run(fleet.paths[1], key: fleet.keys[1], "INSERT INTO seed VALUES ('after the export');").status == 0)
        let stale = try fleet.run(["decrypt", "--db-glob", "tenants/*.db", "--output", "plain/{name}.db"] + key)
        #expect(stale.exitCode == .fileError && stale.stdout.contains("plain/tenant1.db already exists") && stale.stdout.contains("already exported"), "\(stale.output)")
        #expect(try SQLCipherShell.run(fleet.paths[1], key: fleet.keys[1], "DELETE FROM seed WHERE x = 'after the export';").status == 0)
        #expect(try String(contentsOfFile: fleet.workspace.path("plain/tenant1.db"), encoding: .isoLatin1).hasPrefix("SQLite format 3"))
        for _ in 0..<2 {
            let encrypted = try fleet.run(["encrypt", "--db-glob", "plain/*.db", "--in-place", "--no-backup", "--password-file", "keys/{name}.key"])
            #expect(encrypted.status == 0, "\(encrypted.output)")
        }
        let copy = try SQLCipherShell.run(fleet.workspace.path("plain/tenant1.db"), key: fleet.keys[1], "SELECT count(*) FROM seed;")
        #expect(copy.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(copy.output)")
    }

    /// Generated keys go to each tenant's own Secret Service item when the new key
    /// options name one, and the old key files are deleted once each is proven.
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func generatedKeysGoToEachTenantsSecretServiceItem() throws {
        let fleet = try Fleet(3)
        let service = "org.migrationkit.tests.rotation.\(UUID().uuidString)"
        defer {
            for index in 0..<3 { _ = try? Binary.run(["clear", "service", service, "account", "tenant\(index)"], executable: "/usr/bin/secret-tool") }
        }
        let rotate = try fleet.run(["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-keychain-service", service,
                                    "--new-keychain-account", "{name}", "--new-key", "generate", "--old-key", "delete", "--no-backup"])
        #expect(rotate.status == 0, "\(rotate.output)")
        for index in 0..<3 {
            #expect(!FileManager.default.fileExists(atPath: fleet.workspace.path("keys/tenant\(index).key")))
            #expect(try fleet.rows(index, key: fleet.keys[index]) == nil)
        }
        let verify = try fleet.run(["verify", "--db-glob", "tenants/*.db", "--keychain-service", service, "--keychain-account", "{name}"])
        #expect(verify.status == 0 && verify.stdout.contains("3 done"), "\(verify.output)")
    }
}

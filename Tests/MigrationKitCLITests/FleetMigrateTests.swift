import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `migrate` over many databases at once (repeated --db-path, --db-glob, --jobs): each
/// database all or nothing, one failure never stopping the others, keys per database
/// from a `{name}` template, one summary.
@Suite struct FleetMigrateTests: FleetMigrateHelpers {
    @Test func aGlobAndRepeatedPathsMigrateEveryDatabaseOnce() throws {
        let (workspace, paths) = try fleet(5)
        // tenant0 named twice (once through the pattern): migrated once, listed once.
        let result = try migrate(workspace, ["--db-path", paths[0], "--db-glob", workspace.path("tenants/*.db"), "--jobs", "3", "--json"])
        #expect(result.status == 0, "\(result.output)")
        let document = try decodeJSON(result.stdout)
        let databases = try #require(document["databases"] as? [[String: Any]])
        #expect(databases.map { $0["database"] as? String } == paths)
        #expect(databases.allSatisfy { $0["result"] as? String == "migrated" && ($0["applied"] as? [Any])?.count == 2 && $0["error"] is NSNull })
        #expect(document["failed"] as? Int == 0 && document["jobs"] as? Int == 3)
        for path in paths {
            #expect(try ledger(path, key: workspace.key) == "0001_authors,0002_books")
            // Each was backed up first (the default), beside it, and the pattern that
            // found the databases does not take a backup for one the next time.
            #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("tenants")).contains { $0.hasPrefix(URL(fileURLWithPath: path).lastPathComponent + ".backup-") })
        }
        let again = try migrate(workspace, ["--db-glob", workspace.path("tenants/*")])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.stdout.contains("5 databases in"), "\(again.stdout)")
        #expect(again.stdout.contains("0 migrated, 5 already up to date"), "\(again.stdout)")
    }

    /// A pattern skips MigrationKit's own files only: a tenant named like
    /// `team.backup-ops.db` is a database to migrate, never silently left out.
    @Test func aPatternSkipsOnlyMigrationKitsOwnFiles() throws {
        let (workspace, _) = try fleet(1)
        let lookalike = workspace.path("tenants/team.backup-ops.db")
        #expect(try SQLCipherShell.run(lookalike, key: workspace.key, "CREATE TABLE seed (x);").status == 0)
        try workspace.write("tenants/tenant0.db.backup-20261121T235330.385Z", "a backup")
        try workspace.write("tenants/.tenant0.db.migrationkit-changing", "a note")
        let result = try migrate(workspace, ["--db-glob", workspace.path("tenants/*"), "--no-backup", "--json"])
        #expect(result.status == 0, "\(result.output)")
        let databases = try #require(try decodeJSON(result.stdout)["databases"] as? [[String: Any]])
        #expect(databases.compactMap { $0["database"] as? String }.sorted() == [lookalike, workspace.path("tenants/tenant0.db")], "\(databases)")
        #expect(try ledger(lookalike, key: workspace.key) == "0001_authors,0002_books")
        let one = try migrate(workspace, ["--db-glob", lookalike, "--no-backup"])
        #expect(one.stdout.contains("1 database in"), "\(one.stdout)")
    }

    /// Three processes, each its own `--shard i/3` of one fleet listed in a different
    /// order (`--db-list`, from a file and from standard input): every database is
    /// migrated exactly once, the shards' union is the whole fleet, and a shard run again
    /// after a failure takes the same share and finishes it.
    @Test func shardsSplitAFleetWhateverOrderItIsListedIn() async throws {
        let (workspace, paths) = try fleet(12)
        // A step that records every run of it, to count them.
        try workspace.migration("0003_count.up.sql", "CREATE TABLE IF NOT EXISTS runs (n); INSERT INTO runs VALUES (1);\n")
        try workspace.write("forward.list", paths.joined(separator: "\n") + "\n# a comment\n\n")
        let shuffled = paths.reversed().map { $0.replacingOccurrences(of: workspace.root + "/", with: "") }.joined(separator: "\n")
        let results = try await withThrowingTaskGroup(of: (Int, CommandResult).self) { group in
            for index in 0..<3 {
                group.addTask {
                    let fromStandardInput = index == 1
                    return (index, try Tool.run(["migrate", "--accept-existing-tables", "--db-list", fromStandardInput ? "-" : workspace.path("forward.list"), "--shard", "\(index)/3",
                                                   "--json", "--no-backup"] + ["--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                                  stdin: fromStandardInput ? shuffled : nil, directory: workspace.root))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (_, result) in results { #expect(result.status == 0, "\(result.output)") }
        let documents = try results.sorted { $0.0 < $1.0 }.map { try decodeJSON($0.1.stdout) }
        let shares = documents.map { ($0["databases"] as? [[String: Any]] ?? []).compactMap { $0["database"] as? String }.map { URL(fileURLWithPath: $0).lastPathComponent } }
        #expect(shares.flatMap { $0 }.sorted() == paths.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted(), "\(shares)")
        #expect(documents.allSatisfy { $0["listed"] as? Int == 12 && ($0["shard"] as? String)?.hasSuffix("/3") == true })
        // docs/fleets.md's jq recipe assembles the fleet's table from the shards' documents.
        let fleet = try FleetsArticle.merge(results.map(\.1.stdout))
        #expect((fleet["databases"] as? [Any])?.count == 12 && fleet["failed"] as? Int == 0 && fleet["listed"] as? Int == 12, "\(fleet)")
        for path in paths {
            #expect(try ledger(path, key: workspace.key) == "0001_authors,0002_books,0003_count")
            let runs = try SQLCipherShell.run(path, key: workspace.key, "SELECT count(*) FROM runs;")
            #expect(runs.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(path) was migrated more than once")
        }

        // A shard's retry after a failure: the same share, finished.
        try workspace.migration("0004_fails_once.up.sql", "CREATE TABLE later (x);\n")
        let share = try #require(shares.first { !$0.isEmpty })
        let index = try #require(shares.firstIndex(of: share))
        let victim = workspace.path("tenants/" + share[0])
        #expect(try SQLCipherShell.run(victim, key: workspace.key, "CREATE TABLE later (x);").status == 0)
        let shardArguments = ["--db-list", workspace.path("forward.list"), "--shard", "\(index)/3", "--no-backup", "--json"]
        let failing = try migrate(workspace, shardArguments)
        #expect(failing.exitCode == .migrationFailed, "\(failing.output)")
        #expect(try SQLCipherShell.run(victim, key: workspace.key, "DROP TABLE later;").status == 0)
        let retry = try decodeJSON(try migrate(workspace, shardArguments).stdout)
        let retried = (retry["databases"] as? [[String: Any]] ?? []).compactMap { $0["database"] as? String }.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(retried == share, "the retry took another share: \(retried) instead of \(share)")
        #expect(try ledger(victim, key: workspace.key) == "0001_authors,0002_books,0003_count,0004_fails_once")
    }

    @Test func oneFailingDatabaseIsLeftAsItWasAndTheOthersAreMigrated() throws {
        let (workspace, paths) = try fleet(4)
        // tenant2 holds data that makes 0003 fail, after 0001 and 0002 ran in the same
        // transaction.
        try workspace.migration("0003_unique_seed.up.sql", "CREATE UNIQUE INDEX seed_x ON seed(x);\n")
        #expect(try SQLCipherShell.run(paths[2], key: workspace.key, "INSERT INTO seed VALUES (1);").status == 0)
        // tenant3 has another key.
        try FileManager.default.removeItem(atPath: paths[3])
        #expect(try SQLCipherShell.run(paths[3], passphrase: "another key", "CREATE TABLE seed (x);").status == 0)
        let before2 = try fileBytes(paths[2])
        let before3 = try fileBytes(paths[3])

        let result = try migrate(workspace, ["--db-glob", workspace.path("tenants/*.db"), "--no-backup"])
        // The exit code is the first failed database's: tenant2's failed migration.
        #expect(result.exitCode == .migrationFailed, "\(result.output)")
        #expect(result.stdout.contains(paths[2]) && result.stdout.contains("failed (exit 2)"), "\(result.stdout)")
        #expect(result.stdout.contains("failed (exit 4)"), "\(result.stdout)")
        #expect(result.stdout.contains("4 databases in") && result.stdout.contains("2 migrated, 0 already up to date, 2 failed"), "\(result.stdout)")
        #expect(result.stderr.contains("2 of 4 databases failed"), "\(result.stderr)")
        // All or nothing per database: not even 0001 stayed in tenant2.
        #expect(try fileBytes(paths[2]) == before2)
        #expect(try fileBytes(paths[3]) == before3)
        for path in paths[0...1] {
            #expect(try ledger(path, key: workspace.key) == "0001_authors,0002_books,0003_unique_seed")
        }
        #expect(!result.output.contains(workspace.key.secret))
    }

    @Test(.tags(.passphrase)) func aKeyFileTemplateGivesEachDatabaseItsOwnKey() throws {
        let (workspace, paths) = try fleet(3, key: { "key of \($0)" })
        try FileManager.default.createDirectory(atPath: workspace.path("keys"), withIntermediateDirectories: true)
        for index in 0..<2 {
            try workspace.write("keys/tenant\(index).key", "key of tenant\(index)\n", mode: 0o600)
        }
        let result = try Tool.run(["migrate", "--accept-existing-tables", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key",
                                     "--migrations", workspace.migrations, "--no-backup"], directory: workspace.root)
        // tenant2 has no key file: it alone fails, with the file named.
        #expect(result.exitCode == .keyUnavailable, "\(result.output)")
        #expect(result.stdout.contains("keys/tenant2.key"), "\(result.stdout)")
        for index in 0..<2 {
            #expect(try ledger(paths[index], key: .passphrase("key of tenant\(index)")) == "0001_authors,0002_books")
        }
        #expect(!result.output.contains("key of"))

        // One database with a template: the same rule.
        try workspace.write("keys/tenant2.key", "key of tenant2\n", mode: 0o600)
        let one = try Tool.run(["migrate", "--accept-existing-tables", "--db-path", "tenants/tenant2.db", "--password-file", "keys/{name}.key",
                                  "--migrations", workspace.migrations, "--no-backup"], directory: workspace.root)
        #expect(one.status == 0, "\(one.output)")

        // Every command that takes a database and a key expands `{name}` the same way.
        for command in [["status"], ["verify"], ["schema-dump"], ["rollback", "--no-backup"], ["baseline", "--to", "0001_authors"]] {
            let other = try Tool.run(command + ["--db-path", "tenants/tenant2.db", "--password-file", "keys/{name}.key",
                                                  "--migrations", workspace.migrations], directory: workspace.root)
            #expect(other.status == 0, "\(command): \(other.output)")
        }
        #expect(try ledger(paths[2], key: .passphrase("key of tenant2")) == "0001_authors")
    }

    /// A symbolic link to a tenant (an alias, which the pattern lists first) does not
    /// hide the tenant: the real file is migrated once, under its own name and key.
    @Test func anAliasLinkStandsForTheRealTenant() throws {
        let (workspace, paths) = try fleet(2, key: { "key of \($0)" })
        try FileManager.default.createDirectory(atPath: workspace.path("keys"), withIntermediateDirectories: true)
        for index in 0..<2 { try workspace.write("keys/tenant\(index).key", "key of tenant\(index)\n", mode: 0o600) }
        try FileManager.default.createSymbolicLink(atPath: workspace.path("tenants/a-current.db"), withDestinationPath: "tenant1.db")
        let result = try Tool.run(["migrate", "--accept-existing-tables", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key",
                                     "--migrations", workspace.migrations, "--no-backup", "--json"], directory: workspace.root)
        #expect(result.status == 0, "\(result.output)")
        let databases = try #require(try decodeJSON(result.stdout)["databases"] as? [[String: Any]])
        #expect(Set(databases.compactMap { $0["database"] as? String }.map { URL(fileURLWithPath: $0).lastPathComponent }) == ["tenant0.db", "tenant1.db"], "\(databases)")
        #expect(databases.count == 2)
        for index in 0..<2 {
            #expect(try ledger(paths[index], key: .passphrase("key of tenant\(index)")) == "0001_authors,0002_books")
        }
        // One command on the alias takes the real file's key as well.
        let status = try Tool.run(["status", "--db-path", "tenants/a-current.db", "--password-file", "keys/{name}.key",
                                     "--migrations", workspace.migrations], directory: workspace.root)
        #expect(status.status == 0, "\(status.output)")
    }

    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"), .tags(.passphrase))
    func aKeychainAccountTemplateReadsEachDatabasesItem() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let (workspace, paths) = try fleet(3, key: { "secret of \($0)" })
        let service = "migrationkit-fleet-test-\(UUID().uuidString)"
        for index in 0..<3 {
            let store = try Binary.run(["store", "--label=MigrationKit fleet test", "service", service, "account", "tenant-tenant\(index)"],
                                       executable: "/usr/bin/secret-tool", stdin: "secret of tenant\(index)")
            #expect(store.status == 0, "\(store.output)")
        }
        defer {
            for index in 0..<3 { _ = try? Binary.run(["clear", "service", service, "account", "tenant-tenant\(index)"], executable: "/usr/bin/secret-tool") }
        }
        let result = try Tool.run(["migrate", "--accept-existing-tables", "--db-glob", workspace.path("tenants/*.db"), "--keychain-service", service,
                                     "--keychain-account", "tenant-{name}", "--migrations", workspace.migrations, "--no-backup"])
        #expect(result.status == 0, "\(result.output)")
        for (index, path) in paths.enumerated() {
            #expect(try ledger(path, key: .passphrase("secret of tenant\(index)")) == "0001_authors,0002_books")
        }
        #expect(!result.output.contains("secret of"))
    }

    @Test func usageErrorsNameTheOptionAndChangeNothing() throws {
        let (workspace, paths) = try fleet(2)
        let before = try paths.map(fileBytes)
        let cases: [([String], String)] = [
            (["--db-glob", workspace.path("nowhere/*.db")], "matches no database file"),
            (["--db-glob", workspace.path("tenants/*.db"), "--jobs", "0"], "--jobs must be between"),
            (["--db-path", paths[0], "--db-path", paths[1], "--erase-on-schema-change", "--yes"], "--erase-on-schema-change works on one database"),
        ]
        for (arguments, message) in cases {
            let result = try migrate(workspace, arguments)
            #expect(result.exitCode == .usage, "\(arguments): \(result.output)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let dump = try Tool.run(["schema-dump", "--db-path", paths[0], "--db-path", paths[1], "--password-file", workspace.keyFile])
        #expect(dump.exitCode == .usage && dump.stderr.contains("this command works on one database"), "\(dump.output)")
        #expect(try paths.map(fileBytes) == before)
    }
}

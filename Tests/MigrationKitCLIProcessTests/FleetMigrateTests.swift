import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fleet migrate tests whose subject is the process: a terminal's progress line and
/// prompt, and a kill part way. The others are in MigrationKitCLITests.
@Suite struct FleetMigrateTests: FleetMigrateHelpers {
    /// What a failed database leaves is said: its backup (written first, kept) in the
    /// table, in --json and in the closing sentence; every failure line names its
    /// database; the progress line on a terminal never counts a failure as migrated.
    @Test func aFailedDatabaseSaysWhatItLeftAndNamesItself() throws {
        let (workspace, paths) = try fleet(2)
        // 0003 fails on tenant1 only (a refusal that names no file by itself: lint).
        try workspace.migration("0003_unique_seed.up.sql", "CREATE UNIQUE INDEX seed_x ON seed(x);\n")
        #expect(try SQLCipherShell.run(paths[1], key: workspace.key, "INSERT INTO seed VALUES (1);").status == 0)
        let result = try migrate(workspace, ["--db-glob", workspace.path("tenants/*.db"), "--json"])
        #expect(result.exitCode == .migrationFailed, "\(result.output)")
        let databases = try #require(try decodeJSON(result.stdout)["databases"] as? [[String: Any]])
        let failed = try #require(databases.first { $0["result"] as? String == "failed" })
        let backup = try #require(failed["backup"] as? String, "the failed database's backup is reported: \(failed)")
        #expect(FileManager.default.fileExists(atPath: backup))
        #expect(((failed["error"] as? [String: Any])?["message"] as? String)?.hasPrefix(paths[1] + ": ") == true, "\(failed)")
        #expect(result.stderr.contains("with the backup taken before, kept and listed above"), "\(result.stderr)")

        // On a terminal, jobs one at a time: the first database fails after a slow step,
        // so the line is drawn while the second one runs.
        let (slow, slowPaths) = try fleet(2)
        #expect(try SQLCipherShell.run(slowPaths[0], key: slow.key, "INSERT INTO seed VALUES (1);").status == 0)
        try slow.migration("0003_fill_then_unique.up.sql", """
            CREATE TABLE filler (x);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 400000) INSERT INTO filler SELECT x FROM n;
            CREATE UNIQUE INDEX seed_x ON seed(x);
            """)
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let terminal = try PseudoTerminal.run(
            [Binary.migrationkit, "migrate", "--accept-existing-tables", "--db-glob", slow.path("tenants/*.db"), "--migrations", slow.migrations,
             "--password-file", slow.keyFile, "--no-backup", "--jobs", "1"],
            environment: environment, steps: [], timeout: 60)
        #expect(terminal.status == CLIExitCodeValue.migrationFailed.rawValue, "\(terminal.transcript)")
        #expect(terminal.transcript.contains("[1/2] databases done, 1 failed") && !terminal.transcript.contains("databases migrated"), "\(terminal.transcript)")
        #expect(terminal.transcript.contains("failed (exit 2): \(slowPaths[0]): "), "\(terminal.transcript)")
    }

    @Test func aKillLeavesEveryDatabaseMigratedOrUntouchedAndTheNextRunFinishes() throws {
        let (workspace, paths) = try fleet(12)
        // A long data step after a quick one: a kill lands inside a transaction.
        try workspace.migration("0003_fill.up.sql", """
            CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500000)
                INSERT INTO filler (text) SELECT printf('row %d of filler text', x) FROM n;
            """)
        let arguments = [Binary.migrationkit, "migrate", "--accept-existing-tables", "--db-glob", workspace.path("tenants/*.db"), "--jobs", "2", "--no-backup",
                         "--password-file", workspace.keyFile, "--migrations", workspace.migrations]
        let process = try Guarded.launch(arguments, directory: workspace.root)
        // Until some databases are done and others are not. Each look opens a database
        // with the shell (a key derivation), so a look follows the fleet's own order
        // (sorted paths) and stops at the first database not done yet: a pass over all
        // twelve could outlast the fleet.
        let deadline = ContinuousClock.now + .seconds(120)
        func migratedInOrder() throws -> Int {
            var count = 0
            for path in paths.sorted() {
                guard try ledger(path, key: workspace.key).hasSuffix("0003_fill") else { break }
                count += 1
            }
            return count
        }
        while process.isRunning, ContinuousClock.now < deadline, try migratedInOrder() < 2 {
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let migrated = try paths.filter { try ledger($0, key: workspace.key).hasSuffix("0003_fill") }.count
        try #require(migrated >= 2 && migrated < paths.count, "the kill did not land in the middle of the fleet (\(migrated) of \(paths.count) migrated)")

        for path in paths {
            let applied = try ledger(path, key: workspace.key)
            #expect(applied == "" || applied == "0001_authors,0002_books,0003_fill", "\(path) is half-migrated: \(applied)")
            let check = try SQLCipherShell.run(path, key: workspace.key, "PRAGMA integrity_check;")
            #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(path): \(check.output)")
        }
        let again = try migrate(workspace, ["--db-glob", workspace.path("tenants/*.db"), "--no-backup"])
        #expect(again.status == 0, "\(again.output)")
        for path in paths {
            #expect(try ledger(path, key: workspace.key) == "0001_authors,0002_books,0003_fill")
        }
    }

    @Test func onATerminalTheKeyIsAskedOnceForTheWholeFleet() throws {
        let (workspace, paths) = try fleet(3)
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let result = try PseudoTerminal.run(
            [Binary.migrationkit, "migrate", "--accept-existing-tables", "--db-glob", workspace.path("tenants/*.db"), "--migrations", workspace.migrations, "--no-backup"],
            environment: environment, steps: [.init(expect: "Key for the 3 databases", send: workspace.key.text + "\n")], timeout: 60)
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.transcript.contains("3 migrated"), "\(result.transcript)")
        for path in paths {
            #expect(try ledger(path, key: workspace.key) == "0001_authors,0002_books")
        }
    }
}

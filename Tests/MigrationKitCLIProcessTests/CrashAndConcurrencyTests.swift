import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How many SIGKILLs each crash test delivers: `full` in `make test`, a few in
/// `make check` (`TestDepth`), many more from `make soak` (MIGRATIONKIT_SOAK_KILLS).
private func killCount(quick: Int = 3, full: Int) -> Int {
    ProcessInfo.processInfo.environment["MIGRATIONKIT_SOAK_KILLS"].flatMap(Int.init) ?? TestDepth.count(quick: quick, full: full)
}

/// Starts `migrationkit` with output discarded, to be killed.
private func launch(_ arguments: [String], directory: String) throws -> ChildProcess {
    try Guarded.launch([Binary.migrationkit] + arguments, directory: directory)
}

/// Runs `arguments` and SIGKILLs the process after `delay` (if it is still running).
private func runAndKill(_ arguments: [String], directory: String, after delay: Duration) throws {
    let process = try launch(arguments, directory: directory)
    let deadline = ContinuousClock.now + delay
    while process.isRunning, ContinuousClock.now < deadline { usleep(500) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

/// How long an uninterrupted run takes, to spread kills over the whole of it.
private func measure(_ body: () throws -> Void) rethrows -> Duration {
    let start = ContinuousClock.now
    try body()
    return ContinuousClock.now - start
}

/// A database key read from a workspace's key file, as the CLI reads it.
private func key(_ workspace: Workspace) -> DatabaseKey {
    workspace.databaseKey
}

/// Not serialized: every test has its own workspaces and keyring service, and each spreads
/// its kills over a run it measured under the same load, so the tests run beside each
/// other and the rest of the suite instead of one after another at its end.
@Suite struct CrashSafetyTests {
    /// Five steps, a long data migration among them. Each step also records itself in
    /// `marks` in the same transaction, and leaves a trace in the data, so ledger and
    /// data can be compared after any kill.
    private func writeCrashMigrations(_ workspace: Workspace, rows: Int = 40_000) throws {
        try workspace.migration("0001_items.sql", """
            -- migrate:up
            CREATE TABLE marks (step TEXT PRIMARY KEY);
            CREATE TABLE items (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT NOT NULL);
            WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter WHERE x < \(rows))
                INSERT INTO items (n, label) SELECT x, 'item ' || x FROM counter;
            INSERT INTO marks VALUES ('0001_items');
            """)
        try workspace.migration("0002_recreate_items.sql", """
            -- migrate:up
            CREATE TABLE items_new (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT NOT NULL, doubled INTEGER NOT NULL);
            INSERT INTO items_new (id, n, label, doubled) SELECT id, n, label, n * 2 FROM items;
            DROP TABLE items;
            ALTER TABLE items_new RENAME TO items;
            INSERT INTO marks VALUES ('0002_recreate_items');
            """)
        try workspace.migration("0003_index.sql", "-- migrate:up\nCREATE INDEX items_n ON items(n);\nINSERT INTO marks VALUES ('0003_index');\n")
        try workspace.migration("0004_relabel.sql", "-- migrate:up\nUPDATE items SET label = label || '!';\nINSERT INTO marks VALUES ('0004_relabel');\n")
        try workspace.migration("0005_summary.sql", "-- migrate:up\nCREATE TABLE summary AS SELECT count(*) AS c, sum(n) AS s FROM items;\nINSERT INTO marks VALUES ('0005_summary');\n")
    }

    /// After a kill: the database opens with its key, passes quick_check, and every
    /// step is either fully applied and recorded, or neither; every applied step has its
    /// checksum in the history (a run writes the rows of its steps ahead, so rows of
    /// steps it did not reach may be there too, until a run finishes: `finished`).
    private func expectConsistent(_ workspace: Workspace, rows: Int, finished: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard FileManager.default.fileExists(atPath: workspace.database) else { return }  // killed before creating it
        let writer = try SQLCipherWriter(path: workspace.database, key: key(workspace))
        try writer.read { db throws in
            #expect(try db.fetchString(sql: "PRAGMA quick_check") == "ok", sourceLocation: sourceLocation)
            let ledger = Set(try MigrationBookkeeping.snapshot(in: db).identifiers)
            let marks = Set(try db.tableExists("marks") ? db.fetchStrings(sql: "SELECT step FROM marks") : [])
            #expect(ledger == marks, "ledger \(ledger.sorted()) vs data \(marks.sorted())", sourceLocation: sourceLocation)
            let checksummed = Set(try db.tableExists("grdb_migrationkit_history")
                ? db.fetchStrings(sql: "SELECT identifier FROM grdb_migrationkit_history WHERE checksum IS NOT NULL") : [])
            #expect(ledger.isSubset(of: checksummed), "applied without a checksum: \(ledger.subtracting(checksummed).sorted())", sourceLocation: sourceLocation)
            if finished { #expect(checksummed == ledger, "history \(checksummed.sorted())", sourceLocation: sourceLocation) }
            if ledger.contains("0001_items") {
                #expect(try db.fetchInt(sql: "SELECT count(*) FROM items") == rows, sourceLocation: sourceLocation)
            }
            let hasDoubled = try db.columns(in: "items").contains { $0.name == "doubled" }
            #expect(hasDoubled == ledger.contains("0002_recreate_items"), sourceLocation: sourceLocation)
            if hasDoubled {
                #expect(try db.fetchInt(sql: "SELECT count(*) FROM items WHERE doubled <> n * 2") == 0, sourceLocation: sourceLocation)
            }
            if ledger.contains("0001_items") {
                let relabeled = try db.fetchInt(sql: "SELECT count(*) FROM items WHERE label LIKE '%!'") ?? -1
                #expect(relabeled == (ledger.contains("0004_relabel") ? rows : 0), sourceLocation: sourceLocation)
            }
            #expect(try db.tableExists("summary") == ledger.contains("0005_summary"), sourceLocation: sourceLocation)
        }
    }

    @Test func killingMigrateAtRandomMomentsNeverBreaksTheDatabase() throws {
        let rows = 40_000
        let template = try Workspace()
        try writeCrashMigrations(template, rows: rows)
        let full = try measure { () throws in #expect(try template.run("migrate", ["--no-backup"]).status == 0) }
        // A database already at 0001, so later runs also take (and are killed during) a backup.
        let partial = try Workspace()
        try writeCrashMigrations(partial, rows: rows)
        #expect(try partial.run("migrate", ["--to", "0001_items"]).status == 0)

        var generator = SystemRandomNumberGenerator()
        let kills = killCount(quick: 4, full: 50)
        for iteration in 0..<kills {
            let workspace = try Workspace(key: partial.key)
            try writeCrashMigrations(workspace, rows: rows)
            if iteration % 2 == 1 {
                try FileManager.default.copyItem(atPath: partial.database, toPath: workspace.database)
            }
            let delay = Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            try runAndKill(["migrate"] + workspace.options(), directory: workspace.root, after: delay)
            try expectConsistent(workspace, rows: rows)
            // The next run finishes the job.
            let finish = try workspace.run("migrate")
            #expect(finish.status == 0, "iteration \(iteration): \(finish.output)")
            try expectConsistent(workspace, rows: rows, finished: true)
            #expect(try workspace.run("status").stdout.contains("5 applied, 0 pending."))
            // No half-written backup is ever left under a backup's name.
            for name in try FileManager.default.contentsOfDirectory(atPath: workspace.root) where name.hasPrefix("app.db.backup-") {
                let backup = try SQLCipherWriter(path: workspace.root + "/" + name, key: key(workspace))
                #expect(try backup.read { try $0.fetchString(sql: "PRAGMA quick_check") } == "ok")
            }
        }
    }

    /// `rollback --newer` killed at random moments: the database is always as the newer
    /// release left it (its three migrations, the wide table and the index) or as the
    /// older release expects it (one migration, neither), never between; the next run
    /// finishes the job, and a backup under a backup's name is always whole. The newer
    /// release's downs rebuild a 40,000-row table, so a kill lands inside them.
    @Test func killingAStepBackLeavesTheNewerDatabaseOrTheOlderOne() throws {
        let rows = 40_000
        func releases(_ workspace: Workspace) throws {
            let items = """
                -- migrate:up
                CREATE TABLE items (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter WHERE x < \(rows))
                    INSERT INTO items (n) SELECT x FROM counter;
                -- migrate:down
                DROP TABLE items;
                """
            try workspace.migration("0001_items.sql", items)
            try FileManager.default.createDirectory(atPath: workspace.path("Newer"), withIntermediateDirectories: true)
            try workspace.write("Newer/0001_items.sql", items)
            try workspace.write("Newer/0002_wide.sql", """
                -- migrate:up
                ALTER TABLE items ADD COLUMN label TEXT NOT NULL DEFAULT 'x';
                -- migrate:down
                CREATE TABLE items_narrow (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                INSERT INTO items_narrow (id, n) SELECT id, n FROM items;
                DROP TABLE items;
                ALTER TABLE items_narrow RENAME TO items;
                """)
            try workspace.write("Newer/0003_index.sql", "-- migrate:up\nCREATE INDEX items_label ON items(label);\n-- migrate:down\nDROP INDEX items_label;\n")
        }
        let newer = try Workspace()
        try releases(newer)
        #expect(try Tool.run(["migrate", "--no-backup"] + newer.options() + ["--migrations", newer.path("Newer")], directory: newer.root).status == 0)
        let timed = try Workspace(key: newer.key)
        try releases(timed)
        try FileManager.default.copyItem(atPath: newer.database, toPath: timed.database)
        let full = try measure { () throws in #expect(try timed.run("rollback", ["--newer", "--yes"]).status == 0) }

        func expectNewerOrOlder(_ workspace: Workspace, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let writer = try SQLCipherWriter(path: workspace.database, key: key(workspace))
            try writer.read { db throws in
                #expect(try db.fetchString(sql: "PRAGMA quick_check") == "ok", sourceLocation: sourceLocation)
                let ledger = try MigrationBookkeeping.snapshot(in: db).identifiers
                let wide = try db.columns(in: "items").contains { $0.name == "label" }
                let indexed = try db.fetchInt(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'items_label'") == 1
                let newerState = ledger == ["0001_items", "0002_wide", "0003_index"] && wide && indexed
                let olderState = ledger == ["0001_items"] && !wide && !indexed
                #expect(newerState || olderState, "ledger \(ledger), label column \(wide), index \(indexed)", sourceLocation: sourceLocation)
                #expect(try db.fetchInt(sql: "SELECT count(*) FROM items") == rows, sourceLocation: sourceLocation)
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: workspace.root) where name.hasPrefix("app.db.backup-") {
                let backup = try SQLCipherWriter(path: workspace.root + "/" + name, key: key(workspace))
                #expect(try backup.read { try $0.fetchString(sql: "PRAGMA quick_check") } == "ok", sourceLocation: sourceLocation)
            }
        }

        var generator = SystemRandomNumberGenerator()
        for iteration in 0..<killCount(quick: 4, full: 30) {
            let workspace = try Workspace(key: newer.key)
            try releases(workspace)
            try FileManager.default.copyItem(atPath: newer.database, toPath: workspace.database)
            let delay = Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            try runAndKill(["rollback", "--newer", "--yes"] + workspace.options(), directory: workspace.root, after: delay)
            try expectNewerOrOlder(workspace)
            let finish = try workspace.run("rollback", ["--newer", "--yes"])
            #expect(finish.status == 0, "iteration \(iteration): \(finish.output)")
            #expect(try workspace.run("status").stdout.contains("1 applied, 0 pending."), "iteration \(iteration)")
            try expectNewerOrOlder(workspace)
        }
    }

    /// docs/fleets.md's rotation in place over a fleet, stopped at random moments by
    /// SIGKILL or SIGTERM (graceful, as Ctrl-C): after every fault each tenant opens with
    /// a key found where the docs say (its key file or item, or the new key kept beside
    /// it) and reads its rows; the next run finishes every tenant, each on the key in its
    /// own place, with nothing left beside the keys and no change note left behind.
    @Test func stoppingAFleetRotationAtRandomMomentsLeavesEveryTenantAKeyWhereTheDocsSay() throws {
        try soakRotation(keyring: false)
    }

    /// The same with each tenant's key in its own Secret Service item.
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func stoppingAFleetRotationOfKeyringItemsLeavesEveryTenantAKeyWhereTheDocsSay() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        try soakRotation(keyring: true)
    }

    private func soakRotation(keyring: Bool) throws {
        let workspace = try Workspace()
        let names = (0..<6).map { "tenant\($0)" }
        let service = "org.migrationkit.tests.soak.\(UUID().uuidString)"
        defer {
            if keyring {
                for name in names + names.map({ $0 + ".migrationkit-new-key" }) {
                    _ = try? Binary.run(["clear", "service", service, "account", name], executable: "/usr/bin/secret-tool")
                }
            }
        }
        for folder in ["tenants", "keys"] { try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true) }
        /// The key at a tenant's place, or beside it (staged).
        func keys(_ name: String) throws -> [TestKey] {
            if keyring {
                return try [name, name + ".migrationkit-new-key"].compactMap { account in
                    let found = try Binary.run(["lookup", "service", service, "account", account], executable: "/usr/bin/secret-tool")
                    return found.status == 0 && !found.stdout.isEmpty ? TestKey(text: found.stdout.trimmingCharacters(in: .newlines)) : nil
                }
            }
            return ["keys/\(name).key", "keys/.\(name).key.migrationkit-new-key"].compactMap { file in
                (try? String(contentsOfFile: workspace.path(file), encoding: .utf8)).map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
            }
        }
        for name in names {
            let key = TestKey.raw()
            if keyring {
                #expect(try Binary.run(["store", "--label", "soak", "service", service, "account", name], executable: "/usr/bin/secret-tool", stdin: key.text).status == 0)
            } else {
                try workspace.write("keys/\(name).key", key.text + "\n", mode: 0o600)
            }
            let filler = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000) INSERT INTO seed SELECT 'row ' || x FROM n;"
            #expect(try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: key, "CREATE TABLE seed (x); \(filler)").status == 0)
        }
        let place = keyring
            ? ["--keychain-service", service, "--keychain-account", "{name}", "--new-keychain-service", service, "--new-keychain-account", "{name}"]
            : ["--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.key"]
        let rotation = ["rekey", "--db-glob", "tenants/*.db", "--new-key", "generate", "--no-backup", "--jobs", "2", "--migrations", workspace.migrations] + place
        let full = try measure { () throws in
            let first = try Tool.run(rotation, directory: workspace.root)
            #expect(first.status == 0, "\(first.output)")
        }
        var generator = SystemRandomNumberGenerator()
        for iteration in 0..<killCount(quick: 3, full: keyring ? 6 : 12) {
            let process = try ChildProcess([Binary.migrationkit] + rotation, environment: Binary.environment(), directory: workspace.root)
            let delay = Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.2), using: &generator))
            let deadline = ContinuousClock.now + delay
            while process.isRunning, ContinuousClock.now < deadline { usleep(500) }
            if process.isRunning { kill(process.processIdentifier, iteration % 2 == 0 ? SIGKILL : SIGTERM) }
            process.waitUntilExit()
            for name in names {
                let opening = try keys(name).filter { key in
                    let read = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: key, "SELECT count(*) FROM seed;")
                    return read.status == 0 && read.stdout == "3000\n"
                }
                #expect(!opening.isEmpty, "iteration \(iteration): \(name) opens with no key at its place or beside it")
            }
            let finished = try Tool.run(rotation, directory: workspace.root)
            #expect(finished.status == 0, "iteration \(iteration): \(finished.output)")
            for name in names {
                let found = try keys(name)
                #expect(found.count == 1, "iteration \(iteration): \(name) has \(found.count) keys at and beside its place")
                let read = try found.first.map { try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: $0, "SELECT count(*) FROM seed;") }
                #expect(read?.status == 0 && read?.stdout == "3000\n", "iteration \(iteration): \(name)")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: workspace.path("tenants")).filter { !$0.hasSuffix(".db") }
            #expect(left.isEmpty, "iteration \(iteration): \(left)")
        }
    }

    @Test func killingRekeyLeavesExactlyOneWorkingKey() throws {
        let rows = 40_000
        let template = try Workspace()
        try writeCrashMigrations(template, rows: rows)
        #expect(try template.run("migrate", ["--no-backup"]).status == 0)
        // A raw key: the subject is what a kill leaves, not the new key's derivation.
        let newKey = TestKey.raw()
        try template.write("new-key", newKey.text + "\n", mode: 0o600)
        let probe = try Workspace()
        try FileManager.default.copyItem(atPath: template.database, toPath: probe.database)
        let full = try measure {
            _ = try Tool.run(["rekey", "--no-backup", "--db-path", probe.database, "--password", template.key.text,
                                "--new-password-file", template.path("new-key")])
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<killCount(full: 15) {
            let workspace = try Workspace()
            try FileManager.default.removeItem(atPath: workspace.keyFile)
            try FileManager.default.copyItem(atPath: template.keyFile, toPath: workspace.keyFile)
            try FileManager.default.copyItem(atPath: template.database, toPath: workspace.database)
            let delay = Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            try runAndKill(["rekey", "--no-backup", "--db-path", workspace.database, "--password-file", template.keyFile,
                            "--new-password-file", template.path("new-key")], directory: workspace.root, after: delay)
            // The old key first: if the kill left a hot journal, it was written with the
            // old key, and rolling it back restores the old key's pages.
            let withOld = try? SQLCipherWriter(path: workspace.database, key: template.databaseKey)
            let withNew = try? SQLCipherWriter(path: workspace.database, key: newKey.databaseKey)
            #expect((withOld == nil) != (withNew == nil), "exactly one of the two keys must open the database")
            if let writer = withOld ?? withNew {
                try writer.read { db throws in
                    #expect(try db.fetchString(sql: "PRAGMA quick_check") == "ok")
                    #expect(try db.fetchInt(sql: "SELECT count(*) FROM items") == rows)
                }
            }
        }
    }

    @Test func killingEncryptInPlaceLeavesTheOriginalOrItsCompleteCopy() throws {
        let rows = 40_000
        let template = try Workspace()
        try writeCrashMigrations(template, rows: rows)
        #expect(try Tool.run(["migrate", "--plaintext", "--no-backup", "--db-path", template.database, "--migrations", template.migrations]).status == 0)
        let probe = try Workspace()
        try FileManager.default.copyItem(atPath: template.database, toPath: probe.database)
        let full = try measure { _ = try probe.run("encrypt", ["--in-place", "--no-backup"]) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<killCount(full: 15) {
            let workspace = try Workspace()
            try writeCrashMigrations(workspace, rows: rows)
            try FileManager.default.copyItem(atPath: template.database, toPath: workspace.database)
            let delay = Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            try runAndKill(["encrypt", "--in-place", "--no-backup"] + workspace.options(), directory: workspace.root, after: delay)
            let plain = try? SQLCipherWriter(path: workspace.database, key: nil)
            let encrypted = try? SQLCipherWriter(path: workspace.database, key: key(workspace))
            #expect((plain == nil) != (encrypted == nil), "the file must be the plaintext original or the encrypted copy")
            if let writer = plain ?? encrypted {
                try writer.read { db throws in
                    #expect(try db.fetchString(sql: "PRAGMA quick_check") == "ok")
                    #expect(try db.fetchInt(sql: "SELECT count(*) FROM items") == rows)
                }
            }
            // Finishing the job works whatever the kill left behind.
            if encrypted == nil {
                #expect(try workspace.run("encrypt", ["--in-place", "--no-backup"]).status == 0)
            }
            #expect(try workspace.run("status").stdout.contains("5 applied"))
        }
    }
}

extension CrashSafetyTests {
    /// A kill at any moment of `cipher-upgrade` (its backup, the copy, the proof, the
    /// rename) leaves the old file in the old format or the complete new one in the new
    /// format, either opening with the key; what it leaves beside the database is
    /// cleaned up by the next run, which finishes the job. Half the databases are in
    /// WAL mode, which the upgrade leaves for the copy.
    @Test func killingCipherUpgradeLeavesTheOldFormatOrTheCompleteNewOne() throws {
        let rows = 40_000
        let template = try Workspace()
        try writeCrashMigrations(template, rows: rows)
        let migrate = try template.run("migrate", ["--cipher-compatibility", "3", "--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        guard (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 else {
            // SQLCipher 3 cannot write the 4 format: refused at once, nothing to kill.
            let before = template.bytes(template.database)
            let refused = try template.run("cipher-upgrade")
            #expect(refused.exitCode == .usage && refused.stderr.contains(SQLCipherLibrary.cipherVersionString ?? "?"), "\(refused.output)")
            #expect(template.bytes(template.database) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: template.root).sorted() == ["Migrations", "app.db", "key"])
            return
        }
        let probe = try Workspace(key: template.key)
        try FileManager.default.copyItem(atPath: template.database, toPath: probe.database)
        let full = try measure { () throws in #expect(try probe.run("cipher-upgrade").status == 0) }

        var generator = SystemRandomNumberGenerator()
        for iteration in 0..<killCount(full: 12) {
            let workspace = try Workspace(key: template.key)
            try writeCrashMigrations(workspace, rows: rows)
            try FileManager.default.copyItem(atPath: template.database, toPath: workspace.database)
            let wal = iteration % 2 == 1
            if wal {
                var configuration = SQLCipherConfiguration()
                configuration.cipher = CipherSettings(compatibility: 3)
                let writer = try SQLCipherWriter(path: workspace.database, key: key(workspace), configuration: configuration)
                #expect(try writer.writeWithoutTransaction { try $0.fetchString(sql: "PRAGMA journal_mode = WAL") } == "wal")
            }
            let delay = Duration.microseconds(Int64.random(in: 0...Int64(Double(full.wholeMicroseconds) * 1.3), using: &generator))
            try runAndKill(["cipher-upgrade"] + workspace.options(), directory: workspace.root, after: delay)

            let formatAfterKill = try SQLCipherWriter(path: workspace.database, key: key(workspace)).effectiveCipherSettings()?.format
            #expect(formatAfterKill == .sqlcipher3 || formatAfterKill == .sqlcipher4, "iteration \(iteration): \(String(describing: formatAfterKill))")
            if formatAfterKill == .sqlcipher4 {
                // Renamed into place whole: the new file is already in WAL mode like the old one.
                let mode = try SQLCipherWriter(path: workspace.database, key: key(workspace)).read { try $0.fetchString(sql: "PRAGMA journal_mode") }
                #expect(mode == (wal ? "wal" : "delete"), "iteration \(iteration)")
            }
            try expectConsistent(workspace, rows: rows)
            try expectOnlyDatabaseAndBackups(workspace, hidden: true, "iteration \(iteration) after the kill")

            // The next run finishes the job and leaves nothing behind but backups.
            let finish = try workspace.run("cipher-upgrade")
            #expect(finish.status == 0, "iteration \(iteration): \(finish.output)")
            #expect(try SQLCipherWriter(path: workspace.database, key: key(workspace)).effectiveCipherSettings()?.format == .sqlcipher4)
            try expectConsistent(workspace, rows: rows)
            #expect(try workspace.run("status").stdout.contains("5 applied, 0 pending."))
            // WAL stays WAL, even when the kill came while the database was out of it.
            let mode = try SQLCipherWriter(path: workspace.database, key: key(workspace)).read { try $0.fetchString(sql: "PRAGMA journal_mode") }
            #expect(mode == (wal ? "wal" : "delete"), "iteration \(iteration)")
            try expectOnlyDatabaseAndBackups(workspace, hidden: false, "iteration \(iteration) after the next run")
        }
    }

    /// The folder holds the database, its backups (each whole: it opens with the key and
    /// passes quick_check) and the workspace's own files; with `hidden`, also what a
    /// killed process may leave for the next run to remove (hidden temporary copies).
    private func expectOnlyDatabaseAndBackups(_ workspace: Workspace, hidden: Bool, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: workspace.root) {
            if ["Migrations", "key", "app.db"].contains(name) { continue }
            // Hidden leftovers the next run removes: temporary copies, and the creation
            // marker of a backup that was being written when the kill came.
            if hidden, name.hasPrefix(".app.db.migrationkit-") || name.hasPrefix("..app.db.migrationkit-backup-") { continue }
            // SQLite's own leftover of a write killed before its journal was synced (the
            // header switch out of WAL mode): the magic is still zero, so SQLite does not
            // roll it back and reuses it at the next write, which the next run makes. A
            // hot journal would have been rolled back, and removed, by the reads above.
            if hidden, name == "app.db-journal", isIgnoredBySQLite(journal: workspace.path(name)) { continue }
            guard name.hasPrefix("app.db.backup-") else {
                Issue.record("\(context): stray file \(name)", sourceLocation: sourceLocation)
                continue
            }
            let backup = try SQLCipherWriter(path: workspace.path(name), key: key(workspace))
            #expect(try backup.read { try $0.fetchString(sql: "PRAGMA quick_check") } == "ok", "\(context): \(name)", sourceLocation: sourceLocation)
        }
    }

    /// SQLite treats a rollback journal as hot only when its first byte is not zero
    /// (`hasHotJournal` in pager.c): the header's magic is written after the journal is synced.
    private func isIgnoredBySQLite(journal path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 8)) ?? Data()
        return magic.allSatisfy { $0 == 0 }
    }
}

@Suite struct ConcurrencyTests {
    /// Eight processes migrate one database at once, twenty times (four in a quick run):
    /// every step is applied exactly once and every process ends up reporting the
    /// database up to date.
    @Test func eightConcurrentMigratesApplyEachStepExactlyOnce() async throws {
        for round in 0..<TestDepth.count(quick: 4, full: 20) {
            let workspace = try Workspace()
            let steps = (1...6).map { String(format: "%04d_step", $0) }
            for identifier in steps {
                try workspace.migration(identifier + ".sql", """
                    -- migrate:up
                    CREATE TABLE IF NOT EXISTS applications (identifier TEXT NOT NULL);
                    INSERT INTO applications VALUES ('\(identifier)');
                    CREATE TABLE t_\(identifier) (x);
                    """)
            }
            // Half the rounds race on a database that does not exist yet.
            if round % 2 == 0 { #expect(try workspace.run("migrate", ["--to", steps[0]]).status == 0) }
            let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for _ in 0..<8 {
                    // Processes, as users start them (threads of one process take
                    // turns too: ChangeLockTests).
                    group.addTask { try workspace.runBinary("migrate") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.output)")
                #expect(!result.output.lowercased().contains("database is locked"))
                #expect(result.stdout.contains("Already up to date") || result.stdout.contains("Applied "))
            }
            let writer = try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey)
            let applications = try writer.read { try $0.fetchStrings(sql: "SELECT identifier FROM applications ORDER BY identifier") }
            #expect(applications == steps, "round \(round)")
            #expect(try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }.sorted() == steps)
        }
    }

    @Test func aLockHeldLongerThanTheTimeoutIsReportedPlainly() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        // Read before taking the lock: opening and closing the file in this process would
        // release this process's POSIX locks on it, including SQLite's.
        let before = workspace.bytes(workspace.database)
        let holder = try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey)
        try holder.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        defer { try? holder.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") } }
        // Another process: one in this process would drop the holder's POSIX locks the
        // first time it closed a descriptor on the file.
        let result = try workspace.runBinary("migrate", ["--lock-timeout", "0.3", "--no-backup"])
        #expect(result.exitCode == .locked, "\(result.output)")
        #expect(result.stderr.contains("locked by another"))
        #expect(result.stderr.contains("--lock-timeout"))
        try holder.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        #expect(workspace.bytes(workspace.database) == before)
    }
}

extension Duration {
    /// The duration in whole microseconds: kill delays drawn over a measured run.
    var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}

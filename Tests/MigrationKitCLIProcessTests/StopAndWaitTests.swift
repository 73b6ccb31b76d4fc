import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a long `migrate` means for the user who stops it, and for the reader who meets
/// it: Ctrl-C or SIGTERM rolls the step in progress back, removes its journal, says
/// what stays applied, and then ends by that signal (status 130 or 143 in a shell, and
/// a shell loop stops too); `status` and `verify` never sit out the lock timeout, but
/// name the process that is migrating, since when, and its step.
@Suite(.serialized) struct StopAndWaitTests {
    /// A quick step, then a long one that writes enough to spill its pages into the
    /// file (so SQLite holds the database's exclusive lock) and then computes for a
    /// while inside the same transaction.
    private func longMigration(_ workspace: Workspace) throws {
        try workspace.migration("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n-- migrate:down\nDROP TABLE notes;\n")
        try workspace.migration("0002_fill.sql", """
            -- migrate:up
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 400000)
                INSERT INTO notes (body) SELECT printf('note %d with enough text to fill pages', x) FROM n;
            CREATE TABLE tally AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 400000000) SELECT count(*) AS c FROM n;
            -- migrate:down
            DROP TABLE tally;
            DELETE FROM notes;
            """)
    }

    /// A `migrate` in the background, its output kept in files, started with SIGINT
    /// and SIGTERM at their defaults (the harness starts tests with some blocked).
    private final class Background {
        let process: ChildProcess
        let stdout: String
        let stderr: String

        init(_ arguments: [String], in workspace: Workspace) throws {
            stdout = workspace.path("background.out")
            stderr = workspace.path("background.err")
            process = try ChildProcess([Binary.migrationkit] + arguments, environment: Binary.environment(), directory: workspace.root,
                                       output: .file(stdout), errors: .file(stderr))
        }

        /// Waits until the change note says `activity` and the step's writes hold SQLite's
        /// exclusive lock (once its pages spill into the file), so a reader meets the
        /// change and a stop meets a transaction with a journal.
        func waitUntil(_ database: String, says activity: String, timeout: Duration = .seconds(60)) throws {
            guard waitForChangeNote(of: database, saying: activity, from: process, timeout: timeout) else {
                Issue.record("the background migrate never reached \(activity): \(output)")
                return
            }
            guard waitForLock(on: database, heldBy: process.processIdentifier, sqliteExclusive: true, timeout: timeout) else {
                Issue.record("the background migrate never held the exclusive lock on \(database): \(output)")
                return
            }
        }

        var output: String {
            ((try? String(contentsOfFile: stdout, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "")
        }

        var errorOutput: String { (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "" }
    }

    @Test func sigtermRollsTheStepBackAndSaysWhatStays() throws {
        let workspace = try Workspace()
        try longMigration(workspace)
        let migrate = try Background(["migrate"] + workspace.options(["--no-backup"]), in: workspace)
        try migrate.waitUntil(workspace.database, says: "applying 0002_fill")
        kill(migrate.process.processIdentifier, SIGTERM)
        migrate.process.waitUntilExit()
        #expect(migrate.process.terminationReason == .uncaughtSignal && migrate.process.terminationStatus == SIGTERM, "\(migrate.output)")
        #expect(migrate.errorOutput.contains("migrationkit: error: Stopped by SIGTERM while applying 0002_fill on \(workspace.database): 0002_fill was rolled back; 0001_notes, applied before it, stays applied."), "\(migrate.output)")
        // Rolled back by the process itself: no journal beside the file, nothing left.
        #expect(!FileManager.default.fileExists(atPath: workspace.database + "-journal"))
        #expect(!FileManager.default.fileExists(atPath: DurableFile.siblingPath(of: workspace.database, purpose: "changing")))
        // The history holds the step that stays, not the one written ahead and rolled back.
        let check = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA integrity_check; SELECT count(*) FROM notes; SELECT group_concat(identifier) FROM grdb_migrations;
            SELECT group_concat(identifier) FROM grdb_migrationkit_history;
            """)
        #expect(check.stdout.split(separator: "\n") == ["ok", "0", "0001_notes", "0001_notes"], "\(check.output)")

        // Stopped during the first step of a new database: no file is left at all.
        let fresh = workspace.path("fresh.db")
        let alone = workspace.path("Alone")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        let fill = try String(contentsOfFile: workspace.migrations + "/0002_fill.sql", encoding: .utf8)
            .replacingOccurrences(of: "-- migrate:up\n", with: "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n")
        try fill.write(toFile: alone + "/0001_fill.sql", atomically: true, encoding: .utf8)
        let first = try Background(["migrate", "--db-path", fresh, "--password-file", workspace.keyFile, "--migrations", alone], in: workspace)
        try first.waitUntil(fresh, says: "applying 0001_fill")
        kill(first.process.processIdentifier, SIGTERM)
        first.process.waitUntilExit()
        #expect(first.process.terminationStatus == SIGTERM, "\(first.output)")
        #expect(!FileManager.default.fileExists(atPath: fresh), "\(first.output)")
    }

    @Test func ctrlCOnATerminalExits130() throws {
        let workspace = try Workspace()
        try longMigration(workspace)
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let result = try PseudoTerminal.run([Binary.migrationkit, "migrate"] + workspace.options(["--no-backup"]), environment: environment,
                                            steps: [.init(expect: "0002_fill", send: "\u{03}")], timeout: 120)
        #expect(result.signal == SIGINT, "\(result.transcript)")
        #expect(result.transcript.contains("Stopped by SIGINT (Ctrl-C) while applying 0002_fill"), "\(result.transcript)")
        #expect(!FileManager.default.fileExists(atPath: workspace.database + "-journal"))
    }

    /// A fleet stopped half-way still prints its one JSON document: what finished, what
    /// was rolled back, what never started; every database is migrated or untouched.
    @Test func aStoppedFleetReportsEveryDatabase() throws {
        let workspace = try Workspace()
        try longMigration(workspace)
        try FileManager.default.createDirectory(atPath: workspace.path("tenants"), withIntermediateDirectories: true)
        let paths = (0..<4).map { workspace.path("tenants/tenant\($0).db") }
        for path in paths { #expect(try SQLCipherShell.run(path, key: workspace.key, "CREATE TABLE seed (x);").status == 0) }
        let fleet = try Background(["migrate", "--accept-existing-tables", "--db-glob", workspace.path("tenants/*.db"), "--jobs", "1", "--json", "--no-backup",
                                    "--password-file", workspace.keyFile, "--migrations", workspace.migrations], in: workspace)
        try fleet.waitUntil(paths[0], says: "migrate")
        kill(fleet.process.processIdentifier, SIGTERM)
        fleet.process.waitUntilExit()
        #expect(fleet.process.terminationReason == .uncaughtSignal && fleet.process.terminationStatus == SIGTERM, "\(fleet.output)")
        let document = try decodeJSON(try String(contentsOfFile: fleet.stdout, encoding: .utf8))
        let results = try #require(document["databases"] as? [[String: Any]]).compactMap { $0["result"] as? String }
        #expect(results == ["stopped", "notStarted", "notStarted", "notStarted"], "\(fleet.output)")
        #expect(document["unfinished"] as? Int == 4 && document["failed"] as? Int == 0, "\(document)")
        #expect(fleet.errorOutput.contains("Stopped by SIGTERM: of 4 databases, 0 finished"), "\(fleet.output)")
        for path in paths {
            let ledger = try SQLCipherShell.run(path, key: workspace.key, "SELECT count(*) FROM sqlite_master WHERE name = 'grdb_migrations';")
            #expect(ledger.stdout.hasPrefix("0"), "\(path) was left between two migrations: \(ledger.output)")
        }
    }

    /// docs/concurrency-and-crashes.md: readers never wait. During a long step `status` and `verify` answer at
    /// once, naming the migrating process and its step; with --lock-timeout they wait.
    @Test func readersAnswerAtOnceNamingTheChange() throws {
        let workspace = try Workspace()
        try longMigration(workspace)
        let migrate = try Background(["migrate"] + workspace.options(["--no-backup"]), in: workspace)
        defer { kill(migrate.process.processIdentifier, SIGKILL); migrate.process.waitUntilExit() }
        try migrate.waitUntil(workspace.database, says: "applying 0002_fill")
        for command in ["status", "verify"] {
            let started = ContinuousClock.now
            let result = try Tool.run([command] + workspace.options(), directory: workspace.root)
            #expect(ContinuousClock.now - started < .seconds(5), "\(command) waited (the lock timeout is 10 s)")
            #expect(result.exitCode == .locked, "\(command): \(result.output)")
            #expect(result.stderr.contains("process \(migrate.process.processIdentifier) (migrationkit)") && result.stderr.contains("started ")
                    && result.stderr.contains("doing migrate: applying 0002_fill (2 of 2)"), "\(command): \(result.stderr)")
        }
        // Asked to wait, it waits: here until its own timeout, as the step runs on.
        let started = ContinuousClock.now
        let patient = try Tool.run(["status", "--lock-timeout", "2"] + workspace.options(), directory: workspace.root)
        #expect(ContinuousClock.now - started >= .seconds(2) && patient.exitCode == .locked, "\(patient.output)")
    }

    /// A command that puts a new file in the database's place (`cipher-upgrade`,
    /// `encrypt --in-place`, `restore`), or must take it out of WAL mode (`rekey`), while another
    /// process has it open (idle, in rollback-journal mode, which SQLite's locks do not
    /// show): refused before any backup, naming the process and --lock-timeout, the
    /// folder unchanged.
    @Test(arguments: [
        ("cipher-upgrade", "delete"), ("cipher-upgrade", "wal"), ("encrypt", "delete"), ("encrypt", "wal"), ("rekey", "wal"),
        ("restore", "delete"), ("restore", "wal"),
    ])
    func replacingADatabaseAnotherProcessHasOpenIsRefused(command: String, journalMode: String) throws {
        guard command != "cipher-upgrade" || (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 else { return }  // SQLCipher 3 refuses cipher-upgrade outright (CipherUpgradeCommandTests)
        let workspace = try databaseToReplace(for: command, journalMode: journalMode)
        let shell = try ShellHoldingOpen(workspace.database, key: command == "encrypt" ? nil : workspace.key,
                                         cipherCompatibility: command == "cipher-upgrade" ? 3 : nil)
        defer { shell.close() }
        let arguments = try arguments(for: command, workspace)
        let before = try TreeSnapshot(workspace.root)
        let result = try Guarded.run(arguments + ["--lock-timeout", "0"], directory: workspace.root)
        expectCleanFailure(result, .locked, mentions: [
            "\(workspace.database): Nothing was changed", "process \(shell.pid) (sqlcipher)", "stop that process", "--lock-timeout SECONDS",
        ], "\(command) of a \(journalMode) database in use")
        try expectUnchanged(before, "\(command) of a \(journalMode) database in use")
    }

    /// In rollback-journal mode a writer's commit waits for every reader: an app in a
    /// long read transaction is named, as a writer is.
    @Test func aReaderThatKeepsTheDatabaseLockedIsNamed() throws {
        let workspace = try databaseToReplace(for: "rekey", journalMode: "delete")
        let shell = try ShellHoldingOpen(workspace.database, key: workspace.key, inReadTransaction: true)
        defer { shell.close() }
        try workspace.migration("0002_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let result = try Guarded.run(["migrate", "--no-backup", "--lock-timeout", "1"] + workspace.options(), directory: workspace.root)
        expectCleanFailure(result, .locked, mentions: ["process \(shell.pid) (sqlcipher)", "reading it in a transaction that has not ended", "--lock-timeout"],
                           "migrate while a reader holds the database")
    }

    /// With --lock-timeout, the command waits for the other process to close the
    /// database, then does its work.
    @Test(arguments: ["cipher-upgrade", "encrypt"])
    func aCommandWaitsForTheOtherProcessUnderTheLockTimeout(command: String) throws {
        guard command != "cipher-upgrade" || (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 else { return }
        let workspace = try databaseToReplace(for: command, journalMode: "delete")
        let shell = try ShellHoldingOpen(workspace.database, key: command == "encrypt" ? nil : workspace.key,
                                         cipherCompatibility: command == "cipher-upgrade" ? 3 : nil)
        let closing = Thread { usleep(1_500_000); shell.close() }
        closing.start()
        defer { shell.close() }
        let started = ContinuousClock.now
        let result = try Guarded.run(arguments(for: command, workspace) + ["--lock-timeout", "30"], directory: workspace.root)
        #expect(result.status == 0, "\(result)")
        #expect(ContinuousClock.now - started >= .seconds(1), "\(command) did not wait for the shell to close the database")
        #expect(try workspace.run("status").stdout.contains("1 applied, 0 pending."))
    }

    /// A database for `command`: plaintext for `encrypt`, SQLCipher 3's format for
    /// `cipher-upgrade`, the default format for `rekey`; in `journalMode`.
    private func databaseToReplace(for command: String, journalMode: String) throws -> Workspace {
        let workspace = try Workspace()
        try workspace.migration("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
        switch command {
        case "encrypt":
            #expect(try Tool.run(["migrate", "--plaintext", "--no-backup", "--db-path", workspace.database, "--migrations", workspace.migrations]).status == 0)
            #expect(try Binary.run(["-batch", workspace.database], executable: SQLCipherShell.path, stdin: "PRAGMA journal_mode = \(journalMode);\n").status == 0)
        case "cipher-upgrade":
            #expect(try workspace.run("migrate", ["--cipher-compatibility", "3", "--no-backup"]).status == 0)
            #expect(try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma,
                                           "PRAGMA cipher_compatibility = 3; PRAGMA journal_mode = \(journalMode);").status == 0)
        default:
            #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
            #expect(try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, "PRAGMA journal_mode = \(journalMode);").status == 0)
        }
        return workspace
    }

    private func arguments(for command: String, _ workspace: Workspace) throws -> [String] {
        switch command {
        case "encrypt": return ["encrypt", "--in-place"] + workspace.options()
        case "rekey":
            try workspace.write("new-key", "the new passphrase\n", mode: 0o600)
            return ["rekey", "--new-password-file", workspace.path("new-key")] + workspace.options()
        case "restore":
            let backup = workspace.path("saved.db")
            try FileManager.default.copyItem(atPath: workspace.database, toPath: backup)
            return ["restore", "--from", backup, "--no-backup"] + workspace.options()
        default: return [command] + workspace.options()
        }
    }
}

/// The `sqlcipher` shell with a database open, as an app holds it: it has read from it
/// and waits for more input, idle, until closed.
private final class ShellHoldingOpen: @unchecked Sendable {
    private let process: ChildProcess
    private let lock = NSLock()
    private var closed = false
    var pid: Int32 { process.processIdentifier }

    /// - Parameters:
    ///   - cipherCompatibility: the format to open it in, when not the library's own.
    ///   - inReadTransaction: it reads inside `BEGIN` and leaves the transaction open,
    ///     holding SQLite's read lock.
    init(_ path: String, key: TestKey?, cipherCompatibility: Int? = nil, inReadTransaction: Bool = false) throws {
        process = try ChildProcess([SQLCipherShell.path, path], input: .pipe, output: .pipe)
        var script = ""
        if let key { script += "PRAGMA key = \(key.pragma);\n" }
        if let cipherCompatibility { script += "PRAGMA cipher_compatibility = \(cipherCompatibility);\n" }
        script += (inReadTransaction ? "BEGIN;\n" : "") + "SELECT 'open', count(*) FROM notes;\n"
        try process.input!.write(contentsOf: Data(script.utf8))
        // Once it answers, it has read the database and keeps it open.
        guard try process.output!.read(until: "open|", timeout: 60) else {
            close()
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    func close() {
        lock.withLock {
            guard !closed else { return }
            closed = true
            try? process.input!.close()
            process.waitUntilExit()
        }
    }

    deinit { close() }
}

import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Interrupted runs leave nothing of theirs for later runs to trip over: a signal.
/// The other interruption tests are in MigrationKitCLITests.
@Suite(.serialized) struct InterruptionTests {
    /// SIGTERM stands for Ctrl-C here: under the test harness (dbus-run-session) SIGINT
    /// arrives ignored, and an ignored signal ends nothing, so nothing is cleaned up.
    /// The command stops what it was doing, releases its scratch folder and ends by the
    /// signal.
    @Test func aSignalDuringCheckRemovesItsScratchFolder() throws {
        let workspace = try Workspace()
        // A slow step, so the check is surely running when the signal comes.
        try workspace.migration("0001_slow.sql", """
            -- migrate:up
            CREATE TABLE t (x);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000000) INSERT INTO t SELECT i FROM c;
            -- migrate:down
            DROP TABLE t;
            """)
        let temporary = workspace.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        let process = try ChildProcess([Binary.migrationkit, "check", "--migrations", workspace.migrations],
                                       environment: Binary.environment(["TMPDIR": temporary]))
        let deadline = Date().addingTimeInterval(30)
        while (try FileManager.default.contentsOfDirectory(atPath: temporary)).isEmpty, process.isRunning, Date() < deadline { usleep(10_000) }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "check never made its scratch folder")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }
}

/// Where the commands keep their scratch copies: the temporary folder (`TMPDIR`).
@Suite struct ScratchFolderPlaceTests {
    /// A temporary folder that cannot hold the scratch folder (here a `TMPDIR` that does
    /// not exist) is named with what to do, as a file error (exit 9), not as a
    /// Foundation error's description.
    @Test func aTemporaryFolderThatCannotHoldAScratchFolderIsNamed() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let missing = workspace.path("no-such-tmp")
        let check = try Binary.run(["check", "--migrations", workspace.migrations], environment: Binary.environment(["TMPDIR": missing]))
        #expect(check.status == 9, "\(check)")
        #expect(check.stderr.contains("\(missing): Could not make a private scratch folder in the temporary folder (No such file or directory); set TMPDIR"),
                "\(check.stderr)")
        #expect(!check.stderr.contains("Error Domain") && !check.stderr.contains("Unexpected failure"), "\(check.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// As another user, a `TMPDIR` they cannot write to: what a read-only database
    /// with a journal beside it met (its private copy goes there) until this was named.
    @Test func aTemporaryFolderThisUserCannotWriteToIsNamed() throws {
        try requiringCapability {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            let closed = workspace.path("closed-tmp")
            try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chmod(closed, 0o555) == 0)
            let check = try Guarded.run(["check", "--migrations", workspace.migrations], environment: Binary.environment(["TMPDIR": closed]),
                                        directory: workspace.root, user: .unprivileged)
            #expect(check.status == 9, "\(check)")
            #expect(check.stderr.contains("\(closed): Could not make a private scratch folder in the temporary folder (Permission denied); set TMPDIR"),
                    "\(check.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: closed).isEmpty)
        }
    }
}

/// Commands that change a database across several transactions take turns: a rekey
/// started while a migrate runs waits for it, instead of re-encrypting the file between
/// two of its steps (which then failed with "wrong key" after committing the first).
@Suite struct ChangeLockTests {
    /// docs/how-a-migration-runs.md: `migrate` takes the database's change lock once,
    /// before it opens the file, and holds it to its last step, however many layers ask
    /// for it (the command around the open, the backup, the runner around the steps):
    /// strace sees one `flock(LOCK_EX)` on the file and no `LOCK_UN` before the end.
    /// Letting go between the backup and the steps would let a `rekey` in there.
    @Test func migrateLocksTheDatabaseOnceAndHoldsItToTheEnd() throws {
        try requiringCapability {
            guard let strace = ["/usr/bin/strace", "/bin/strace"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw CapabilityMissing("strace is not installed (scripts/install-deps.sh installs it)")
            }
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
            let log = workspace.path("flock.log")
            // -y names each descriptor's file; with a backup, so that it is in the walk too.
            let result = try Guarded.run(["-f", "-y", "-qq", "-e", "trace=flock", "-o", log, Binary.migrationkit, "migrate"] + workspace.options(),
                                         executable: strace, directory: workspace.root, timeout: 120)
            #expect(result.status == 0 && result.stdout.contains("0002_books"), "\(result.output)")
            let calls = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains("/app.db>,") }
            let exclusive = calls.filter { $0.contains("LOCK_EX") }
            #expect(exclusive.count == 1, "flock calls on app.db: \(calls)")
            let firstRelease = calls.firstIndex { $0.contains("LOCK_UN") }
            #expect(firstRelease == nil || firstRelease == calls.count - 1, "released before the end: \(calls)")
        }
    }

    @Test func aRekeyWaitsForARunningMigrate() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_fast.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        try workspace.migration("0002_slow.sql", """
            -- migrate:up
            CREATE TABLE t (x);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500000) INSERT INTO t SELECT i FROM c;
            """)
        try workspace.migration("0003_after.sql", "-- migrate:up\nCREATE TABLE z (x);\n")
        #expect(try workspace.run("migrate", ["--to", "0001_fast", "--no-backup"]).status == 0)
        try workspace.write("new-key", "the new key\n", mode: 0o600)
        let migrate = try ChildProcess([Binary.migrationkit, "migrate", "--no-backup"] + workspace.options(), environment: Binary.environment(),
                                       errors: .file(workspace.path("migrate.err")))
        // The rekey starts once the migrate holds the change lock, as the test means;
        // started sooner, the rekey may take the lock first and the migrate then rightly
        // finds its key no longer opens the file.
        #expect(waitForChangeNote(of: workspace.database, saying: "applying 0002_slow", from: migrate), "the migrate never reached 0002_slow")
        let rekey = try workspace.run("rekey", ["--no-backup", "--new-password-file", workspace.path("new-key"), "--lock-timeout", "120"])
        migrate.waitUntilExit()
        let migrateErrors = (try? String(contentsOfFile: workspace.path("migrate.err"), encoding: .utf8)) ?? ""
        #expect(migrate.terminationStatus == 0, "\(migrateErrors)")
        #expect(rekey.status == 0, "\(rekey.output)")
        let status = try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.path("new-key"),
                                     "--migrations", workspace.migrations])
        #expect(status.stdout.contains("3 applied, 0 pending"), "\(status.output)")
    }
}

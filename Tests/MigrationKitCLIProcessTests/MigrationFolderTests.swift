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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.migrationkit)
        process.arguments = ["check", "--migrations", workspace.migrations]
        process.environment = Binary.environment(["TMPDIR": temporary])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try withUnblockedSignals { try process.run() }
        let deadline = Date().addingTimeInterval(30)
        while (try FileManager.default.contentsOfDirectory(atPath: temporary)).isEmpty, process.isRunning, Date() < deadline { usleep(10_000) }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "check never made its scratch folder")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }
}

/// Commands that change a database across several transactions take turns: a rekey
/// started while a migrate runs waits for it, instead of re-encrypting the file between
/// two of its steps (which then failed with "wrong key" after committing the first).
@Suite struct ChangeLockTests {
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
        let migrate = Process()
        migrate.executableURL = URL(fileURLWithPath: Binary.migrationkit)
        migrate.arguments = ["migrate", "--no-backup"] + workspace.options()
        migrate.environment = Binary.environment()
        let errors = Pipe()
        migrate.standardError = errors
        migrate.standardOutput = FileHandle.nullDevice
        try migrate.run()
        // The rekey starts once the migrate holds the change lock, as the test means;
        // started sooner, the rekey may take the lock first and the migrate then rightly
        // finds its key no longer opens the file.
        #expect(waitForChangeNote(of: workspace.database, saying: "applying 0002_slow", from: migrate), "the migrate never reached 0002_slow")
        let rekey = try workspace.run("rekey", ["--no-backup", "--new-password-file", workspace.path("new-key"), "--lock-timeout", "120"])
        migrate.waitUntilExit()
        let migrateErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(migrate.terminationStatus == 0, "\(migrateErrors)")
        #expect(rekey.status == 0, "\(rekey.output)")
        let status = try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.path("new-key"),
                                     "--migrations", workspace.migrations])
        #expect(status.stdout.contains("3 applied, 0 pending"), "\(status.output)")
    }
}

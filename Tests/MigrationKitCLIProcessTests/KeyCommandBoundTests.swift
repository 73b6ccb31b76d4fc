import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A key command's time bound is a bound (Keys/README.md, "A key command"): the command
/// ends when its process ends, whatever it left running with its output open; at the
/// bound its process group is killed and its pipes abandoned; a stop ends the run at
/// once; and the tool waits without spinning all the while. The subject is the process:
/// its time, its processor time, its signals.
@Suite struct KeyCommandBoundTests {
    private func migrated() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        return workspace
    }

    /// `status` through the binary with the key from `command`, started.
    private func launchStatus(_ workspace: Workspace, command: String, timeout: String) throws -> ChildProcess {
        try ChildProcess([Binary.migrationkit, "status", "--db-path", workspace.database, "--migrations", workspace.migrations,
                          "--password-command", command, "--key-command-timeout", timeout],
                         environment: Binary.environment(), directory: workspace.root, input: .null, output: .null, errors: .null)
    }

    /// Waits (at most a minute) until the file `name` exists in the workspace.
    private func waitForFile(_ workspace: Workspace, _ name: String) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: workspace.path(name)) { return true }
            usleep(10_000)
        }
        return false
    }

    /// A command that leaves a process behind holding its standard output (`sleep 30 &`,
    /// or `setsid`, out of its process group) has given its key when it exits: the run
    /// goes on at once, with the key, and the tool never spins while it waits.
    @Test(arguments: ["!sleep 30 & cat key", "!setsid sleep 30 & cat key", "!(sleep 30 &) ; cat key"])
    func aProcessLeftHoldingTheOutputDoesNotHoldTheRun(command: String) throws {
        let workspace = try migrated()
        let started = ContinuousClock.now
        let process = try launchStatus(workspace, command: command, timeout: "20")
        process.waitUntilExit()
        let took = ContinuousClock.now - started
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(command)")
        #expect(took < .seconds(15), "\(command): the run took \(took), waiting for what the command left running")
        #expect((process.processorSeconds ?? 99) < 5, "\(command): \(process.processorSeconds ?? -1) s of processor time")
    }

    /// At the bound the command's whole process group is killed, a shell that ignores
    /// SIGTERM included, and a process it started out of its group (`setsid`) that holds
    /// the pipe is left behind with it: exit 5, the sentence naming the bound, long
    /// before the processes would have ended.
    @Test func theBoundKillsTheGroupAndAbandonsThePipe() throws {
        let workspace = try migrated()
        // The process left behind holds the command's output, not the tool's standard
        // error, which the test reads to its end.
        let command = "!trap '' TERM INT; setsid sleep 30 2>/dev/null & sleep 30; cat key"
        let started = ContinuousClock.now
        let result = try Binary.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                     "--password-command", command, "--key-command-timeout", "1"], directory: workspace.root)
        #expect(result.status == 5 && result.stderr.contains("did not finish within 1 second"), "\(result)")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    /// SIGTERM while the command runs ends the run by SIGTERM within a second or two,
    /// whatever the command ignores and whatever it left holding its output.
    @Test func aStopEndsTheRunAtOnceWhateverTheCommandsChildrenDo() throws {
        let workspace = try migrated()
        let command = "!trap '' TERM INT; setsid sleep 30 & sleep 30 & touch started; wait"
        let process = try launchStatus(workspace, command: command, timeout: "120")
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try #require(waitForFile(workspace, "started"), "the key command never started")
        let stopped = ContinuousClock.now
        process.send(SIGTERM)
        process.waitUntilExit()
        let took = ContinuousClock.now - stopped
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(took < .seconds(5), "the run took \(took) to end after SIGTERM")
        #expect((process.processorSeconds ?? 99) < 5, "\(process.processorSeconds ?? -1) s of processor time")
    }
}

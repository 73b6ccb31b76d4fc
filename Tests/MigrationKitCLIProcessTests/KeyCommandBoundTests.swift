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

    /// A process the command left writing to the tool's standard error ends once that
    /// pipe's reader has gone (SIGPIPE at its default), though the tool itself ignores
    /// SIGPIPE: it does not outlive the run writing into a broken pipe.
    @Test func aProcessLeftWritingEndsWhenItsReaderHasGone() throws {
        let workspace = try migrated()
        // A shell loop, unlike `yes`, goes on writing after a write fails: only the signal ends it.
        let command = "!(sh -c 'echo $$ > leftover; while :; do echo left-behind; done' >&2 &); cat key"
        let process = try ChildProcess([Binary.migrationkit, "status", "--db-path", workspace.database,
                                        "--migrations", workspace.migrations, "--password-command", command],
                                       environment: Binary.environment(), directory: workspace.root,
                                       input: .null, output: .null, errors: .pipe)
        var leftover: Int32 = 0
        defer { if leftover > 0 { kill(leftover, SIGKILL) } }
        // Its standard error is read until the tool has ended, so nobody waits on a full pipe.
        let errors = try #require(process.errors).fileDescriptor
        _ = fcntl(errors, F_SETFL, O_NONBLOCK)
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline {
            var ready = pollfd(fd: errors, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 50) > 0 { _ = read(errors, &scratch, scratch.count) }
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        // Its pid, once the shell has written all of it.
        let started = ContinuousClock.now + .seconds(60)
        while leftover == 0, ContinuousClock.now < started {
            let written = (try? String(contentsOfFile: workspace.path("leftover"), encoding: .utf8)) ?? ""
            if written.hasSuffix("\n") { leftover = Int32(written.dropLast()) ?? 0 } else { usleep(10_000) }
        }
        try #require(leftover > 0, "the key command's left process never started")
        #expect(Self.isAlive(leftover), "the left process should still be writing while its reader is open")
        try #require(process.errors).closeFile()
        let gone = ContinuousClock.now + .seconds(10)
        while Self.isAlive(leftover), ContinuousClock.now < gone { usleep(10_000) }
        #expect(!Self.isAlive(leftover), "the process the key command left is still writing into a broken pipe")
    }

    /// Running, not ended and waiting to be reaped by whoever adopted it.
    private static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards) else { return false }
        return stat[afterName.upperBound...].first != "Z"
    }
}

import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A key command on a terminal keeps it for its own prompts (Keys/README.md, "A key
/// command"): its standard error reaches the terminal, it reads the terminal as the
/// foreground (a background process group reading it would be stopped by SIGTTIN), and
/// Ctrl-C at its prompt ends the run by SIGINT, as Ctrl-C at the tool's own prompt does.
@Suite struct KeyCommandTerminalTests {
    private func onTerminal(_ workspace: Workspace, command: String, timeout: String = "20", _ steps: [PseudoTerminal.Step]) throws -> PseudoTerminal.Result {
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        return try PseudoTerminal.run([Binary.migrationkit, "status", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                       "--password-command", command, "--key-command-timeout", timeout],
                                      environment: environment, steps: steps, timeout: 60)
    }

    /// A store's prompt: asks on standard error, reads the answer from the terminal.
    private func prompting(_ workspace: Workspace) -> String {
        "!printf 'Store passphrase: ' >&2; read answer; [ \"$answer\" = 'open sesame' ] && cat '\(workspace.keyFile)'"
    }

    @Test func theCommandsPromptReachesTheTerminalAndItReadsTheAnswer() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        let result = try onTerminal(workspace, command: prompting(workspace), [.init(expect: "Store passphrase: ", send: "open sesame\n")])
        #expect(result.status == 0 && result.transcript.contains("2 applied, 0 pending."), "\(result.transcript)")
        #expect(!result.transcript.contains(workspace.key.secret))
    }

    @Test func ctrlCAtTheCommandsPromptEndsTheRunBySIGINT() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        // At once: the command, the terminal's foreground, gets the SIGINT (the tool alone
        // would get it otherwise, and wait for the command's time bound).
        let started = ContinuousClock.now
        let result = try onTerminal(workspace, command: prompting(workspace), timeout: "120", [.init(expect: "Store passphrase: ", send: "open\u{03}")])
        #expect(result.signal == SIGINT, "\(result.transcript)")
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(!result.transcript.contains("applied"), "\(result.transcript)")
    }

    /// Off a terminal the command is not the foreground, so a stop reaches the tool
    /// alone: SIGTERM ends the run by SIGTERM at once, the command and its process group
    /// killed, not left to its time bound.
    @Test func sigtermWhileTheCommandRunsEndsTheRunAndTheCommand() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        let process = try ChildProcess([Binary.migrationkit, "status", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                        "--password-command", "!echo $$ > started; sleep 600", "--key-command-timeout", "300"],
                                       environment: Binary.environment(), directory: workspace.root)
        defer { if process.isRunning { process.terminate() } }
        // Until the command has started (it writes its pid).
        let deadline = ContinuousClock.now + .seconds(60)
        var shell: Int32?
        while shell == nil, ContinuousClock.now < deadline {
            shell = (try? String(contentsOfFile: workspace.path("started"), encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if shell == nil { usleep(10_000) }
        }
        let pid = try #require(shell, "the key command never started")
        let stopped = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(ContinuousClock.now - stopped < .seconds(60))
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        // The command's shell is gone too (or a zombie its new parent has not reaped).
        let end = ContinuousClock.now + .seconds(10)
        var ended = false
        while !ended, ContinuousClock.now < end {
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            ended = stat == nil || stat?.split(separator: ")").last?.split(separator: " ").first == "Z"
            if !ended { usleep(10_000) }
        }
        #expect(ended, "the key command \(pid) outlived the run")
    }
}

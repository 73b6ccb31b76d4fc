import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--password-command CMD` (`password-command`, `MIGRATIONKIT_PASSWORD_COMMAND`): the
/// key is what a command prints, read as a key file's content is; the command runs
/// without a shell (or with `/bin/sh -c` after `!`), within `--key-command-timeout`, and
/// a command that fails, overstays or prints nothing is exit 5 naming the command.
@Suite struct KeyCommandTests {
    private func migrated() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--no-backup"])
        try #require(migrate.status == 0, "\(migrate)")
        return workspace
    }

    private func status(_ workspace: Workspace, _ key: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + key,
                     environment: Tool.environment(environment), directory: workspace.root)
    }

    /// Writes an executable script into the workspace.
    private func script(_ workspace: Workspace, _ name: String, _ body: String) throws -> String {
        try writeExecutableScript(workspace.path(name), "#!/bin/sh\n" + body + "\n")
        return workspace.path(name)
    }

    @Test func theKeyIsWhatTheCommandPrintsFromTheFlagTheVariableAndTheProjectFile() throws {
        let workspace = try migrated()
        let byFlag = try status(workspace, ["--password-command", "cat key"])
        #expect(byFlag.status == 0 && byFlag.stdout.contains("2 applied, 0 pending."), "\(byFlag)")

        let byVariable = try status(workspace, [], environment: ["MIGRATIONKIT_PASSWORD_COMMAND": "cat '\(workspace.keyFile)'"])
        #expect(byVariable.status == 0, "\(byVariable)")

        try workspace.write("migrationkit.toml", "db-path = \"app.db\"\npassword-command = \"cat key\"\n", mode: 0o600)
        let byFile = try Tool.run(["status", "--migrations", workspace.migrations], directory: workspace.root)
        #expect(byFile.status == 0 && byFile.stdout.contains("2 applied"), "\(byFile)")
        let shown = try decodeJSON(try Tool.run(["config", "--json"], directory: workspace.root).stdout)
        #expect(shown["key"] as? String == "key command `cat key` (\(workspace.path("migrationkit.toml")):2)", "\(shown)")

        // The shell form: a pipeline.
        let piped = try status(workspace, ["--password-command", "!cat key | head -n 1"])
        #expect(piped.status == 0, "\(piped)")
        for result in [byFlag, byVariable, byFile, piped] {
            #expect(!result.output.contains(workspace.key.secret))
        }
    }

    /// A key printed with a space or a tab at its edge is that key, spaces included (only
    /// line breaks at its end are dropped), with a warning naming where it came from, so
    /// that a wrong key from a store that pads its output says why; a key without is
    /// warned of never.
    @Test func aKeyWithSpaceAtItsEdgeIsUsedAsItIsAndWarnedOf() throws {
        let workspace = try migrated()
        let padded = try status(workspace, ["--password-command", "!printf '%s  \\n' \"$(cat key)\""])
        #expect(padded.exitCode == .wrongKeyOrNotADatabase, "\(padded)")
        #expect(padded.stderr.contains("warning: The key in the key command `!printf") && padded.stderr.contains("ends with a space or a tab, which is part of the key"),
                "\(padded)")
        let leading = try status(workspace, ["--password-command", "!printf '\\t%s\\n' \"$(cat key)\""])
        #expect(leading.exitCode == .wrongKeyOrNotADatabase && leading.stderr.contains("starts with a space or a tab"), "\(leading)")
        let plain = try status(workspace, ["--password-command", "cat key"])
        #expect(plain.status == 0 && !plain.stderr.contains("warning"), "\(plain)")
        for result in [padded, leading, plain] { #expect(!result.output.contains(workspace.key.secret)) }
    }

    /// A fleet rotation's failures through a store that fails in every way it can: each
    /// line names its database once and the failing command once, in one sentence short
    /// enough to read.
    @Test func aFleetRotationsFailuresNameTheirDatabaseAndCommandOnce() throws {
        let fleet = try Fleet.withStore(4)
        // tenant0's store fails; tenant1's read-back fails before the rekey; tenant2's after
        // it; tenant3's overstays.
        let store = "!if [ {name} = tenant0 ]; then exit 3; fi; umask 077; cat > store/{name}.key"
        let readBack = Fleet.readBack("tenant11) exit 4 ;; tenant22) exit 5 ;; tenant31) exec sleep 30 ;;")
        let result = try fleet.run(["rekey", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--new-key", "generate", "--no-backup",
                                    "--key-command-timeout", "1", "--new-key-store-command", store, "--new-password-command", readBack])
        #expect(result.status == 5, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init).filter { $0.contains("failed (exit") }
        #expect(lines.count == 4, "\(result)")
        for line in lines {
            let name = try #require(line.split(separator: " ").first.map(String.init))
            let sentence = try #require(line.components(separatedBy: "): ").dropFirst().first)
            #expect(sentence.components(separatedBy: name).count == 2, "the database is named more than once: \(line)")
            #expect(sentence.components(separatedBy: "`!").count == 2, "a command is named more than once: \(line)")
            let commands = [store, readBack].map { $0.replacingOccurrences(of: "{name}", with: name.dropFirst(8).dropLast(3)) }
            let words = sentence.count - (commands.first { sentence.contains($0) }?.count ?? 0)
            #expect(words < 300, "\(words) characters besides the command: \(line)")
        }
    }

    /// The command's standard error reaches the user (its prompts), its output never does,
    /// and the key is in no argument list and no environment of the command.
    @Test func theCommandsStandardErrorPassesThroughAndTheKeyIsInNoArgumentListOrEnvironment() throws {
        let workspace = try migrated()
        let command = try script(workspace, "store.sh", """
            echo "Passphrase for the store:" >&2
            tr '\\0' ' ' < /proc/$$/cmdline > seen-argv
            env > seen-environment
            cat "$1"
            """)
        // An old key in MIGRATIONKIT_PASSWORD (as a rekey from it would have) must not reach the command.
        let other = TestKey.raw()
        let result = try status(workspace, ["--password-command", "\(command) key"], environment: ["MIGRATIONKIT_PASSWORD": other.text])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("Passphrase for the store:"), "\(result)")
        #expect(!result.output.contains(workspace.key.secret), "\(result)")
        let argv = try String(contentsOfFile: workspace.path("seen-argv"), encoding: .utf8)
        #expect(argv.contains("store.sh key"), "\(argv)")
        let environment = try String(contentsOfFile: workspace.path("seen-environment"), encoding: .utf8)
        #expect(!environment.contains("MIGRATIONKIT_PASSWORD="), "\(environment)")
        #expect(!environment.contains(other.secret) && !environment.contains(workspace.key.secret))
    }

    /// Words as a shell splits them, without one: nothing expanded, quotes kept together.
    @Test func theLineIsSplitLikeAShellWithoutExpandingAnything() throws {
        let workspace = try migrated()
        try workspace.write("a key $HOME", workspace.key.text + "\n", mode: 0o600)
        let quoted = try status(workspace, ["--password-command", "cat 'a key $HOME'"])
        #expect(quoted.status == 0, "\(quoted)")
        let escaped = try status(workspace, ["--password-command", #"cat "a key \$HOME""#])
        #expect(escaped.status == 0, "\(escaped)")
        let bare = try status(workspace, ["--password-command", #"cat a\ key\ $HOME"#])
        #expect(bare.status == 0, "\(bare)")

        let unclosed = try status(workspace, ["--password-command", "cat 'key"])
        #expect(unclosed.status == 64, "\(unclosed)")
        #expect(unclosed.stderr.contains("--password-command") && unclosed.stderr.contains("not closed"), "\(unclosed)")
    }

    /// Each way a command can fail is exit 5 with one sentence naming the command, never
    /// what it printed; the database is untouched.
    @Test func aCommandThatFailsOrPrintsNothingIsExit5NamingIt() throws {
        let workspace = try migrated()
        let before = try fileBytes(workspace.database)
        let cases: [(command: String, says: String)] = [
            ("!printf 'printed-by-%s' store; exit 3", "failed with exit status 3"),
            ("!printf 'printed-by-%s' store; kill -9 $$", "was ended by signal 9"),
            ("true", "printed nothing"),
            ("echo", "printed only a line break"),
            ("no-such-key-program-here", "no-such-key-program-here is not an executable file in PATH"),
            ("!head -c 5000 /dev/zero | tr '\\0' a", "more than 4096 bytes"),
        ]
        for (command, says) in cases {
            let result = try status(workspace, ["--password-command", command])
            #expect(result.status == 5, "\(command): \(result)")
            #expect(result.stderr.contains(says), "\(command): \(result)")
            if !command.hasPrefix("no-such") {
                #expect(result.stderr.contains("`\(command)`"), "\(command): \(result)")
            }
            #expect(!result.output.contains("printed-by-store") && !result.output.contains("aaaa"), "\(command): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result)")
        }
        #expect(try fileBytes(workspace.database) == before)
        #expect(!FileManager.default.fileExists(atPath: workspace.database + "-journal"))
    }

    /// A command that overstays its bound is killed with its process group, and the run
    /// ends naming it.
    @Test func aCommandThatOverstaysItsBoundIsKilledWithItsProcessGroup() throws {
        let workspace = try migrated()
        let started = ContinuousClock.now
        let result = try status(workspace, ["--password-command", "!sleep 600 & echo $! > sleeper; wait", "--key-command-timeout", "0.5"])
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("The key command `!sleep 600 & echo $! > sleeper; wait` did not finish within 0.5 seconds and was stopped; "
                                       + "check that it runs by itself without waiting for input, or allow it more time with --key-command-timeout SECONDS."),
                "\(result)")
        #expect(ContinuousClock.now - started < .seconds(30))
        // The background sleep was in the command's process group: it ends (a zombie its
        // new parent reaps, or gone), the kill having been sent before the run ended.
        let pid = try #require(Int32(try String(contentsOfFile: workspace.path("sleeper"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(waitForEnd(of: pid, timeout: .seconds(10)), "the sleep \(pid) outlived the command it was started by")

        // The setting's variable bounds it too.
        let byVariable = try status(workspace, ["--password-command", "sleep 600"], environment: ["MIGRATIONKIT_KEY_COMMAND_TIMEOUT": "0.5"])
        #expect(byVariable.status == 5 && byVariable.stderr.contains("did not finish within 0.5 seconds"), "\(byVariable)")

        let badBound = try status(workspace, ["--password-command", "cat key", "--key-command-timeout", "0"])
        #expect(badBound.status == 64 && badBound.stderr.contains("--key-command-timeout"), "\(badBound)")
    }

    /// A fleet asks the store once per tenant, `{name}` one word whatever the name holds,
    /// and never shell syntax, even through `/bin/sh -c`.
    @Test func aFleetRunsTheCommandOncePerTenantWithItsNameAsOneWord() throws {
        let fleet = try Fleet(3)
        let workspace = fleet.workspace
        // A tenant whose name a shell would run.
        let odd = "x; touch pwned"
        try FileManager.default.moveItem(atPath: fleet.paths[2], toPath: workspace.path("tenants/\(odd).db"))
        try FileManager.default.moveItem(atPath: workspace.path("keys/tenant2.key"), toPath: workspace.path("keys/\(odd).key"))
        let result = try fleet.run(["status", "--db-glob", "tenants/*.db", "--password-command", "!echo {name} >> calls; cat keys/{name}.key", "--json"])
        #expect(result.status == 0, "\(result)")
        let calls = try String(contentsOfFile: workspace.path("calls"), encoding: .utf8).split(separator: "\n").map(String.init).sorted()
        #expect(calls == ["tenant0", "tenant1", odd].sorted(), "\(calls)")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("pwned")))

        // A migrate (with its backups) asks once per tenant too.
        let migrate = try fleet.run(["migrate", "--db-glob", "tenants/*.db", "--password-command", "!echo {name} >> calls-migrate; cat keys/{name}.key"])
        #expect(migrate.status == 0, "\(migrate)")
        let migrateCalls = try String(contentsOfFile: workspace.path("calls-migrate"), encoding: .utf8).split(separator: "\n").map(String.init).sorted()
        #expect(migrateCalls == ["tenant0", "tenant1", odd].sorted(), "\(migrateCalls)")

        // Without a shell too: the name is one argument.
        try FileManager.default.removeItem(atPath: workspace.path("calls"))
        let plain = try fleet.run(["status", "--db-glob", "tenants/*.db", "--password-command", "cat keys/{name}.key"])
        #expect(plain.status == 0, "\(plain)")
        for key in fleet.keys { #expect(!result.output.contains(key.secret) && !plain.output.contains(key.secret)) }
    }

    /// Whether the process `pid` has ended (a zombie, or gone) within `timeout`: a kill
    /// is delivered after kill(2) returns.
    private func waitForEnd(of pid: Int32, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            if stat.split(separator: ")").last?.split(separator: " ").first == "Z" { return true }
            usleep(10_000)
        }
        return false
    }
}

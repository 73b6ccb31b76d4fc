import ArgumentParser
import Foundation
import MigrationKitKeys

/// Runs the `migrationkit` commands, for the tool itself and for apps that embed them.
public enum MigrationCLI {
    /// Parses `arguments` (without the program name), runs the command, prints results
    /// and errors, and returns the exit code instead of exiting.
    public static func run(host: MigrationCLIHost = .sqlFiles, arguments: [String]) -> Int32 {
        // A reader that goes away (`migrationkit migrate | head -1`) must not kill a
        // migration half-way: writes then fail with EPIPE, and the run goes on.
        signal(SIGPIPE, SIG_IGN)
        // Before any key is read: no core file or same-user debugger reaches it.
        if host.hardensProcess { ProcessHardening.apply() }
        let locks = CommandLocks()
        defer { locks.releaseAll() }
        let resolved = ResolvedSettings()
        return CLIContext.$host.withValue(host) { CLIContext.$locks.withValue(locks) { CLIContext.$resolvedSettings.withValue(resolved) {
            // Until the arguments parse, a usage error can only look for the flag itself
            // (before a `--`, after which arguments are operands); after that, the
            // parsed option decides.
            var json = arguments.prefix { $0 != "--" }.contains("--json")
            do {
                var command = try RootCommand.parseAsRoot(arguments)
                json = (command as? any PrintsOutput)?.output.json ?? false
                // Settings not given as flags, from the environment and migrationkit.toml.
                if var configurable = command as? any ProjectConfigurable {
                    resolved.settings = try configurable.applyProjectSettings()
                    command = configurable
                }
                try command.run()
                return CLIExitCode.success.rawValue
            } catch let exit as ExitCode {
                return exit.rawValue
            } catch {
                if let presentation = ErrorPresentation(error) {
                    presentation.print(commandName: host.commandName, json: json)
                    return presentation.exitCode.rawValue
                }
                // ArgumentParser's own errors: usage, --help, --version.
                let code = RootCommand.exitCode(for: error)
                let message = RootCommand.fullMessage(for: error)
                if code == .success, !asksForHelp(arguments) {
                    // `migrationkit` or `migrationkit key` alone: a command group with no
                    // command is a usage error for scripts, not a success.
                    Console.error(message)
                    let sentence = "Give a subcommand (see the list above)."
                    ErrorPresentation(kind: "usage", message: sentence, exitCode: .usage).print(commandName: host.commandName, json: json)
                    return CLIExitCode.usage.rawValue
                }
                if code == .success {
                    if !message.isEmpty { Console.out(message) }
                    return CLIExitCode.success.rawValue
                }
                let exitCode = code.rawValue == ExitCode.validationFailure.rawValue ? CLIExitCode.usage.rawValue : code.rawValue
                if exitCode == CLIExitCode.usage.rawValue {
                    // One line, like every other error (the usage text would bury the
                    // sentence); under --json, one document.
                    let sentence = RootCommand.message(for: error) + " (see --help)"
                    ErrorPresentation(kind: "usage", message: ErrorPresentation.oneLine(sentence), exitCode: .usage)
                        .print(commandName: host.commandName, json: json)
                    return exitCode
                }
                Console.error(message)
                return exitCode
            }
        } } }
    }

    /// Whether the arguments ask ArgumentParser for help or the version, which then
    /// ends the run successfully; any other clean exit is a group with no subcommand.
    private static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.contains { ["-h", "--help", "-help", "help", "--version", "--experimental-dump-help"].contains($0) || $0.hasPrefix("--generate-completion-script") }
    }

    /// Runs with the process's arguments and exits with the command's code.
    public static func main(host: MigrationCLIHost = .sqlFiles) -> Never {
        exit(run(host: host, arguments: Array(CommandLine.arguments.dropFirst())))
    }
}

/// `migrationkit`: the root of every command.
struct RootCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: CLIContext.host.commandName,
            abstract: "Safe migrations for SQLCipher-encrypted SQLite databases.",
            discussion: """
                Keys come from exactly one of --password-file, --keychain-service/--keychain-account \
                or --password; else from \(KeyOptions.environmentVariable); else a prompt on a terminal. \
                Use --plaintext for an unencrypted database.

                Settings not given as flags come from MIGRATIONKIT_* environment variables \
                (MIGRATIONKIT_DB_PATH, …), then from migrationkit.toml in the current folder or \
                above it (--config FILE, --database NAME); `config` shows what applies and why.

                Exit codes: \(CLIExitCode.allCases.map { "\($0.rawValue) \($0.summary)" }.joined(separator: "; ")).
                """,
            version: MigrationKitVersion.current,
            subcommands: [
                MigrateCommand.self, StatusCommand.self, RollbackCommand.self, VerifyCommand.self,
                SchemaDumpCommand.self, NewCommand.self, InitCommand.self, ConfigCommand.self,
                EncryptCommand.self, DecryptCommand.self, RekeyCommand.self, CipherUpgradeCommand.self, KeyCommand.self,
                RestoreCommand.self, BaselineCommand.self, LintCommand.self, CheckCommand.self,
            ])
    }
}

/// The tool's version, printed by `--version`.
public enum MigrationKitVersion {
    public static let current = "0.1.0"
}

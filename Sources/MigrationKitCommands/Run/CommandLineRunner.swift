import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// Parses arguments, runs the command, and turns every outcome into the documented exit
/// code and one sentence: what any MigrationKit command line (the `migrationkit` tool,
/// the GRDB commands, an app's own binary) does around its commands.
package struct CommandLineRunner {
    /// The root command, whose subcommands are the commands.
    let root: any ParsableCommand.Type
    /// The name shown in messages.
    let commandName: String
    /// Presents the database layer's own errors (nil for any other).
    let layerErrors: (any Error, RemedyWording) -> ErrorPresentation?
    /// How this command line names the remedies library errors offer: its flags and
    /// commands, nil for one it does not have (the GRDB commands have no
    /// `--allow-out-of-order`, so their refusals do not suggest it).
    let wording: RemedyWording
    /// What the command line adds to any failure's presentation before it is printed
    /// (what the run left behind).
    var annotate: (ErrorPresentation) -> ErrorPresentation = { $0 }
    /// Once the process was asked to stop (Ctrl-C, SIGTERM), how a run that did not
    /// succeed ends: this sentence and exit code, whatever the command made of the
    /// interruption (a check that counted it as a failed check, a verify as a failed
    /// verification). Nil while no stop was asked.
    var stopped: () -> ErrorPresentation? = { nil }
    /// What `--version` prints, wherever it is given (`migrate --version` too), in place
    /// of the bare version ArgumentParser was declared with; nil to keep that.
    var versionReport: (() -> String)?
    /// What the command line sees of its process: where it prints its errors, and the
    /// environment, standard input and standard error its keys are read with (the
    /// process's own, or a command line's run inside a process that is not its own,
    /// `CommandSurroundings`).
    package var surroundings = ProcessSurroundings.process

    init(root: any ParsableCommand.Type, commandName: String, wording: RemedyWording,
                 layerErrors: @escaping (any Error, RemedyWording) -> ErrorPresentation?) {
        self.root = root
        self.commandName = commandName
        self.wording = wording
        self.layerErrors = layerErrors
    }

    /// Runs `arguments` (without the program name) and returns the exit code.
    ///
    /// - Parameters:
    ///   - prepare: what happens to the parsed command before it runs (settings from the
    ///     environment and a project file, for the `migrationkit` tool).
    ///   - perform: runs the prepared command (in its world, for the command tree's), its
    ///     keys read and stored as the run's `KeyReading` says.
    package func run(_ arguments: [String], prepare: (any ParsableCommand) throws -> any ParsableCommand = { $0 },
                     perform: (any ParsableCommand, KeyReading) throws -> Void = { command, _ in var command = command; try command.run() }) -> Int32 {
        // Until the arguments parse, a usage error can only look for the flag itself
        // (before a `--`, after which arguments are operands); after that, the parsed
        // option decides.
        var json = arguments.prefix { $0 != "--" }.contains("--json")
        var verbose = false
        if let unknown = unknownSubcommand(in: arguments) {
            ErrorPresentation(row: ExitCodeDecision.usage, message: unknown).print(commandName: commandName, json: json, on: surroundings.console)
            return CLIExitCode.usage.rawValue
        }
        do {
            var command = try root.parseAsRoot(arguments)
            json = (command as? any PrintsOutput)?.output.json ?? false
            verbose = (command as? any PrintsOutput)?.output.verbose ?? false
            command = try prepare(command)
            // One batch per run, never per process: a keyring that did not answer one
            // command is asked again by the next (in-process runs included).
            let reading = KeyReading(
                environment: surroundings.environment, standardInput: surroundings.standardInput,
                keyCommandTimeout: ConnectionOptions.keyCommandTimeout(of: command),
                stopRequest: KeyCommandLine.StopRequest { Interruption.isStopping ? Interruption.signal : nil },
                standardErrorRelay: surroundings.keyCommandErrors,
                secretServiceBatch: SecretServiceKeyStore.Batch(timeout: ConnectionOptions.secretServiceTimeout(of: command)))
            try perform(command, reading)
            return CLIExitCode.success.rawValue
        } catch let exit as ExitCode {
            let alreadyStopped = [CLIExitCode.hungUp, .interrupted, .terminated].map(\.rawValue).contains(exit.rawValue)
            if exit.rawValue != CLIExitCode.success.rawValue, !alreadyStopped, let stop = stopped() {
                // A command that exits with a code of its own (verify, check, lint) has
                // printed its --json document: the stop goes to standard error only.
                stop.print(commandName: commandName, json: false, on: surroundings.console)
                return stop.exitCode.rawValue
            }
            return exit.rawValue
        } catch {
            if let stop = stopped() {
                stop.print(commandName: commandName, json: json, on: surroundings.console)
                return stop.exitCode.rawValue
            }
            if let presented = ErrorPresentation(error, root: root, layer: layerErrors, wording: wording) {
                let presentation = annotate(presented.verbose(verbose))
                presentation.print(commandName: commandName, json: json, on: surroundings.console)
                return presentation.exitCode.rawValue
            }
            return presentArgumentParserError(error, arguments: arguments, json: json)
        }
    }

    /// A word where a subcommand belongs that names none (`migrationkit migrat`): one
    /// sentence with the nearest name. ArgumentParser would blame an "unexpected
    /// argument", or the first option after it (`stat --json` blamed `--json`), and
    /// suggests names for options only.
    private func unknownSubcommand(in arguments: [String]) -> String? {
        var command = root
        var path = [commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            // Options (--help, --version) and `help` are the parser's to judge.
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
            let names = subcommands.map { $0.configuration.commandName ?? $0._commandName }
            guard let index = names.firstIndex(of: argument) else {
                let suggestion = Suggestion.closest(to: argument, among: names).map { " Did you mean `\(($0))`?" } ?? ""
                let group = path.joined(separator: " ")
                return "`\(argument)` is not a \(group) command.\(suggestion) (`\(group) --help` lists them.)"
            }
            command = subcommands[index]
            path.append(argument)
        }
        return nil
    }

    /// ArgumentParser's own errors: usage, --help, --version.
    private func presentArgumentParserError(_ error: any Error, arguments: [String], json: Bool) -> Int32 {
        let code = root.exitCode(for: error)
        let message = root.fullMessage(for: error)
        if code == .success, !Self.asksForHelp(arguments) {
            // `migrationkit` or `migrationkit key` alone: a command group with no
            // command is a usage error for scripts, not a success.
            surroundings.console.error(message)
            let sentence = "Give a subcommand (see the list above)."
            ErrorPresentation(row: ExitCodeDecision.usage, message: sentence).print(commandName: commandName, json: json, on: surroundings.console)
            return CLIExitCode.usage.rawValue
        }
        if code == .success {
            // ArgumentParser answers `--version` with the root's declared version, and
            // with nothing else that could be mistaken for it.
            let version = root.configuration.version
            if let versionReport, !version.isEmpty, message == version {
                surroundings.console.out(versionReport())
            } else if !message.isEmpty {
                surroundings.console.out(message)
            }
            return CLIExitCode.success.rawValue
        }
        let exitCode = code.rawValue == ExitCode.validationFailure.rawValue ? CLIExitCode.usage.rawValue : code.rawValue
        if exitCode == CLIExitCode.usage.rawValue {
            // One line, like every other error (the usage text would bury the
            // sentence); under --json, one document.
            let sentence = root.message(for: error) + " (see --help)"
            ErrorPresentation(row: ExitCodeDecision.usage, message: ErrorPresentation.oneLine(sentence))
                .print(commandName: commandName, json: json, on: surroundings.console)
            return exitCode
        }
        surroundings.console.error(message)
        return exitCode
    }

    /// Whether the arguments ask ArgumentParser for help or the version, which then
    /// ends the run successfully; any other clean exit is a group with no subcommand.
    private static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.contains { ["-h", "--help", "-help", "help", "--version", "--experimental-dump-help"].contains($0) || $0.hasPrefix("--generate-completion-script") }
    }
}

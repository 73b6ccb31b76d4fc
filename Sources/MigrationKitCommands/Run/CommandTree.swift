import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// The one command tree: the one list of commands, and the run around a command —
/// hardening, graceful stop, locks, project settings, the run journal — for
/// `migrationkit` (`MigrationCLI`) and for a GRDB app's binary (`GRDBMigrationCLI`)
/// alike. A front end adds only its root command and its layer (`CommandLayer`).
package enum CommandTree {
    /// Every command of a command line over `layer`, in help's order: the ones every
    /// layer gets, and the layer's own (`CommandLayer.ownCommands`) among them. Both
    /// front ends' root commands list exactly these, so a command is added in one place:
    /// here, or in its layer's `ownCommands` when only that layer's connection can run it.
    package static func commands(for layer: any CommandLayer) -> [any ParsableCommand.Type] {
        commands(adding: layer.ownCommands)
    }

    /// The commands that work through any layer, in help's order: a GRDB app's whole tree.
    static let sharedCommands = commands(adding: [])

    /// The list itself. A layer's own commands come after `config`, where `migrationkit`
    /// has always listed encrypt, decrypt, rekey, cipher-upgrade and key.
    private static func commands(adding own: [any ParsableCommand.Type]) -> [any ParsableCommand.Type] {
        [
            MigrateCommand.self, StatusCommand.self, RollbackCommand.self, VerifyCommand.self, SchemaDumpCommand.self, DiffCommand.self,
            NewCommand.self, InitCommand.self, ConfigCommand.self,
        ] + own + [
            RestoreCommand.self, BaselineCommand.self, AdoptCommand.self, LintCommand.self, CheckCommand.self, OptimizeCommand.self,
        ]
    }

    /// What a front end's host decides about the process while a command runs.
    package struct ProcessPolicy: Sendable {
        /// When the process is made non-dumpable, with no core file (`ProcessHardening`).
        var hardening: Hardening
        /// Let Ctrl-C and SIGTERM stop the work in progress instead of the process.
        var stopsGracefully: Bool
        /// The command line is the process's `main()`: it ends the process by the signal
        /// that stopped the command, and a reader that goes away
        /// (`migrationkit migrate | head -1`) makes writes fail with EPIPE instead of
        /// killing a migration half-way. A run inside an app's process leaves both to the app.
        var isProcessMain: Bool

        package init(hardening: Hardening, stopsGracefully: Bool, isProcessMain: Bool) {
            self.hardening = hardening
            self.stopsGracefully = stopsGracefully
            self.isProcessMain = isProcessMain
        }
    }

    /// When a command line hardens its process. Both ways, no key is ever read before.
    package enum Hardening: Sendable {
        /// As the command starts: the `migrationkit` tool, whose process is its own.
        case atStart
        /// Just before a key is read, and not at all for a run that reads none: a command
        /// inside an app's own process (`--plaintext` leaves it as it was).
        case beforeKeyIsRead
        /// Never: the host turned it off (it needs core dumps or a debugger).
        case never
    }

    /// Parses `arguments` under `root`, runs the command over `layer`, prints results
    /// and errors, and returns the exit code.
    ///
    /// - Parameter surroundings: what the command sees of its process (the process's own,
    ///   or those of a command line run in-process, `CommandSurroundings.processSurroundings`); the
    ///   world holds it, and the run prints on its console.
    package static func run(_ arguments: [String], root: any ParsableCommand.Type, layer: any CommandLayer, policy: ProcessPolicy,
                            versionReport: (() -> String)? = nil, surroundings: ProcessSurroundings = .process) -> Int32 {
        if policy.isProcessMain { signal(SIGPIPE, SIG_IGN) }
        // Before any key is read: no core file or same-user debugger reaches it.
        if policy.hardening == .atStart { ProcessHardening.apply() }
        // Ctrl-C and SIGTERM stop the work in progress, which rolls back and says what
        // it left (`RunJournal`), instead of ending the process between two writes. Only
        // while the command runs: an app that embeds the commands gets its signals back.
        if policy.stopsGracefully { Interruption.stopGracefully() }
        let world = CommandWorld(layer: layer, root: root, hardening: policy.hardening, surroundings: surroundings)
        let (locks, resolved, journal, running) = (world.locks, world.resolvedSettings, world.journal, world.running)
        var runner = CommandLineRunner(root: root, commandName: layer.commandName,
                                       wording: CommandLineRemedies.wording(commandName: layer.commandName, layer: layer, running: running),
                                       layerErrors: { layer.present($0, wording: $1, databasePath: journal.databasePath) })
        runner.annotate = journal.annotate
        runner.stopped = journal.stop
        runner.versionReport = versionReport
        runner.surroundings = surroundings
        // The parse (and its messages) reads the layer from the command's type alone
        // (`ParsingLayer`); the command is handed its world.
        let code = ParsingLayer.$current.withValue(layer) {
            runner.run(arguments, prepare: { command in
                locks.command = type(of: command).configuration.commandName ?? ""
                running.type = type(of: command)
                // Settings not given as flags, from the environment and migrationkit.toml.
                guard var configurable = command as? any ProjectConfigurable else { return command }
                resolved.settings = try configurable.applyProjectSettings(in: world)
                return configurable
            }, perform: { command, keyReading in
                guard let command = command as? any WorldCommand else {
                    // A group of commands, which ArgumentParser answers with its help.
                    var group = command
                    return try group.run()
                }
                // Unbound for the run itself: below `run(in:)`, nothing reads the layer but
                // from the world.
                try ParsingLayer.$current.withValue(nil) { try command.run(in: world.with { $0.keyReading = keyReading }) }
            })
        }
        locks.releaseAll()
        guard policy.stopsGracefully else { return code }
        if let signal = Interruption.signal, code == CLIExitCode.success.rawValue {
            // Past the point where it could stop (a rekey, a rename): it finished.
            surroundings.console.error("warning: \(Interruption.name(of: signal)) arrived when the command could no longer stop; it finished.")
        }
        // A stopped run ends by its signal; the code says which when the signal reached
        // a handler of its own first (the key prompt's).
        let stopSignal = CLIExitCode(rawValue: code)?.stopSignal
        Interruption.endGracefulStop(reraising: policy.isProcessMain && stopSignal != nil, orElse: stopSignal)
        return code
    }

    /// The exit codes, for a root command's discussion.
    package static var exitCodesDiscussion: String {
        "Exit codes: \(CLIExitCode.allCases.map { "\($0.rawValue) \($0.summary)" }.joined(separator: "; "))."
    }
}

/// A command that runs in the world its command line hands it (`CommandTree.run`),
/// rather than in anything ambient: every command of the tree.
package protocol WorldCommand: ParsableCommand {
    /// Runs the command, with `world` passed to whatever it calls that needs it.
    func run(in world: CommandWorld) throws
}

extension ErrorPresentation {
    /// How the command line running in `world` presents `error`; nil for ArgumentParser's own.
    package init?(_ error: any Error, in world: CommandWorld) {
        let layer = world.layer
        self.init(error, root: world.root, layer: { layer.present($0, wording: $1, databasePath: world.journal.databasePath) },
                  wording: CommandLineRemedies.wording(commandName: layer.commandName, layer: layer, running: world.running))
    }
}

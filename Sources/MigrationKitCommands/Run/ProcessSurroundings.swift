import Foundation
import MigrationKitFiles
import MigrationKitKeys

/// What a running command sees of its process: its environment variables, its standard
/// input, its standard output and error. The process's own (`process`), for the binary
/// and an app's commands, or those a `CommandSurroundings` gives a command line run inside
/// a process that is not its own. Made once per run by the entry point of its command
/// line (`CommandTree.run`), held by its world (`CommandWorld.surroundings`) and handed
/// down to whatever prints, reads a `MIGRATIONKIT_*` setting or a key, or reads standard
/// input: a value, so the threads a fleet's work moves to take it along by capture.
/// (The working folder is the command's thread's own, which threads it starts share.)
package struct ProcessSurroundings: Sendable {
    /// The variables it reads (settings, key sources) and a key command is started with.
    package var environment: ProcessEnvironment
    /// What it reads as its standard input (a key, `--db-list -`, a prompt's answers).
    package var standardInput: StandardInput
    /// Where its standard output and error go.
    package var console: Console

    init(environment: ProcessEnvironment = .process, standardInput: StandardInput = .process, console: Console = .process) {
        self.environment = environment
        self.standardInput = standardInput
        self.console = console
    }

    /// The process's own environment, standard input and descriptors.
    package static let process = ProcessSurroundings()

    /// Asks `question` and goes on only when `word` is typed on the command's standard
    /// input (`migrate --erase-on-schema-change`, `adopt --retire-ledger`).
    ///
    /// - Parameter refusal: the sentence when standard input is not a terminal, where no
    ///   one can answer.
    /// - Throws: `CLIError(.notConfirmed)` for no terminal or another answer; the stop's
    ///   own error when a signal stops the command while it waits (Ctrl-C at the
    ///   question), with nothing changed.
    func confirm(_ question: String, typing word: String, refusal: String) throws {
        guard standardInput.isTerminal else { throw CLIError(.notConfirmed, refusal) }
        console.errorRaw("\(question) Type \"\(word)\" to confirm: ")
        let answer = standardInput.readLine(until: { Interruption.isStopping })
        try Interruption.check()
        guard answer?.trimmingCharacters(in: .whitespaces) == word else {
            throw CLIError(.notConfirmed, "Not confirmed; nothing was changed.")
        }
    }

    /// Where a key command's standard error goes: where the command's own does when it
    /// is captured; nil: the process's, and the terminal is the key command's for its
    /// prompts.
    var keyCommandErrors: KeyCommandLine.StandardErrorRelay? {
        console.capture.map { capture in KeyCommandLine.StandardErrorRelay { bytes in capture.appendError(bytes) } }
    }
}

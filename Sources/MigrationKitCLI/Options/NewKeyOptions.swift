import ArgumentParser
import MigrationKitCommands
import MigrationKitKeyOptions
import MigrationKitKeys
import MigrationKitSQLCipher

/// The key to change to (`rekey`, `encrypt`'s target): the same key sources as
/// `KeyOptions`, each option named `--new-…`; exactly one, or a prompt asked twice on a
/// terminal. No environment fallback: a new key must be chosen on purpose, not picked
/// up from a variable left over from another command.
package struct NewKeyOptions: ParsableArguments {
    @OptionGroup var flags: KeySourceOptions<NewKeyRole>

    package init() {}

    package func validate() throws {
        try flags.given.validate(NewKeyRole.text)
    }

    /// The new key, read once. Warnings (the process-list warning, a key file readable
    /// by others) go to `reporter`.
    func resolve(reporter: Reporter) throws -> DatabaseKey {
        let given = flags.given
        for warning in given.warnings(NewKeyRole.text) { reporter.warning(warning) }
        let source: KeySource
        if let explicit = try given.source() {
            source = explicit
        } else if StandardInput.isTerminal {
            source = .prompt(message: "New key: ", confirm: true)
        } else {
            throw CLIError(.keyUnavailable, "No new key given; pass \(KeySources.advice(NewKeyRole.text)).")
        }
        return try source.resolve(warn: { reporter.warning($0.description) })
    }
}

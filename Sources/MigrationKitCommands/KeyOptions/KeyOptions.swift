import ArgumentParser
import Foundation
import MigrationKitKeys

/// Where the database key comes from. Exactly one of the key sources (`KeySources`);
/// otherwise what `KeySource.implicit` picks: the `MIGRATIONKIT_PASSWORD` environment
/// variable, else a no-echo prompt when standard input is a terminal; otherwise an
/// error. `--plaintext` opts out of encryption explicitly, so a forgotten key never
/// creates an unencrypted database.
package struct KeyOptions: ParsableArguments {
    /// The key sources' options, as parsed.
    @OptionGroup var flags: KeySourceOptions<DatabaseKeyRole>

    @Flag(name: .customLong(ProjectSetting.plaintext.rawValue), help: "Work on an unencrypted database (no key).")
    package var plaintext = false

    /// The values after parsing, once project settings filled them or `{name}` was
    /// replaced; not options (ArgumentParser keeps them at their defaults).
    private var settledValues: [String: String] = [:]
    private var isSettled = false

    package init() {}

    /// The key sources' values: the flags, or what replaced them.
    package var given: KeySourceValues {
        get { isSettled ? KeySourceValues(byName: settledValues) : flags.given }
        set {
            settledValues = newValue.byName
            isSettled = true
        }
    }

    package func validate() throws {
        try given.validate(DatabaseKeyRole.text)
        if plaintext && !given.isEmpty {
            throw ValidationError("--plaintext means no key; drop it, or drop the key option.")
        }
    }

    /// The key source these options select, or nil for `--plaintext`.
    /// - Parameters:
    ///   - environment: the running command's, where `MIGRATIONKIT_PASSWORD` (and a
    ///     source's own variable, `CREDENTIALS_DIRECTORY`) is looked at.
    ///   - keyIsNew: the key is about to encrypt a file for the first time (encrypt, or
    ///     migrate creating the database). Typed at a prompt, it is then asked twice: a
    ///     typo would lock the data under a key nobody knows.
    package func source(standardInputIsTerminal: Bool, environment: ProcessEnvironment, promptMessage: String, keyIsNew: Bool = false) throws -> KeySource? {
        if plaintext { return nil }
        if let source = try given.source(in: environment) { return source }
        let implicit = KeySource.implicit(promptMessage: promptMessage, confirm: keyIsNew, in: environment)
        if case .prompt = implicit, !standardInputIsTerminal {
            let variable = KeySource.passwordEnvironmentVariable
            let empty = KeySource.passwordEnvironmentVariableIsEmpty(in: environment) ? " (\(variable) is set but empty, which counts as not set)" : ""
            throw CLIError(.noKeyGiven,
                           "No key given\(empty); pass \(KeySources.advice(DatabaseKeyRole.text)), or --plaintext for an unencrypted database.")
        }
        return implicit
    }

    /// Whether the key source names each database's own key through `{name}`.
    package var isTemplate: Bool { given.isTemplate }
}

import ArgumentParser
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// How the commands, in `migrationkit` and in an app's binary (`MigrationCLI`,
/// `GRDBMigrationCLI`), word the
/// remedies the libraries offer: as their own flags and commands. The one place these
/// sentences name flags; a remedy added to the core does not compile until it is worded
/// here.
enum CommandLineRemedies {
    /// - Parameters:
    ///   - commandName: the binary's name, for "`migrationkit new NAME` does".
    ///   - running: the command the command line parsed, whose options the sentences
    ///     may offer (nil: every command line's words).
    static func wording(commandName: String, layer: any CommandLayer, running: RunningCommand?) -> RemedyWording {
        RemedyWording { remedy in
            if let words = layer.words(for: remedy) { return words }
            switch remedy {
            case .allowOutOfOrder:
                return "pass --allow-out-of-order"
            case .acceptModified(let identifiers):
                guard runningCommandTakes(.acceptModified, running: running) else { return nil }
                return "if the edit changes nothing that matters, accept it with "
                    + identifiers.map { "--accept-modified \($0)" }.joined(separator: " ")
            case .acceptUnknown(let identifiers):
                guard runningCommandTakes(.acceptUnknown, running: running) else { return nil }
                return "if this version may migrate the database all the same, accept \(identifiers.count == 1 ? "it" : "them") with "
                    + identifiers.map { "--accept-unknown \($0)" }.joined(separator: " ")
            case .createMigrationsFolder, .chooseMigrationsFolder, .nameMigrationsLayout:
                return MigrationsOptions.words(for: remedy, newCommand: "\(commandName) new NAME")
            case .openWithoutKey, .keyFromFile, .keyFromAnotherSource, .keyFromPipeOrPrompt, .allowKeyCommandMoreTime:
                return KeySources.words(for: remedy, commandName: commandName)
            case .encryptInPlace:
                return "use --in-place to encrypt it where it is"
            case .replaceOutput:
                return "pass --force to replace it"
            case .waitLonger:
                return ErrorPresentation.waitLongerWords
            case .giveCipherSettings(let settings):
                return "if the database was made with other cipher settings, give them: " + CipherOptions.options(for: settings)
            case .storeKeyAgain:
                // Worded by a layer with a `key store` command (SQLCipherCommandLayer).
                return nil
            case .standInForCollation(let name):
                return "pass --collation \(shellQuoted(name))=NOCASE (or BINARY, RTRIM) to let a built-in collation stand in for it while copying"
            case .givePlaceholderValues(let names):
                return "give \(names.count == 1 ? "it a value" : "them values") with " + names.map { "--placeholder \(shellQuoted($0))=VALUE" }.joined(separator: " ")
                    + " (or in migrationkit.toml's [placeholders] table)"
            }
        }
    }

    /// Whether the running command has the option that gives `override`: a refusal of
    /// the database's history can come from a command without it (`baseline` of an
    /// edited migration, `rollback` of a newer version's database), whose sentence then
    /// names no option it does not have. Outside a run, every command line's words.
    private static func runningCommandTakes(_ override: HistoryOverride, running: RunningCommand?) -> Bool {
        guard let command = running?.type else { return true }
        return (command as? any AcceptsHistoryOverrides.Type)?.historyOverrides.contains(override) ?? false
    }
}

/// An option that overrides a refusal of the database's history.
enum HistoryOverride: Hashable, Sendable {
    /// `--accept-modified ID`: `Remedy.acceptModified`.
    case acceptModified
    /// `--accept-unknown ID`: `Remedy.acceptUnknown`.
    case acceptUnknown
}

/// A command that takes options overriding a refusal of the database's history, which
/// the refusal's sentence then offers (`CommandLineRemedies`).
protocol AcceptsHistoryOverrides: ParsableCommand {
    /// The overrides it takes as options.
    static var historyOverrides: Set<HistoryOverride> { get }
}

import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// How the commands, in `migrationkit` and in an app's binary (`MigrationCLI`,
/// `GRDBMigrationCLI`), word the
/// remedies the libraries offer: as their own flags and commands. The one place these
/// sentences name flags; a remedy added to the core does not compile until it is worded
/// here.
package enum CommandLineRemedies {
    /// - Parameter commandName: the binary's name, for "`migrationkit new NAME` does".
    package static func wording(commandName: String, layer: any CommandLayer) -> RemedyWording {
        RemedyWording { remedy in
            if let words = layer.words(for: remedy) { return words }
            switch remedy {
            case .allowOutOfOrder:
                return "pass --allow-out-of-order"
            case .acceptModified(let identifiers):
                return "if the edit changes nothing that matters, accept it with "
                    + identifiers.map { "--accept-modified \($0)" }.joined(separator: " ")
            case .createMigrationsFolder, .chooseMigrationsFolder:
                return MigrationsOptions.words(for: remedy, newCommand: "\(commandName) new NAME")
            case .openWithoutKey, .keyFromFile, .keyFromAnotherSource, .keyFromPipeOrPrompt:
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
            }
        }
    }
}

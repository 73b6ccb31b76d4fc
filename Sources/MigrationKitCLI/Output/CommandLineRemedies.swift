import MigrationKitKeyOptions
import MigrationKit
import MigrationKitCommands
import MigrationKitKeys

/// How the `migrationkit` commands, and an app's binary built on `MigrationCLI`, word the
/// remedies the libraries offer: as their own flags and commands. The one place these
/// sentences name flags; a remedy added to the core does not compile until it is worded
/// here.
enum CommandLineRemedies {
    /// - Parameter commandName: the binary's name, for "`migrationkit new NAME` does".
    static func wording(commandName: String) -> RemedyWording {
        RemedyWording { remedy in
            switch remedy {
            case .allowOutOfOrder:
                return "pass --allow-out-of-order"
            case .acceptModified(let identifiers):
                return "if the edit changes nothing that matters, accept it with "
                    + identifiers.map { "--accept-modified \($0)" }.joined(separator: " ")
            case .createMigrationsFolder, .chooseMigrationsFolder:
                return MigrationsOptions.words(for: remedy, newCommand: "\(commandName) new NAME")
            case .openWithoutKey:
                return "open it without a key (--plaintext)"
            case .encryptInPlace:
                return "use --in-place to encrypt it where it is"
            case .replaceOutput:
                return "pass --force to replace it"
            case .keyFromFile:
                return "pass the key with --password-file instead"
            case .keyFromAnotherSource:
                return "pass the key another way: \(KeySources.advice(DatabaseKeyRole.text))"
            case .keyFromPipeOrPrompt:
                return "pipe the key in (e.g. `\(commandName) … --password-file - < key`), or leave out --password-file to be prompted without echo"
            }
        }
    }
}

import ArgumentParser
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// The key to change to (`rekey`, `encrypt`'s target): exactly one source, or a prompt
/// asked twice on a terminal. No environment fallback: a new key must be chosen on
/// purpose, not picked up from a variable left over from another command.
package struct NewKeyOptions: ParsableArguments {
    @Option(name: .customLong("new-password"),
            help: "The new passphrase. Warning: other users can see it in the process list; prefer --new-password-file or the keyring.")
    package var password: String?

    @Option(name: .customLong("new-password-file"), help: ArgumentHelp("Read the new key from a file (mode 0600; `-` reads standard input).", valueName: "path"))
    package var passwordFile: String?

    @Option(name: .customLong("new-keychain-service"), help: ArgumentHelp("Take the new key from the Secret Service: the item's service.", valueName: "service"))
    package var keychainService: String?

    @Option(name: .customLong("new-keychain-account"), help: ArgumentHelp("The new key's Secret Service account.", valueName: "account"))
    package var keychainAccount: String?

    package init() {}

    package func validate() throws {
        if (keychainService == nil) != (keychainAccount == nil) {
            throw ValidationError("--new-keychain-service and --new-keychain-account go together; give both.")
        }
        if [password != nil, passwordFile != nil, keychainService != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Give exactly one new-key source: --new-password, --new-password-file, or --new-keychain-service with --new-keychain-account.")
        }
        if password?.isEmpty == true {
            throw ValidationError("--new-password is empty.")
        }
    }

    /// The new key, read once. Warnings (the process-list warning, a key file readable
    /// by others) go to `reporter`.
    func resolve(reporter: Reporter) throws -> DatabaseKey {
        let source: KeySource
        if let password {
            reporter.warning("--new-password is visible to other users in the process list (ps); prefer --new-password-file or --new-keychain-service.")
            source = .password(password)
        } else if let passwordFile {
            source = passwordFile == "-" ? .standardInput : .file(path: passwordFile)
        } else if let keychainService, let keychainAccount {
            source = .secretService(service: keychainService, account: keychainAccount)
        } else if Console.standardInputIsTerminal {
            source = .prompt(message: "New key: ", confirm: true)
        } else {
            throw CLIError(.keyUnavailable, "No new key given; pass --new-password-file, --new-keychain-service/--new-keychain-account or --new-password.")
        }
        return try source.resolve(warn: { reporter.warning($0.description) })
    }
}

import ArgumentParser
import Foundation
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// Where the database key comes from. Exactly one explicit source; otherwise the
/// `MIGRATIONKIT_PASSWORD` environment variable; otherwise a no-echo prompt when
/// standard input is a terminal; otherwise an error. `--plaintext` opts out of
/// encryption explicitly, so a forgotten key never creates an unencrypted database.
package struct KeyOptions: ParsableArguments {
    package static let environmentVariable = "MIGRATIONKIT_PASSWORD"

    @Option(name: .customLong("password"),
            help: "The passphrase. Warning: other users can see it in the process list; prefer --password-file, the keyring, or \(KeyOptions.environmentVariable).")
    package var password: String?

    @Option(name: .customLong("password-file"), help: ArgumentHelp("Read the key from a file (mode 0600; `-` reads standard input).", valueName: "path"))
    package var passwordFile: String?

    @Option(name: .customLong("keychain-service"), help: ArgumentHelp("Take the key from the Secret Service (gnome-keyring, KeePassXC): the item's service.", valueName: "service"))
    package var keychainService: String?

    @Option(name: .customLong("keychain-account"), help: ArgumentHelp("The Secret Service item's account (with --keychain-service).", valueName: "account"))
    package var keychainAccount: String?

    @Flag(name: .customLong("plaintext"), help: "Work on an unencrypted database (no key).")
    package var plaintext = false

    package init() {}

    package func validate() throws {
        if (keychainService == nil) != (keychainAccount == nil) {
            throw ValidationError("--keychain-service and --keychain-account go together; give both.")
        }
        let explicit = [password != nil, passwordFile != nil, keychainService != nil].filter { $0 }.count
        if explicit > 1 {
            throw ValidationError("Give exactly one key source: --password, --password-file, or --keychain-service with --keychain-account.")
        }
        if plaintext && explicit > 0 {
            throw ValidationError("--plaintext means no key; drop it, or drop the key option.")
        }
        if password?.isEmpty == true {
            throw ValidationError("--password is empty; an empty key would leave the database unencrypted.")
        }
    }

    /// The key source these options select, or nil for `--plaintext`.
    /// - Parameters:
    ///   - isSet: whether an environment variable is set. Asked by name, so the value
    ///     (perhaps the key) is never copied into a Swift string here.
    ///   - keyIsNew: the key is about to encrypt a file for the first time (encrypt, or
    ///     migrate creating the database). Typed at a prompt, it is then asked twice: a
    ///     typo would lock the data under a key nobody knows.
    func source(isSet: (String) -> Bool, standardInputIsTerminal: Bool, promptMessage: String, keyIsNew: Bool = false) throws -> KeySource? {
        if plaintext { return nil }
        if let password { return .password(password) }
        if let passwordFile { return passwordFile == "-" ? .standardInput : .file(path: passwordFile) }
        if let keychainService, let keychainAccount { return .secretService(service: keychainService, account: keychainAccount) }
        // Set but empty counts as not set (`KeySource.passwordEnvironmentVariableGivesKey`).
        if isSet(Self.environmentVariable) { return .environment(variable: Self.environmentVariable) }
        if standardInputIsTerminal { return .prompt(message: promptMessage, confirm: keyIsNew) }
        let empty = KeySource.passwordEnvironmentVariableIsEmpty ? " (\(Self.environmentVariable) is set but empty, which counts as not set)" : ""
        throw CLIError(.keyUnavailable,
                       "No key given\(empty); pass --password-file, --keychain-service/--keychain-account, --password or \(Self.environmentVariable), or --plaintext for an unencrypted database.")
    }
}

extension KeyOptions {
    /// What `{name}` in `--password-file`, `--keychain-service` or `--keychain-account`
    /// stands for: one database's name, so each database of a fleet has its own key.
    static let namePlaceholder = "{name}"

    /// Whether the key source names each database's own key through `{name}`.
    var isTemplate: Bool {
        [passwordFile, keychainService, keychainAccount].contains { $0?.contains(Self.namePlaceholder) == true }
    }

    /// These options with `{name}` replaced by the name of the database at `path`: its
    /// file name without the last extension (`tenants/acme.db` is `acme`). Only
    /// `CommandSupport.resolveKey` calls it, for every command.
    func forDatabase(at path: String) -> KeyOptions {
        let name = Self.databaseName(path)
        var options = self
        options.passwordFile = passwordFile?.replacingOccurrences(of: Self.namePlaceholder, with: name)
        options.keychainService = keychainService?.replacingOccurrences(of: Self.namePlaceholder, with: name)
        options.keychainAccount = keychainAccount?.replacingOccurrences(of: Self.namePlaceholder, with: name)
        return options
    }

    /// The name of the file a path names: a symbolic link (an alias such as
    /// `current.db`) stands for its target, whose key it is.
    static func databaseName(_ path: String) -> String {
        let real = DurableFile.resolvingSymlinks(path)
        let file = real.split(separator: "/").last.map(String.init) ?? real
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }
}

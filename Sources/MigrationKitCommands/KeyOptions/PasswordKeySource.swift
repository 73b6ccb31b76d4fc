import ArgumentParser
import MigrationKitKeys

/// `--password TEXT`: the key on the command line, where other users can see it (`ps`).
/// A flag only: a key never goes into `migrationkit.toml` or a setting variable.
enum PasswordKeySource: KeySourceDefinition {
    package static let descriptor = KeySourceDescriptor(
        parameters: [.init(
            name: "password", valueName: "password",
            help: { "The \($0.prefix.isEmpty ? "" : "new ")passphrase, or raw key as x'<64 hex digits>'. Warning: other users can see it in the process list; prefer another \($0.prefix)key source\($0.environmentVariable.map { " or \($0)" } ?? "")." },
            setting: nil, example: "")],
        description: "the key itself",
        takesName: false,
        lastResort: true,
        source: { values, _ in .password(values[0]) },
        shown: { _, _ in "--password (not shown)" },
        check: { values, role in
            if values[0].isEmpty {
                throw ValidationError("\(role.flag("password")) is empty; an empty key would leave the database unencrypted.")
            }
        },
        warning: { "\($0.flag("password")) is visible to other users in the process list (ps); prefer \(KeySources.advice($0, preferredOnly: true))." })
}

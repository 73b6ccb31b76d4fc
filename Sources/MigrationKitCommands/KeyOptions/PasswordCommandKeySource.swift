import ArgumentParser
import MigrationKitKeys

/// `--password-command CMD` (`password-command`, `MIGRATIONKIT_PASSWORD_COMMAND`): the key
/// is what a command prints on its standard output (`KeySource.command`), taken as a key
/// file's content is (`KeyText`: x'<64 hex digits>' a raw key, anything else a
/// passphrase; a trailing line break dropped): `pass show db/{name}`, `vault kv get
/// -field=key secret/db/{name}`. Split into words without a shell (`KeyCommandLine`), or run
/// by `/bin/sh -c` when it starts with `!`.
///
/// `{name}` (and the other name forms) stand for each database's name, each replaced by
/// one word (quoted when it holds anything but letters, digits and `@%+=:,./_-`), so a
/// database's name never becomes two words or shell syntax: write a placeholder bare,
/// never inside quotes.
enum PasswordCommandKeySource: KeySourceDefinition {
    package static let descriptor = KeySourceDescriptor(
        parameters: [.init(
            name: "password-command", valueName: "command",
            help: { "Run a command and take \($0.theKey) from what it prints (a passphrase, or x'<64 hex digits>' for a raw key; a trailing line break dropped), as from a key file. Split into words like a shell, without one (start it with ! for /bin/sh -c); its prompts keep the terminal." },
            setting: .text, example: "pass show db/{name}")],
        description: "a key command", note: "pass, vault, op, …",
        takesName: true,
        source: { values, _ in .command(values[0]) },
        shown: { values, _ in "key command \(KeyCommandLine(values[0]))" },
        check: { values, role in
            if case .failure(let error) = KeyCommandLine(values[0]).words() {
                throw ValidationError("\(role.flag("password-command")): \(error.message)")
            }
        },
        placeholderValue: KeyCommandLine.quoted)
}

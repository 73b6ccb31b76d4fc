import ArgumentParser
import MigrationKitKeys

/// `--password-hex HEX`: a passphrase as hex digits, two per byte, as SQLCipher's `PRAGMA
/// hexkey` takes it (`KeySource.hex`): for a passphrase that is not text, such as
/// SQLCipher for Android's `byte[]` keys, which no text source can carry when it ends in
/// a line break. On the command line, where other users can see it (`ps`), like
/// `--password`: a flag only, never a setting; `--password-hex-file` is its file form.
enum PasswordHexKeySource: KeySourceDefinition {
    package static let descriptor = KeySourceDescriptor(
        parameters: [.init(
            name: "password-hex", valueName: "hex",
            help: { "The \($0.prefix.isEmpty ? "" : "new ")passphrase as hex digits, two per byte (SQLCipher's PRAGMA hexkey), for a passphrase that is not text; not a raw key, which is x'<64 hex digits>'. Warning: other users can see it in the process list; prefer \($0.flag("password-hex-file"))." },
            setting: nil, example: "")],
        description: "the key itself, in hex",
        takesName: false,
        lastResort: true,
        source: { values, _ in .hex(.password(values[0])) },
        shown: { _, _ in "--password-hex (not shown)" },
        check: { values, role in
            if values[0].isEmpty {
                throw ValidationError("\(role.flag("password-hex")) is empty; an empty key would leave the database unencrypted.")
            }
        },
        warning: { "\($0.flag("password-hex")) is visible to other users in the process list (ps); prefer \($0.flag("password-hex-file"))." })
}

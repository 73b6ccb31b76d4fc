import MigrationKitKeys

/// `--password-hex-file PATH` (`password-hex-file`, `MIGRATIONKIT_PASSWORD_HEX_FILE`): a
/// key file (`KeyFile`'s rules: mode, size, a trailing line break dropped) whose text is
/// a passphrase as hex digits, two per byte, as SQLCipher's `PRAGMA hexkey` takes it
/// (`KeySource.hex`): the form for a passphrase that is not text, such as SQLCipher for
/// Android's `byte[]` keys. Spaces and line breaks between the digits are ignored, so
/// `od -An -v -tx1 key.bin > db.hexkey` makes one. `-` reads standard input.
///
/// A form chosen by name: `--password-file` never reads hex, so every key file that
/// opens a database keeps opening the same one.
enum PasswordHexFileKeySource: KeySourceDefinition {
    package static let descriptor = KeySourceDescriptor(
        parameters: [.init(
            name: "password-hex-file", valueName: "path",
            help: { "Read \($0.theKey) from a file that holds a passphrase as hex digits, two per byte (SQLCipher's PRAGMA hexkey; spaces and line breaks between them ignored), for a passphrase that is not text (mode 0600; `-` reads standard input)." },
            setting: .path, dashIsStandardInput: true, example: "/etc/myapp/db.hexkey")],
        description: "a hex key file", note: "a passphrase as hex digits, mode 0600",
        takesName: true,
        source: { values, _ in .hex(values[0] == "-" ? .standardInput : .file(path: values[0])) },
        shown: { values, _ in "hex key file \(values[0])" },
        keyFile: { values, _ in values[0] == "-" ? nil : values[0] })
}

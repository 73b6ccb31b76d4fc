import MigrationKitKeys

/// `--password-file PATH`: a key file (`KeyFile`'s rules); `-` reads standard input.
enum PasswordFileKeySource: KeySourceDefinition {
    package static let descriptor = KeySourceDescriptor(
        parameters: [.init(
            name: "password-file", valueName: "path",
            help: { "Read \($0.theKey) from a file (mode 0600; `-` reads standard input). Text of the form x'<64 hex digits>' (96 with the salt) is a raw key, used without key derivation; anything else a passphrase." },
            setting: .path, dashIsStandardInput: true, example: "/etc/myapp/db.key")],
        description: "a key file", note: "mode 0600",
        takesName: true,
        source: { values, _ in values[0] == "-" ? .standardInput : .file(path: values[0]) },
        shown: { values, _ in "key file \(values[0])" },
        keyFile: { values, _ in values[0] == "-" ? nil : values[0] })
}

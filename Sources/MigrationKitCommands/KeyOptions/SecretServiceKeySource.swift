import MigrationKitKeys

/// `--keychain-service S --keychain-account A`: a Secret Service item (the Linux
/// keychain), through `SecretServiceKeyStore`.
enum SecretServiceKeySource: KeySourceDefinition {
    package static let descriptor = KeySourceDescriptor(
        parameters: [
            .init(name: "keychain-service", valueName: "service",
                  help: { "Take \($0.theKey) from the Secret Service (gnome-keyring, KeePassXC): the item's service." },
                  setting: .text, example: "myapp"),
            .init(name: "keychain-account", valueName: "account",
                  help: { "The Secret Service item's account (with \($0.flag("keychain-service")))." },
                  setting: .text, example: "db"),
        ],
        description: "a Secret Service item", note: "gnome-keyring, KeePassXC",
        takesName: true,
        source: { values, _ in .secretService(service: values[0], account: values[1]) },
        shown: { values, _ in "Secret Service item \(values[0])/\(values[1])" })
}

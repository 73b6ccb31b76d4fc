import ArgumentParser
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// `migrationkit key generate|store|delete`: keys kept in the Secret Service.
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Manage database keys in the Secret Service (gnome-keyring, KeePassXC).",
        subcommands: [GenerateKeyCommand.self, StoreKeyCommand.self, DeleteKeyCommand.self])
}

/// The Secret Service item a key command works on.
struct KeychainItemOptions: ParsableArguments {
    @Option(name: .customLong("keychain-service"), help: ArgumentHelp("The item's service attribute.", valueName: "service"))
    var service: String

    @Option(name: .customLong("keychain-account"), help: ArgumentHelp("The item's account attribute.", valueName: "account"))
    var account: String

    @Option(name: .customLong("label"), help: ArgumentHelp("The label keyring tools show.", valueName: "text"))
    var label: String?

    var displayLabel: String { label ?? "MigrationKit database key (\(service), \(account))" }

    /// Stores `key` in this item and reports it; the key itself only when `printKey`
    /// (inside the JSON document under --json, so the output stays one document).
    func store(_ key: DatabaseKey, in store: SecretServiceKeyStore, reporter: Reporter, saying what: String, printKey: Bool = false) throws {
        try store.store(service: service, account: account, label: displayLabel, key: key)
        reporter.line("\(what) for service \"\(service)\", account \"\(account)\".")
        let text = printKey ? key.withKeyText { String(decoding: $0, as: UTF8.self) } : nil
        if printKey, let text, !reporter.json { reporter.console.out(text) }
        try reporter.document(StoreKeyDocument(service: service, account: account, label: displayLabel, key: text))
    }

    func validate() throws {
        if service.isEmpty || account.isEmpty {
            throw ValidationError("--keychain-service and --keychain-account must not be empty.")
        }
    }
}

/// Refuses to replace an existing key: the database it opens would be lost with it.
private func refuseExistingItem(_ store: SecretServiceKeyStore, _ item: KeychainItemOptions, force: Bool) throws {
    guard !force else { return }
    do {
        _ = try store.lookup(service: item.service, account: item.account)
    } catch let error as KeyError where error.code == .itemNotFound {
        return
    }
    throw CLIError(.wouldReplaceStoredKey, "A key is already stored for service \"\(item.service)\", account \"\(item.account)\"; replacing it would lose access to the databases it opens. Pass --force to replace it anyway.")
}

struct GenerateKeyCommand: WorldCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Store 32 random bytes as a new raw key in the Secret Service (never printed unless --print).",
        discussion: "Then move a database to it: migrationkit rekey --db-path app.db <current key> --new-keychain-service S --new-keychain-account A")

    @OptionGroup var item: KeychainItemOptions
    @OptionGroup var output: OutputOptions

    @Flag(name: .customLong("print"), help: "Also print the key (as x'HEX', 64 hex digits) on standard output.")
    var print = false

    @Flag(name: .customLong("force"), help: "Replace a key already stored for this service and account.")
    var force = false

    func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        let store = world.keyReading.secretServiceStore
        try refuseExistingItem(store, item, force: force)
        let key = DatabaseKey.randomRawKey()
        if print { reporter.warning("--print shows the key: anyone who sees this output can open the database.") }
        try item.store(key, in: store, reporter: reporter, saying: "Stored a new random 256-bit key", printKey: print)
    }
}

struct StoreKeyCommand: WorldCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Store a key in the Secret Service, read from standard input (or a prompt, asked twice).")

    @OptionGroup var item: KeychainItemOptions
    @OptionGroup var output: OutputOptions

    @Flag(name: .customLong("force"), help: "Replace a key already stored for this service and account.")
    var force = false

    func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        let store = world.keyReading.secretServiceStore
        try refuseExistingItem(store, item, force: force)
        let source: KeySource = world.surroundings.standardInput.isTerminal ? .prompt(message: "Key to store: ", confirm: true) : .standardInput
        let key = try source.resolve(world.keyReading, warn: { reporter.warning($0.description) })
        try item.store(key, in: store, reporter: reporter, saying: "Stored the key")
    }
}

struct DeleteKeyCommand: WorldCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a key from the Secret Service. Databases it opens cannot be opened without another copy of it.")

    @OptionGroup var item: KeychainItemOptions
    @OptionGroup var output: OutputOptions

    func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        // Deleting what is not there is done, not an error: teardown scripts repeat it.
        let deleted = try world.keyReading.secretServiceStore.delete(service: item.service, account: item.account)
        reporter.line(deleted
            ? "Deleted the key for service \"\(item.service)\", account \"\(item.account)\"."
            : "No key was stored for service \"\(item.service)\", account \"\(item.account)\"; nothing to delete.")
        try reporter.document(DeleteKeyDocument(service: item.service, account: item.account, deleted: deleted))
    }
}

/// What `key generate --json` and `key store --json` print.
struct StoreKeyDocument: Encodable {
    let service: String
    let account: String
    let label: String
    /// The key's text, only for `key generate --print`; otherwise null.
    @AlwaysPresent var key: String?
}

/// What `key delete --json` prints.
struct DeleteKeyDocument: Encodable {
    let service: String
    let account: String
    /// False when no item was stored (which is not an error).
    let deleted: Bool
}

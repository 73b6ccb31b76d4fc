import Foundation
import MigrationKit
import MigrationKitKeys
import MigrationKitSecrets

/// Reading the key the options select, once, for the command's layer.
extension KeyOptions {
    /// The key these options select (nil for --plaintext), read from its source once.
    ///
    /// - Parameter path: the database the key is for: `{name}` in the key options stands
    ///   for its name, here and only here, for every command (nil: a key shared by a
    ///   fleet's databases, which has no `{name}`). In a fleet (`FleetShared`), a source
    ///   without `{name}` is read once for every database.
    package func resolve(for path: String?, promptMessage: String, keyIsNew: Bool, reporter: Reporter,
                         in world: CommandWorld) throws -> DatabaseKey? {
        // A layer on plain SQLite opens plaintext files only: no key is read (nor asked
        // for), and one given is refused rather than ignored.
        let layer = world.layer
        guard layer.library.encrypts else {
            if !given.isEmpty {
                throw CLIError(.notAvailableHere, "\(layer.commandName) opens its databases with a SQLite that cannot encrypt (\(layer.library.summary)), so it takes no key; drop the key options.")
            }
            return nil
        }
        // A key the fleet's databases share is read once, for all of them; one with
        // `{name}` is each database's own (asked before the name is put in).
        let isShared = !isTemplate
        let keyOptions = try path.map { try forDatabase(at: $0, in: world) } ?? self
        if let shared = world.fleet, isShared {
            return try shared.key(.current) {
                try keyOptions.resolveOnce(promptMessage: shared.promptMessage(.current), keyIsNew: keyIsNew, reporter: reporter, in: world)
            }
        }
        return try keyOptions.resolveOnce(promptMessage: promptMessage, keyIsNew: keyIsNew, reporter: reporter, in: world)
    }

    private func resolveOnce(promptMessage: String, keyIsNew: Bool, reporter: Reporter, in world: CommandWorld) throws -> DatabaseKey? {
        let source = try self.source(
            standardInputIsTerminal: world.surroundings.standardInput.isTerminal,
            environment: world.surroundings.environment,
            promptMessage: promptMessage,
            keyIsNew: keyIsNew)
        // Said where the variable would have been read (no key flag, which beats it), once.
        if KeySource.passwordEnvironmentVariableIsEmpty(in: world.surroundings.environment), !sourceIsAFlag(in: world), source != nil, world.emptyVariableWarning.claim() {
            reporter.warning("\(KeySource.passwordEnvironmentVariable) is set but empty, so it counts as not set; unset it, or set it to the key.")
        }
        guard let source else { return nil }
        if world.hardening == .beforeKeyIsRead { ProcessHardening.apply() }
        // Read for the layer's SQLCipher: a raw key it would take for a passphrase is
        // refused here, naming where it came from.
        let warn = { (warning: KeyWarning) in reporter.warning(warning.description) }
        guard let library = world.layer.library.cipherVersion.flatMap(SQLCipherVersion.init(parsing:)) else { return try source.resolve(world.keyReading, warn: warn) }
        return try source.resolve(for: library, world.keyReading, warn: warn)
    }

    /// Whether a flag chose the key source (which the environment never overrides).
    private func sourceIsAFlag(in world: CommandWorld) -> Bool {
        !flags.given.isEmpty
            || ProjectSetting.allCases.contains { $0.choosesTheKeySource && world.settings?.values[$0]?.origin == .flag }
    }

    /// `--password` put the key in the process list, whether or not this command then
    /// uses it (`new`, or `lint` without --db-path, ignore it): say so either way.
    package func warnIfOnCommandLine(reporter: Reporter, in world: CommandWorld) {
        // A fleet said it once, before its first database.
        guard world.fleet == nil else { return }
        for warning in given.warnings(DatabaseKeyRole.text) { reporter.warning(warning) }
    }
}

import ArgumentParser
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// The key to change to (`rekey`, `encrypt`'s target): the same key sources as
/// `KeyOptions`, each option named `--new-…`; exactly one, or a prompt asked twice on a
/// terminal. No environment fallback: a new key must be chosen on purpose, not picked
/// up from a variable left over from another command.
struct NewKeyOptions: ParsableArguments {
    @OptionGroup var flags: KeySourceOptions<NewKeyRole>

    /// The values once `{name}` was replaced; not options.
    private var substituted: KeySourceValues?

    init() {}

    func validate() throws {
        try flags.given.validate(NewKeyRole.text)
    }

    /// The key sources' values: the flags, or them with `{name}` replaced.
    var given: KeySourceValues { substituted ?? flags.given }

    /// Whether the new key source names each database's own new key through `{name}`
    /// (`--new-password-file keys/{name}.new`).
    var isTemplate: Bool { given.isTemplate }

    /// These options for the database at `path`: each name form replaced by its
    /// (`DatabaseNames`), as `KeyOptions.forDatabase(at:)` does for the current key.
    func forDatabase(at path: String, in world: CommandWorld) throws -> NewKeyOptions {
        let names = world.names(of: path)
        try names.requireForms(in: Array(given.byName.values), database: path, option: "The new key option")
        var options = self
        options.substituted = given.forDatabase(names: names.substitutions)
        return options
    }

    /// The new key for the database at `path` (nil: the key a fleet's databases share),
    /// read once: `{name}` stands for the database's name, and a key the databases share
    /// is read once for all of them (`FleetShared`). Warnings (the process-list warning, a
    /// key file readable by others) go to `reporter`.
    ///
    /// - Parameters:
    ///   - generating: `rekey --new-key generate`: a source that holds no key yet is
    ///     given a new random one first (`KeyRotation.generatedKey`), a file owned like
    ///     `ownedLike`, the old key's file.
    func resolve(for path: String?, generating: Bool = false, ownedLike: String? = nil, reporter: Reporter, in world: CommandWorld) throws -> DatabaseKey {
        let options = try path.map { try forDatabase(at: $0, in: world) } ?? self
        let generation = generating ? Generation(ownedLike: ownedLike) : nil
        guard let shared = world.fleet, !isTemplate else {
            return try options.resolve(prompt: "New key: ", generation: generation, reporter: reporter, reading: world.keyReading)
        }
        guard let key = try shared.key(.new, read: { try options.resolve(prompt: shared.promptMessage(.new), generation: generation, reporter: reporter, reading: world.keyReading) }) else {
            throw CLIError(.noKeyGiven, "No new key given; pass \(KeySources.advice(NewKeyRole.text)).")
        }
        return key
    }

    /// `rekey --new-key generate` for the database at `path`: its own new key, staged
    /// or still to stage (`KeyRotation.PendingKey`), or the key a fleet's databases
    /// share, already in place.
    ///
    /// - Parameter replacingCurrent: the new key's place is the current key's.
    /// - Parameter store: the store command for this database (`--new-key-store-command`).
    /// - Parameter current: the key the database is on and its place, which the store
    ///   command's write is checked against.
    func generatedKey(for path: String, store: KeyCommandLine? = nil, current: KeyRotation.CurrentKey? = nil, ownedLike: String?, replacingCurrent: Bool,
                      reporter: Reporter, in world: CommandWorld) throws -> KeyRotation.PendingKey {
        if world.fleet != nil, !isTemplate {
            return KeyRotation.PendingKey(key: try resolve(for: path, generating: true, ownedLike: ownedLike, reporter: reporter, in: world), stage: nil, staged: nil)
        }
        let given = try forDatabase(at: path, in: world).given
        for warning in given.warnings(NewKeyRole.text) { reporter.warning(warning) }
        guard let place = try given.source(in: world.surroundings.environment) else { throw Self.noPlaceToGenerate }
        return try KeyRotation.pendingKey(at: place, store: store, database: path, current: current, ownedLike: ownedLike, replacingCurrent: replacingCurrent,
                                          warn: { reporter.warning($0.description) }, in: world)
    }

    private static let noPlaceToGenerate = CLIError(.missingOption, "--new-key generate needs a place to write each new key: --new-password-file FILE, --new-keychain-service with --new-keychain-account, or --new-password-command with --new-key-store-command.")

    /// `--new-key generate`: the old key's file, whose owner a new key file takes.
    private struct Generation {
        let ownedLike: String?
    }

    private func resolve(prompt: String, generation: Generation?, reporter: Reporter, reading: KeyReading) throws -> DatabaseKey {
        let given = self.given
        for warning in given.warnings(NewKeyRole.text) { reporter.warning(warning) }
        if let generation {
            guard let place = try given.source(in: reading.environment) else { throw Self.noPlaceToGenerate }
            return try KeyRotation.generatedKey(at: place, ownedLike: generation.ownedLike, reading, warn: { reporter.warning($0.description) })
        }
        let source: KeySource
        if let explicit = try given.source(in: reading.environment) {
            source = explicit
        } else if reading.standardInput.isTerminal {
            source = .prompt(message: prompt, confirm: true)
        } else {
            throw CLIError(.noKeyGiven, "No new key given; pass \(KeySources.advice(NewKeyRole.text)).")
        }
        return try source.resolve(reading, warn: { reporter.warning($0.description) })
    }
}

import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// What `rekey --json` prints.
struct RekeyDocument: Encodable, Sendable {
    let database: String
    @AlwaysPresent var databaseName: String?
    /// The backup written first (still encrypted with the old key), or null.
    @AlwaysPresent var backup: String?
    /// False when the database already opened with the new key and not the current one:
    /// a rerun after a rekey that finished (or a fleet stopped part-way), which changes
    /// nothing twice.
    let changed: Bool
    /// "kept" or "deleted" (`--old-key`), or "replaced" (the new key's place was the
    /// current key's).
    let oldKey: String
}

struct RekeyCommand: UsesProjectConnectionAndBackup, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt a database with a new key, then prove the new key opens it.",
        discussion: """
            The key options give the current key; the --new-* options give the new one (or a prompt, asked twice). \
            With --new-key generate, a new random key is written to --new-password-file (0600) or the \
            --new-keychain-* item first, when it holds none yet, or handed to --new-key-store-command and read back \
            with --new-password-command before the database changes. A database that already opens with the new key and \
            not the current one is left as it is, so a rerun after a kill or Ctrl-C changes nothing twice.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup(title: "New key options") var newKey: NewKeyOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions

    @Option(name: .customLong("new-key"), help: ArgumentHelp("generate: write a new random key to the new key's file or item before the database changes (reused when it is already there).", valueName: "generate"))
    var newKeyMode: KeyRotation.NewKeyMode?

    @Option(name: .customLong("new-key-store-command"), help: ArgumentHelp("With --new-key generate and --new-password-command: a command that stores each new key, given on its standard input ({name} for each database), before the database changes; --new-password-command must then read the same key back.", valueName: "command"))
    var newKeyStoreCommand: String?

    @Option(name: .customLong("old-key"), help: ArgumentHelp("What becomes of the old key once the new one is proven on the database: keep (default) or delete its file or item.", valueName: "keep|delete"))
    var oldKey: KeyRotation.OldKeyRetirement = .keep

    var fleetVerb: String { "Rekeying" }

    private var generating: Bool { newKeyMode == .generate }

    func validate() throws {
        if connection.key.plaintext {
            throw ValidationError("The database is not encrypted, so it has no key to change; use `encrypt` to encrypt it.")
        }
        if oldKey == .delete, !backup.skip {
            throw ValidationError("--old-key delete removes the only key that opens the backup; give --no-backup with it, or keep the old key.")
        }
        if let newKeyStoreCommand {
            guard generating, newKey.given.byName[Self.readBack] != nil else {
                throw ValidationError("--new-key-store-command stores a generated key for --new-password-command to read back; give it with --new-key generate and --new-password-command.")
            }
            if case .failure(let error) = KeyCommandLine(newKeyStoreCommand).words() {
                throw ValidationError("--new-key-store-command: \(error.message)")
            }
        }
    }

    /// The new key option that reads back what `--new-key-store-command` stored.
    private static let readBack = "password-command"

    /// The store command for the database at `path`, its name forms replaced as a key
    /// command's are (each one quoted word).
    private func storeCommand(for path: String, in world: CommandWorld) throws -> KeyCommandLine? {
        guard let line = newKeyStoreCommand else { return nil }
        let names = world.names(of: path)
        try names.requireForms(in: [line], database: path, option: "--new-key-store-command")
        return KeyCommandLine(names.substitutions.reduce(line) { $0.replacingOccurrences(of: $1.key, with: KeyCommandLine.quoted($1.value)) })
    }

    /// Deleting a key the databases share would lock out the ones not rekeyed yet; a
    /// rotation in place over a fleet is refused once, not once per database.
    func validateFleet(in world: CommandWorld) throws {
        if !backup.skip, KeyRotation.samePlace(try? connection.key.given.source(in: world.surroundings.environment), try? newKey.given.source(in: world.surroundings.environment)) {
            throw Self.backupWithNoKey
        }
        if oldKey == .delete, !connection.key.isTemplate {
            throw CLIError(.conflictingOptions, "Over several databases, --old-key delete needs each database's own current key ({name} in --password-file or --keychain-account): a key they share is still the others' key.")
        }
        if let newKeyStoreCommand, !newKey.isTemplate || !KeySourceValues.namePlaceholders.contains(where: newKeyStoreCommand.contains) {
            throw CLIError(.conflictingOptions, "Over several databases, --new-key-store-command and --new-password-command need {name}: each database's new key is stored and read back as its own.")
        }
    }

    /// Each database's current key and new key are its own, never another's.
    var perDatabaseOptions: [FleetNaming.PerDatabase] {
        FleetNaming.PerDatabase.keySources(connection.key.given) + FleetNaming.PerDatabase.keySources(newKey.given, prefix: "new-")
            + (newKeyStoreCommand.map { [FleetNaming.PerDatabase(option: "--new-key-store-command", value: $0)] } ?? [])
    }

    var standardInputReaders: [String] {
        [connection.key.given.standardInputReader(DatabaseKeyRole.text), newKey.given.standardInputReader(NewKeyRole.text)].compactMap { $0 }
    }

    /// The current key and the new one, when the databases share them.
    func readSharedKeys(reporter: Reporter, in world: CommandWorld) throws {
        if !connection.key.isTemplate {
            _ = try connection.key.resolve(for: nil, promptMessage: "", keyIsNew: false, reporter: reporter, in: world)
        }
        if !newKey.isTemplate {
            let oldKeyFile = try connection.key.isTemplate ? nil : Self.file(of: connection.key.given.source(in: world.surroundings.environment))
            _ = try newKey.resolve(for: nil, generating: generating, ownedLike: oldKeyFile, reporter: reporter, in: world)
        }
    }

    /// Whether a key source reads hex digits (`--password-hex-file`).
    private static func readsHex(_ source: KeySource?) -> Bool {
        if case .hex? = source { return true }
        return false
    }

    /// The file a key source reads, if it reads one.
    private static func file(of source: KeySource?) -> String? {
        if case .file(let path)? = source { return path }
        return nil
    }

    func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> RekeyDocument {
        let path = try connection.requiredPath()
        let oldKeySource = try connection.key.forDatabase(at: path, in: world).given.source(in: world.surroundings.environment)
        let newKeySource = try newKey.forDatabase(at: path, in: world).given.source(in: world.surroundings.environment)
        // The new key's place is the current key's: it replaces the old key there.
        let inPlace = KeyRotation.samePlace(oldKeySource, newKeySource)
        if inPlace, Self.readsHex(oldKeySource) != Self.readsHex(newKeySource) {
            throw CLIError(.conflictingOptions, "The new key's file is the current key's, read as hex digits by one option and as a key's text by the other; name the file with the same kind of option for both.")
        }
        if inPlace, !generating {
            throw CLIError(.conflictingOptions, "The new key's place is the current key's; give --new-key generate to make a new key that replaces the old one there, or name another place for the new key.")
        }
        if inPlace, !backup.skip {
            throw Self.backupWithNoKey
        }
        if inPlace, case .command? = newKeySource {
            // A store command writes before the database changes: a rekey that then failed
            // would leave the database on a key no longer where it is read from.
            throw CLIError(.conflictingOptions, "--new-password-command reads the new key where --password-command reads the current one; store the new key under another name or version and read it from there.")
        }
        if oldKey == .delete, !inPlace, !KeyRotation.canDelete(oldKeySource) {
            throw CLIError(.conflictingOptions, "--old-key delete removes a key file (--password-file) or a Secret Service item (--keychain-service with --keychain-account); the current key comes from neither.")
        }
        let record = RotationRecord(database: path, oldPlace: oldKeySource, newPlace: newKeySource, in: world) { [connection] key in
            Self.opensOrUnknown(key, path, connection: connection, in: world)
        }
        world.journal.rotation = record
        let settings: ConnectionSettings
        let pending: KeyRotation.PendingKey
        var current: KeyRotation.CurrentKey?
        var backupPath: String?
        do {
            settings = try ConnectionSettings.resolving(connection, access: .change, reporter: reporter, in: world)
            try MigrationSession.holdChangeLock(on: path, timeout: settings.configuration.busyTimeout, in: world)
            // A backup needs a connection, and so does a prompt for the new key (asked
            // only once the current key is proven). Otherwise the rekey's own open proves
            // the current key: one key derivation of four fewer with passphrases.
            // Closed before the rekey: SQLite lets a WAL database leave WAL mode only from
            // its one connection.
            let proveFirst = !backup.skip || newKey.given.isEmpty
            var writer = proveFirst ? try world.host.openWriter(settings) : nil
            guard let currentKey = settings.key else { throw CLIError(.missingOption, "rekey needs the current key.") }
            current = KeyRotation.CurrentKey(currentKey, readFrom: oldKeySource)
            record.startedOn(currentKey)
            pending = generating
                ? try newKey.generatedKey(for: path, store: try storeCommand(for: path, in: world), current: current, ownedLike: Self.file(of: oldKeySource),
                                         replacingCurrent: inPlace, reporter: reporter, in: world)
                : KeyRotation.PendingKey(key: try newKey.resolve(for: path, reporter: reporter, in: world), stage: nil, staged: nil)
            record.rotating(to: pending.key, staged: pending.staged, kept: pending.kept)
            if pending.key.isSameKey(as: currentKey) {
                // In place, a run stopped after publishing its key and before giving up the
                // kept copy: the database is on the key in its place; only the copy is left.
                if inPlace, let staged = pending.staged {
                    try published(currentKey, at: newKeySource, staged: staged, on: path, ownedLike: Self.file(of: oldKeySource), inPlace: inPlace,
                                  publishes: false, reporter: reporter, in: world)
                        .finish(retiring: nil)
                    reporter.line("\(path) is on the key in its place already (a stopped run published it): nothing to change.")
                    return RekeyDocument(database: path, databaseName: world.databaseName, backup: nil, changed: false, oldKey: retirement(inPlace))
                }
                throw CLIError(.badOptionValue, "The new key is the same as the current one; nothing to change.")
            }
            do {
                try DatabaseEncryption.rekey(at: path, from: currentKey, to: pending.key, cipher: settings.configuration.cipher,
                                             lockTimeout: settings.configuration.busyTimeout, heldLock: world.locks.lock(on: path)) {
                    // The current key is proven here: a key just made is staged now, before
                    // the database changes, and never for a database it will not open.
                    try pending.stage?()
                    if !backup.skip, let writer { backupPath = try backup.create(of: writer, in: world) }
                    writer = nil
                }
            } catch {
                // Not rekeyed: a key staged for it is no one's, and a rerun makes another;
                // the current key kept is given up once its place is seen to hold it still.
                // Both only once the current key is seen to open the database: a current key
                // that does not is no proof of anything (a stopped run's kept copy may be the
                // only key that opens it).
                if settings.keyOpens(path, key: currentKey) {
                    pending.staged?.removeStaged()
                    if let kept = pending.kept, let current, KeyRotation.stillHolds(current, in: world) { kept.remove() }
                }
                throw error
            }
        } catch where Self.mayBeDone(error, in: world) {
            // A rerun: the rekey already happened (and the old key may be gone already).
            // Only the opening of the database fails so; a rekey that began never does.
            return try alreadyDone(path, oldKeySource: oldKeySource, newKeySource: newKeySource, inPlace: inPlace, failure: error, reporter: reporter, in: world)
        }
        let newKeyAtPlace = published(pending.key, at: newKeySource, staged: pending.staged, on: path, ownedLike: Self.file(of: oldKeySource), inPlace: inPlace,
                                      publishes: pending.staged?.storesBeforeRekey == false, reporter: reporter, in: world)
        try newKeyAtPlace.prove()
        try newKeyAtPlace.finish(retiring: retiring(oldKeySource, inPlace))
        // The database is on a key its store gave back: the old one kept is no one's.
        pending.kept?.remove()
        let retired = inPlace ? ", and it replaced the old key in its place." : oldKey == .delete ? ", and the old key is deleted." : "."
        reporter.line("Rekeyed \(path): the new key opens it from where it is stored, the old one no longer does" + retired)
        if let backupPath {
            reporter.line("Backup (still encrypted with the OLD key): \(backupPath) — delete it if the old key must stop working everywhere.")
        }
        return RekeyDocument(database: path, databaseName: world.databaseName, backup: backupPath, changed: true, oldKey: retirement(inPlace))
    }

    /// A rotation in place with a backup: once the new key replaced the old one, no key
    /// would open the backup. Refused for a fleet at once, and for one database.
    private static let backupWithNoKey = CLIError(.conflictingOptions, "The new key replaces the old one in its place, which would leave each backup (still encrypted with the old key) with no key that opens it; give --no-backup, or another place for the new key.")

    /// Whether `key` opens the database at `path` with the cipher options given: nil when
    /// that cannot be told (it is locked, or cannot be read), for a stopped rotation's
    /// state.
    private static func opensOrUnknown(_ key: DatabaseKey, _ path: String, connection: ConnectionOptions, in world: CommandWorld) -> Bool? {
        var configuration = SQLCipherConfiguration(forOpening: path, cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .change, in: world)
        configuration.readOnly = true
        configuration.createIfMissing = false
        do {
            _ = try SQLCipherWriter(path: path, key: key, configuration: configuration)
            return true
        } catch DatabaseErrorKind.wrongKey {
            return false
        } catch {
            return nil
        }
    }

    /// Whether `key` opens the database at `path` with the cipher options given.
    private func keyOpens(_ key: DatabaseKey, _ path: String, in world: CommandWorld) -> Bool {
        let configuration = SQLCipherConfiguration(forOpening: path, cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .change, in: world)
        return ConnectionSettings(path: path, key: key, configuration: configuration).keyOpens(path, key: key)
    }

    /// What became of the old key, for the document: "replaced", "deleted" or "kept".
    private func retirement(_ inPlace: Bool) -> String {
        inPlace ? "replaced" : oldKey == .delete ? "deleted" : "kept"
    }

    /// The old key to delete once the new one is proven: its place with `--old-key
    /// delete`, unless the new key replaced it there.
    private func retiring(_ oldKeySource: KeySource?, _ inPlace: Bool) -> KeySource? {
        oldKey == .delete && !inPlace ? oldKeySource : nil
    }

    /// `key`, the database's new key, at `place`: published (`publishes`, from `staged`),
    /// proven, and read back from there at the end (`PublishedKey`).
    private func published(_ key: DatabaseKey, at place: KeySource?, staged: KeyStage?, on path: String, ownedLike: String?, inPlace: Bool,
                           publishes: Bool, reporter: Reporter, in world: CommandWorld) -> PublishedKey {
        PublishedKey(key: key, place: place.flatMap { KeyStage.isPlace($0) ? $0 : nil }, staged: staged, database: path,
                     ownedLike: ownedLike, inPlace: inPlace, publishes: publishes, opens: { keyOpens($0, path, in: world) },
                     putBack: { try putBack(path, from: key, reporter: reporter, in: world) }, world: world)
    }

    /// Rekeys the database at `path` from `newKey` back to its old key, read again from
    /// where the current key is read, then reads that key once more and proves it opens
    /// the database: the old key is taken from its place, never from memory, so the
    /// database is never put on a key its place no longer gives.
    private func putBack(_ path: String, from newKey: DatabaseKey, reporter: Reporter, in world: CommandWorld) throws {
        let configuration = SQLCipherConfiguration(forOpening: path, cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .change, in: world)
        try DatabaseEncryption.rekey(at: path, from: newKey, to: try currentKeyReadAgain(path, reporter: reporter, in: world),
                                     cipher: configuration.cipher, lockTimeout: configuration.busyTimeout, heldLock: world.locks.lock(on: path),
                                     beforeWriting: {})
        guard keyOpens(try currentKeyReadAgain(path, reporter: reporter, in: world), path, in: world) else {
            throw CLIError(.newKeyNotStored, "the current key, read once more, does not open it")
        }
        // On the old key, as its place gives it: a copy kept of it is no one's.
        KeptCurrentKey(database: path).remove()
    }

    /// The current key for the database at `path`, read from its source as the command
    /// first read it.
    private func currentKeyReadAgain(_ path: String, reporter: Reporter, in world: CommandWorld) throws -> DatabaseKey {
        guard let key = try connection.key.resolve(for: path, promptMessage: "Current key: ", keyIsNew: false, reporter: reporter, in: world) else {
            throw CLIError(.noKeyGiven, "no current key was given")
        }
        return key
    }

    /// A database the current key does not open (or whose current key is gone) but the
    /// new key does, from its place or where a killed run staged it, with the new key
    /// published and proven and the old key retired as asked; otherwise `failure`.
    private func alreadyDone(_ path: String, oldKeySource: KeySource?, newKeySource: KeySource?, inPlace: Bool, failure: any Error, reporter: Reporter,
                             in world: CommandWorld) throws -> RekeyDocument {
        // Under the change lock, as any rekey: it publishes and retires keys, and its note
        // replaces the one a killed run left.
        let configuration = SQLCipherConfiguration(forOpening: path, cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .change, in: world)
        try MigrationSession.holdChangeLock(on: path, timeout: configuration.busyTimeout, in: world)
        let store = try storeCommand(for: path, in: world)
        let stage = generating ? newKeySource.flatMap { KeyStage(publishingTo: $0, database: path, store: store, reading: world.keyReading) } : nil
        let ownedLike = Self.file(of: oldKeySource)
        let newKeyAtPlace: PublishedKey
        // A key command that fails may stand for a store that holds the very key the
        // database is on: with no copy kept either, its failure is the database's, never
        // "wrong key".
        var storeFailure: (any Error)?
        let atPlace = try Self.keyIfAnswered(failure) {
            do {
                return try newKey.resolve(for: path, reporter: reporter, in: world)
            } catch where store != nil {
                storeFailure = error
                return nil
            }
        }
        // Never generated here: a key made now cannot be the one the database is on.
        if let key = atPlace, keyOpens(key, path, in: world) {
            // A copy kept of this key is given up at the end; any other is no one's.
            let kept = try stage.flatMap { stage in try Self.keyIfAnswered(failure, { try stage.stagedKey(warn: { _ in }) }) }
            if let stage, let kept, !kept.isSameKey(as: key) { stage.removeStaged() }
            var keptStage = kept?.isSameKey(as: key) == true ? stage : nil
            if keptStage == nil, let stage, stage.storesBeforeRekey {
                // A store's key is kept beside the database again until the end: only there
                // is it anywhere if the store loses it before the last look.
                try stage.write(key, ownedLike: ownedLike)
                keptStage = stage
            }
            newKeyAtPlace = published(key, at: newKeySource, staged: keptStage, on: path, ownedLike: ownedLike, inPlace: inPlace,
                                      publishes: false, reporter: reporter, in: world)
            world.rotationRecord?.rotating(to: key, staged: keptStage, kept: nil)
        } else if let stage, let staged = try Self.keyIfAnswered(failure, { try stage.stagedKey(warn: { _ in }) }), keyOpens(staged, path, in: world) {
            // Killed between its rekey's commit and the key's publication (or, for a
            // store, its proof there): published again from the staged copy.
            newKeyAtPlace = published(staged, at: newKeySource, staged: stage, on: path, ownedLike: ownedLike, inPlace: inPlace,
                                      publishes: true, reporter: reporter, in: world)
            world.rotationRecord?.rotating(to: staged, staged: stage, kept: nil)
            try newKeyAtPlace.prove()
            reporter.line("\(path) was already on its new key, kept where a stopped run left it: published it to \(newKeySource.map(KeyStage.describe) ?? "its place").")
        } else if let store, let kept = Self.keptCurrentKey(opening: path, in: world, keyOpens: { keyOpens($0, path, in: world) }) {
            try Self.resume(onKept: kept, from: oldKeySource, storedWith: store, newKeys: [atPlace, try? stage?.stagedKey(warn: { _ in })], on: path, in: world)
        } else {
            throw storeFailure ?? failure
        }
        try newKeyAtPlace.finish(retiring: retiring(oldKeySource, inPlace))
        KeptCurrentKey(database: path).remove()
        reporter.line("\(path) already opens with the new key, not the current one: nothing to change.")
        return RekeyDocument(database: path, databaseName: world.databaseName, backup: nil, changed: false, oldKey: retirement(inPlace))
    }

    /// The current key a stopped rotation through a store kept beside the database at
    /// `path`, when it opens the database; nil otherwise.
    private static func keptCurrentKey(opening path: String, in world: CommandWorld, keyOpens: (DatabaseKey) -> Bool) -> (KeptCurrentKey, DatabaseKey)? {
        let kept = KeptCurrentKey(database: path)
        guard let key = try? kept.key(world.keyReading), keyOpens(key) else { return nil }
        return (kept, key)
    }

    /// A database a stopped rotation left on its old key, which is kept beside it, while
    /// the current key's place gives another key. When that key is the new key the stopped
    /// run stored (`newKeys`: as the new key's command or its staged copy give it), the
    /// two key commands name one entry: the old key is stored back and the rotation
    /// refused, as the run that was stopped would have done (`KeyRotation.storeBack`).
    /// Otherwise the place lost the key some other way: nothing is written, and the
    /// database fails, naming the copy.
    private static func resume(onKept kept: (file: KeptCurrentKey, key: DatabaseKey), from oldKeySource: KeySource?, storedWith store: KeyCommandLine,
                               newKeys: [DatabaseKey?], on path: String, in world: CommandWorld) throws -> Never {
        let current = KeyRotation.CurrentKey(kept.key, readFrom: oldKeySource)
        let again = current.place.flatMap { try? KeyStage.read($0, world.keyReading, warn: { _ in }) }
        if let again, newKeys.contains(where: { $0?.isSameKey(as: again) == true }) {
            KeyStage(publishingTo: .command(store.line), database: path, store: store, reading: world.keyReading)?.removeStaged()
            try KeyRotation.storeBack(current, kept: kept.file, with: store, database: path, in: world)
        }
        let place = current.place.map(KeyStage.describe) ?? "the current key's source"
        throw CLIError(.newKeyNotStored, "\(path) is on its old key, which is kept in \(kept.file.path), but \(place) no longer gives it; put the key kept there back where the current key is read, then run the rotation again.")
    }

    /// The key `read` gives, or nil when it gives none or fails: a new key that cannot be
    /// read is none this run can use, and `failure` stands. But a Secret Service that did
    /// not answer may hold the very key the database is on, so that is the failure
    /// (`failure` itself, when it was the Secret Service not answering first), never
    /// "no new key here".
    private static func keyIfAnswered(_ failure: any Error, _ read: () throws -> DatabaseKey?) throws -> DatabaseKey? {
        do {
            return try read()
        } catch let error as KeyError where error.code == .secretServiceNotAnswering {
            throw (failure as? KeyError)?.code == .secretServiceNotAnswering ? failure : error
        } catch {
            return nil
        }
    }

    /// A wrong current key, or none (its file deleted by an earlier `--old-key delete`);
    /// never a new key found missing from its place, which is this run's own finding.
    private static func mayBeDone(_ error: any Error, in world: CommandWorld) -> Bool {
        if let error = error as? CLIError, error.reason == .newKeyNotStored { return false }
        guard let code = ErrorPresentation(error, in: world)?.exitCode else { return false }
        return code == .wrongKeyOrNotADatabase || code == .keyUnavailable
    }

    func fleetResult(_ report: RekeyDocument) -> String {
        (report.changed ? "rekeyed" + (report.backup.map { "; backup (old key): \($0)" } ?? "") : "already on the new key")
            + (report.oldKey == "kept" ? "" : "; old key \(report.oldKey)")
    }
}

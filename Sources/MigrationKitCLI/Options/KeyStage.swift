import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeys

/// Where a generated key waits between being made and being published to its place:
/// beside it, under a name no app and no later rotation reads — a hidden file
/// `.NAME.migrationkit-new-key` in the key file's folder (mode 0600, owned like the old
/// key), or a Secret Service item of the same service whose account ends in
/// `.migrationkit-new-key`. A key command's store has no "beside" a program can write
/// to: its key waits beside the database instead, in `.DATABASE.migrationkit-new-key`
/// (mode 0600), and is published by the rotation's store command.
///
/// A key is staged before its database changes, so a kill after the rekey commits
/// never loses it: the next run finds the database on the staged key and publishes it.
/// It is published to its place only once the rekey committed, so an app (or next
/// month's rotation) never takes a key for the live one before the database is on it;
/// and the staged copy stays until the published one is read back from its place at the
/// end of the rotation (`PublishedKey`).
struct KeyStage {
    /// The key's own place: a key file or a Secret Service item.
    let place: KeySource
    /// Where it waits.
    let staging: KeySource
    /// The key file `place` names, links followed, beside which the staged file is: what
    /// `release` renames it onto. Nil for an item or a store.
    private let placeFile: String?
    /// The command that writes a key to its place when the place is a key command's
    /// store (`--new-key-store-command`); nil otherwise.
    private let store: KeyCommandLine?
    /// How the running command reads and stores keys (its key commands, its Secret
    /// Service batch).
    private let reading: KeyReading

    /// The stage of a key whose place is `place`; nil for a place a key cannot be
    /// written to (an environment variable, a prompt).
    ///
    /// - Parameters:
    ///   - database: the database the key is for, beside which a key command's key
    ///     waits.
    ///   - store: the command that stores a key where the key command `place` reads it.
    ///     A key command's place without both has no stage.
    ///   - reading: how the running command reads and stores keys.
    init?(publishingTo place: KeySource, database: String? = nil, store: KeyCommandLine? = nil, reading: KeyReading) {
        switch place {
        case .file(let path):
            let file = DurableFile.resolvingSymlinks(path)
            staging = .file(path: DurableFile.siblingPath(of: file, purpose: "new-key"))
            placeFile = file
            self.store = nil
        case .secretService(let service, let account):
            staging = .secretService(service: service, account: account + ".migrationkit-new-key")
            placeFile = nil
            self.store = nil
        case .command:
            guard let database, let store else { return nil }
            staging = .file(path: DurableFile.siblingPath(of: DurableFile.resolvingSymlinks(database), purpose: "new-key"))
            placeFile = nil
            self.store = store
        default:
            return nil
        }
        self.place = place
        self.reading = reading
    }

    /// Whether the key is handed to its place before the database changes, and the
    /// staged copy only keeps it until the end: a key command's store, which a rotation
    /// proves by reading the key back before the rekey (`KeyRotation.store`).
    var storesBeforeRekey: Bool { store != nil }

    /// The key at its place, or nil when none is there.
    func keyAtPlace(warn: (KeyWarning) -> Void) throws -> DatabaseKey? {
        try Self.read(place, reading, warn: warn)
    }

    /// The key a run staged, or nil when none is.
    func stagedKey(warn: (KeyWarning) -> Void) throws -> DatabaseKey? {
        try Self.read(staging, reading, warn: warn)
    }

    /// Stages `key`, replacing whatever a run that never rekeyed left there.
    func write(_ key: DatabaseKey, ownedLike: String?) throws {
        try Self.write(key, to: staging, ownedLike: ownedLike, reading)
    }

    /// Puts `key` at its place, replacing what is there (the old key, when the rotation
    /// is in place): once the database is on it. A key command's store gets it through
    /// its store command.
    func publish(_ key: DatabaseKey, ownedLike: String?) throws {
        if let store { return try store.store(key, reading) }
        try Self.write(key, to: place, ownedLike: ownedLike, reading)
    }

    /// Gives up the staged copy once its key was read back from its place and opened the
    /// database, at the end of the rotation. A staged file is renamed onto its place (it
    /// holds the same key), so at no instant is the key under neither name, whatever
    /// removes the place meanwhile. An item is deleted, the Secret Service having no
    /// rename: then the key must be looked for at its place once more. A key command's
    /// staged copy is removed: the look just before read the key back from the store
    /// itself, and no step of this run touches the store after it.
    ///
    /// - Returns: whether the key is at its place by this step itself (a file), or was
    ///   read there by the look before it (a store).
    func release() throws -> Bool {
        if storesBeforeRekey {
            removeStaged()
            return true
        }
        guard case .file(let path) = staging, let placeFile else {
            removeStaged()
            return false
        }
        try DurableFile.replace(placeFile, with: path, keeping: [])
        return true
    }

    /// Removes the staged copy: a key its database was never rekeyed to, or one a stopped
    /// run left of the key the database is on in its place. Nothing depends on it being
    /// gone: an item the Secret Service did not delete (it did not answer) is the key a
    /// later run finds staged and reuses or removes, and `release` is followed by a look
    /// at the key's place, which says the Secret Service did not answer.
    func removeStaged() {
        switch staging {
        case .file(let path):
            FileRemoval.remove(path)
        case .secretService(let service, let account):
            _ = try? reading.secretServiceStore.delete(service: service, account: account)
        default:
            break
        }
    }

    /// "keys/acme.key", "the Secret Service item for service S, account A".
    static func describe(_ source: KeySource) -> String {
        switch source {
        case .file(let path): return path
        case .secretService(let service, let account): return "the Secret Service item for service \"\(service)\", account \"\(account)\""
        case .hex(let place): return describe(place)
        case .command(let line): return "the store the key command \(KeyCommandLine(line)) reads"
        default: return "the new key's source"
        }
    }

    /// Whether a key can be read back from `source` (`read`): a key file, a hex key file,
    /// a Secret Service item, which `write` writes to, or a key command's store, which
    /// the rotation's store command writes to (`KeyRotation.store`).
    static func isPlace(_ source: KeySource) -> Bool {
        switch source {
        case .file, .secretService, .hex(.file), .command: return true
        default: return false
        }
    }

    /// The key at `source` (a place, `isPlace`); nil when none is there. An item that
    /// could not be read (a locked keyring) is an error, not an absence: it may hold a key
    /// a killed run rekeyed to. A key command never says "none": one that fails is an error.
    /// Read as `reading` says.
    static func read(_ source: KeySource, _ reading: KeyReading, warn: (KeyWarning) -> Void) throws -> DatabaseKey? {
        switch source {
        case .command:
            return try source.resolve(reading, warn: warn)
        case .file(let path), .hex(.file(let path)):
            guard FileProbe(path: path).kind != .missing else { return nil }
            return try source.resolve(reading, warn: warn)
        case .secretService(let service, let account):
            do {
                return try reading.secretServiceStore.lookup(service: service, account: account, warn: warn)
            } catch let error as KeyError where error.code == .itemNotFound {
                return nil
            }
        default:
            return nil
        }
    }

    /// Writes `key` to `source` (a place, `isPlace`), durably, a file mode 0600 and owned
    /// like `ownedLike`, replacing what is there; an item stored as `reading` says.
    static func write(_ key: DatabaseKey, to source: KeySource, ownedLike: String?, _ reading: KeyReading) throws {
        switch source {
        case .file(let path):
            try key.withKeyText { text in try DurableFile.writePrivate(Array(text) + [0x0A], to: path, replacing: true, ownedLike: ownedLike) }
        case .hex(.file(let path)):
            // Two digits a byte, as a hex key file is read (`KeyText.Form.hex`).
            let digits = Array("0123456789abcdef".utf8)
            try key.withKeyText { text in
                try DurableFile.writePrivate(text.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] } + [0x0A],
                                             to: path, replacing: true, ownedLike: ownedLike)
            }
        case .secretService(let service, let account):
            try reading.secretServiceStore.store(service: service, account: account, label: "MigrationKit key (\(account))", key: key)
        default:
            break
        }
    }
}

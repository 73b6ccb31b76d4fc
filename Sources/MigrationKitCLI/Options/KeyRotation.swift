import ArgumentParser
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeys

/// `rekey --new-key generate` and `--old-key keep|delete`: key rotation, for one
/// database or a fleet, safe under kills, reruns and whatever else touches the key
/// folder.
///
/// A generated key waits under a name no app or later rotation reads (`KeyStage`) until
/// its database's rekey has committed; only then is it published to its place (a
/// `--new-password-file`, or a Secret Service item), read back from there, and proven to
/// open the database. Only then is the old key retired (kept, or deleted); last, the key
/// is read from its place once more and opens the database before the staged copy is
/// given up (`PublishedKey`). So a key is never published for a database it does not
/// open, a key that went missing from its place is noticed (and written back) before the
/// database is reported done, and a rerun after a kill finds the staged key and
/// finishes. When the new key's place is the current key's own (`--password-file
/// keys/{name}.key --new-password-file keys/{name}.key`), the new key replaces the old
/// one there: the app reads one file.
enum KeyRotation {
    /// `--new-key`: where the new key comes from besides the new-key options.
    enum NewKeyMode: String, ExpressibleByArgument, CaseIterable {
        /// 32 random bytes, a raw key, staged, then published to the new key's place.
        case generate
    }

    /// `--old-key`: what becomes of the old key once the new one is proven.
    enum OldKeyRetirement: String, ExpressibleByArgument, CaseIterable {
        /// Left where it is (the backup, still on the old key, needs it).
        case keep
        /// Its file removed, or its Secret Service item deleted.
        case delete
    }

    /// A new key and, when it is generated, where it waits and what puts it there.
    struct PendingKey {
        let key: DatabaseKey
        /// Writes the key to its stage: run once the current key is proven and before the
        /// database changes, so a wrong current key leaves nothing behind. Nil when the key
        /// was staged already (a rerun after a kill) or is not generated.
        let stage: (() throws -> Void)?
        /// Where a generated key waits until its publication; nil for a key read from its
        /// place.
        let staged: KeyStage?
        /// Where the current key is kept while a store command may have written over it;
        /// nil when the new key is not stored before the rekey.
        var kept: KeptCurrentKey? = nil
    }

    /// The key the database is on as the rotation begins, and where it is read from: what
    /// a store command's write is checked against.
    struct CurrentKey {
        let key: DatabaseKey
        /// Its place, when a write can change what is read there (a key file, a hex key
        /// file, an item, a key command's store); nil for a key typed at a prompt, given as
        /// an option or in a variable, which no store command writes over.
        let place: KeySource?

        init(_ key: DatabaseKey, readFrom source: KeySource?) {
            self.key = key
            place = source.flatMap { KeyStage.isPlace($0) ? $0 : nil }
        }
    }

    /// The new key for `source`: a generated one (a new random raw key, or the one a
    /// killed run staged), or the key already at `source` when the rotation is not in
    /// place and one is there (a key the user put there).
    ///
    /// - Parameters:
    ///   - ownedLike: the old key's file, whose owner and group a new key file takes:
    ///     run as root, the app that read the old key still reads the new one.
    ///   - replacingCurrent: `source` is where the current key is: never read as the new
    ///     key, always replaced by it.
    ///   - store: the command that stores a new key read back with the key command
    ///     `source` (`--new-key-store-command`), for the database at `database`.
    ///   - current: the key the database is on and its place, which the store command's
    ///     write must leave as it was (`proveTwoEntries`).
    static func pendingKey(at source: KeySource, store: KeyCommandLine? = nil, database: String = "", current: CurrentKey? = nil, ownedLike: String?,
                           replacingCurrent: Bool, warn: (KeyWarning) -> Void, in world: CommandWorld) throws -> PendingKey {
        if case .command = source {
            guard let store, let stage = KeyStage(publishingTo: source, database: database, store: store, reading: world.keyReading) else { throw noStoreCommand }
            // Never reused from the store or the stage: a key command cannot tell "no key
            // there yet" from a failure, and a key a run staged or stored without rekeying
            // (the current key opens the database) is no one's. Staged first, so that a
            // database rekeyed to it has it somewhere whatever the store does; the current
            // key kept before that, so that the database's own key is somewhere whatever
            // the store command writes over.
            let key = DatabaseKey.randomRawKey()
            let kept = current?.place == nil ? nil : KeptCurrentKey(database: database)
            return PendingKey(key: key, stage: {
                if let current, let kept { try kept.keep(current.key, ownedLike: ownedLike, world.keyReading) }
                try stage.write(key, ownedLike: ownedLike)
                try Self.store(key, with: store, readBackFrom: source, database: database, in: world) {
                    // What the store wrote over before it failed is known only by reading
                    // the current key's place again.
                    if let current, let kept, Self.stillHolds(current, in: world) { kept.remove() }
                    return kept.flatMap { $0.exists ? $0 : nil }
                }
                if let current, let kept {
                    try Self.proveTwoEntries(current, new: key, kept: kept, stage: stage, store: store, database: database, in: world)
                }
            }, staged: stage, kept: kept)
        }
        guard let stage = KeyStage(publishingTo: source, reading: world.keyReading) else {
            throw Self.noPlaceToWrite
        }
        // A key file is published by a rename, which a file with other names would survive
        // under them, on the old key: refused before the database changes, not after.
        if case .file(let path) = source.withoutHex { try DurableFile.requireSingleName(DurableFile.resolvingSymlinks(path), leaving: "on the old key") }
        if !replacingCurrent, let existing = try stage.keyAtPlace(warn: warn) {
            return PendingKey(key: existing, stage: nil, staged: nil)
        }
        if let staged = try stage.stagedKey(warn: warn) {
            return PendingKey(key: staged, stage: nil, staged: stage)
        }
        let key = DatabaseKey.randomRawKey()
        return PendingKey(key: key, stage: { try stage.write(key, ownedLike: ownedLike) }, staged: stage)
    }

    /// The new key at `source`, written there first when it was just made: for a key a
    /// fleet's databases share, in place before the first of them changes. Read and
    /// written as `reading` says.
    static func generatedKey(at source: KeySource, ownedLike: String?, _ reading: KeyReading, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        guard let stage = KeyStage(publishingTo: source, reading: reading) else {
            throw Self.noPlaceToWrite
        }
        if let existing = try stage.keyAtPlace(warn: warn) { return existing }
        let key = DatabaseKey.randomRawKey()
        try stage.publish(key, ownedLike: ownedLike)
        return key
    }

    /// "--new-key generate writes each new key to …", when the new key options name no
    /// place it can write to.
    static let noPlaceToWrite = CLIError(.missingOption, "--new-key generate writes each new key to a file (--new-password-file), a Secret Service item (--new-keychain-service with --new-keychain-account) or a store command (--new-key-store-command, read back with --new-password-command); give one of them for it to write to.")

    static let noStoreCommand = CLIError(.missingOption, "--new-key generate with --new-password-command needs --new-key-store-command: the command that stores each new key, which --new-password-command then reads back.")

    /// Hands a generated key to its store command, then reads it back with the key command
    /// `place`: run before the database changes, so a store that fails, is killed or
    /// keeps another key leaves the database on its old key, which still opens it. A key
    /// command's store is written before the rekey, not after it as a file or an item is
    /// (`KeyStage.publish`), because it is proven only by reading it back; the key is read
    /// back again after the rekey, and a store that lost it then has the database put back
    /// on its old key (`PublishedKey`).
    ///
    /// - Parameter world: the world of the command, which words the failures.
    ///
    /// - Parameter settle: run when the store fails, before the sentence is said: where the
    ///   current key is kept still (the store may have written over the entry it is read
    ///   from), or nil.
    static func store(_ key: DatabaseKey, with store: KeyCommandLine, readBackFrom place: KeySource, database: String, in world: CommandWorld,
                      settle: () -> KeptCurrentKey? = { nil }) throws {
        var unchanged: String {
            let kept = settle()
            return "\(database) was not rekeyed and is still on its old key"
                + (kept.map { ", which is also kept in \($0.path) (the entry it is read from may have been written over)" } ?? ", which still opens it")
        }
        do {
            try store.store(key, world.keyReading)
        } catch {
            throw CLIError(.newKeyNotStored, "\(unchanged): storing the new key with \(store) failed (\(PublishedKey.cause(error, in: world))).")
        }
        let live: DatabaseKey
        do {
            live = try place.resolve(world.keyReading, warn: { _ in })
        } catch {
            throw CLIError(.newKeyNotStored, "\(unchanged): the new key could not be read back from \(KeyStage.describe(place)) (\(PublishedKey.cause(error, in: world))).")
        }
        guard live.isSameKey(as: key) else {
            throw CLIError(.newKeyNotStored, "\(unchanged): \(KeyStage.describe(place)) gave back another key than the one stored with \(store); check that the two commands name the same entry, then run the command again.")
        }
        world.rotationRecord?.newKeyWasReadBack()
    }

    /// After the store command wrote the new key (and it was read back), reads the
    /// current key's place once more: still the current key, the two are two entries and
    /// the copy kept is given up; the new key, they are one entry spelled two ways, which
    /// the store command just wrote over: the current key is stored back with the same
    /// command, proven there, and the rotation refused, nothing changed. A read that
    /// fails or gives a third key tells neither: the copy stays kept until the database
    /// is proven on a key its store gives back.
    /// Whether the current key's place, read again, still gives the current key.
    static func stillHolds(_ current: CurrentKey, in world: CommandWorld) -> Bool {
        guard let place = current.place else { return true }
        return (try? KeyStage.read(place, world.keyReading, warn: { _ in }))??.isSameKey(as: current.key) == true
    }

    static func proveTwoEntries(_ current: CurrentKey, new key: DatabaseKey, kept: KeptCurrentKey, stage: KeyStage, store: KeyCommandLine, database: String,
                                in world: CommandWorld) throws {
        guard let place = current.place else { return }
        guard let again = try? KeyStage.read(place, world.keyReading, warn: { _ in }) else { return }
        if again.isSameKey(as: current.key) {
            kept.remove()
            return
        }
        guard again.isSameKey(as: key) else { return }
        stage.removeStaged()
        try storeBack(current, kept: kept, with: store, database: database, in: world)
    }

    /// Stores the current key back with the store command, where it wrote the new key over
    /// it (the current key's place is the new key's entry), proves it is read there again,
    /// gives up the kept copy and refuses the rotation: the database was never rekeyed.
    static func storeBack(_ current: CurrentKey, kept: KeptCurrentKey, with store: KeyCommandLine, database: String, in world: CommandWorld) throws -> Never {
        let place = current.place.map(KeyStage.describe) ?? "the current key's place"
        let oneEntry = "the new key came back from \(place), where the current key is read: the two key commands name one entry"
        do {
            try store.store(current.key, world.keyReading)
            let again = try current.place.flatMap { try KeyStage.read($0, world.keyReading, warn: { _ in }) }
            guard again?.isSameKey(as: current.key) == true else {
                throw CLIError(.newKeyNotStored, "it holds another key after the store")
            }
        } catch {
            throw CLIError(.newKeyNotStored, "\(database) was not rekeyed and is on its old key, kept in \(kept.path), but \(oneEntry) and storing the old key back there failed (\(PublishedKey.reason(error, in: world))); put the key kept there back where --password-command reads it, then store the new key under another name or version.")
        }
        kept.remove()
        throw CLIError(.conflictingOptions, "\(database) was not rekeyed: \(oneEntry), so the old key was stored back there. Store the new key under another name or version (--new-key-store-command and --new-password-command) and run the rotation again.")
    }

    /// Whether two sources are one place: the same file (links followed, hard links
    /// too, a key file and a hex key file alike), or the same Secret Service item.
    static func samePlace(_ one: KeySource?, _ other: KeySource?) -> Bool {
        switch (one, other) {
        case (.file(let left)?, .file(let right)?):
            return DurableFile.resolvingSymlinks(left) == DurableFile.resolvingSymlinks(right) || DurableFile.sameFile(left, right)
        case (.secretService(let service, let account)?, .secretService(let otherService, let otherAccount)?):
            return service == otherService && account == otherAccount
        case (.hex(let left)?, _):
            return samePlace(left, other)
        case (_, .hex(let right)?):
            return samePlace(one, right)
        case (.command(let left)?, .command(let right)?):
            return left == right
        default:
            return false
        }
    }

    /// Removes the old key at `source` once the new one is proven: its file, or its
    /// Secret Service item (deleted as `reading` says). Nothing to remove is not an error
    /// (a rerun).
    static func delete(_ source: KeySource, _ reading: KeyReading) throws {
        switch source {
        case .file(let path):
            guard FileProbe(path: path).kind != .missing else { return }
            guard FileRemoval.remove(path) else {
                throw CLIError(.fileOperationFailed, "The old key file \(path) could not be removed; the database is on the new key already. Remove the file yourself.")
            }
        case .secretService(let service, let account):
            _ = try reading.secretServiceStore.delete(service: service, account: account)
        case .hex(let place):
            // A hex key file is a key file: removed the same way.
            try delete(place, reading)
        default:
            throw CLIError(.conflictingOptions, "--old-key delete removes a key file (--password-file or --password-hex-file) or a Secret Service item (--keychain-service with --keychain-account); the current key comes from neither.")
        }
    }

    /// Whether `source` is a place `delete` can remove a key from.
    static func canDelete(_ source: KeySource?) -> Bool {
        switch source {
        case .file?, .secretService?: return true
        case .hex(let place)?: return canDelete(place)
        default: return false
        }
    }

}

extension KeySource {
    /// The source a hex key file wraps, or this one.
    var withoutHex: KeySource {
        if case .hex(let place) = self { return place }
        return self
    }
}

extension DatabaseKey {
    /// A new random raw key: 32 bytes from the system's generator.
    static func randomRawKey() -> DatabaseKey {
        var generator = SystemRandomNumberGenerator()
        let bytes = SecretBytes(count: DatabaseKey.rawKeyLength) { buffer in
            for index in 0..<buffer.count { buffer[index] = UInt8.random(in: 0...255, using: &generator) }
        }
        return DatabaseKey.rawKey(bytes: bytes)
    }
}

import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeys

/// What one database's key rotation (`rekey`) knows of its keys as it goes — the key it
/// was on, the new key, their places, where each is kept — so that after a stop or a
/// failure the database's state is read from that (`state`), not said to be "as it was",
/// and a fleet's rotation can end with one more look at each new key (`lastLook`).
final class RotationRecord: KeyRotationRecord, @unchecked Sendable {
    private let lock = NSLock()
    private let database: String
    /// Whether a key opens the database: nil when that cannot be told (it is locked, it
    /// cannot be read).
    private let opens: @Sendable (DatabaseKey) -> Bool?
    /// The database's own world, which reads keys and words failures.
    private let world: CommandWorld
    private var reading: KeyReading { world.keyReading }
    private let oldPlace: KeySource?
    private let newPlace: KeySource?

    private var oldKey: DatabaseKey?
    private var newKey: DatabaseKey?
    private var staged: KeyStage?
    private var kept: KeptCurrentKey?
    /// Whether a key command's store gave the new key back to this run.
    private var newKeyReadBack = false
    /// The old key was deleted from its place.
    private var oldKeyDeleted = false

    /// - Parameters:
    ///   - oldPlace: where the current key is read from, and
    ///   - newPlace: where the new key goes, each when it is a place (`KeyStage.isPlace`).
    init(database: String, oldPlace: KeySource?, newPlace: KeySource?, in world: CommandWorld, opens: @escaping @Sendable (DatabaseKey) -> Bool?) {
        self.database = database
        self.oldPlace = oldPlace.flatMap { KeyStage.isPlace($0) ? $0 : nil }
        self.newPlace = newPlace.flatMap { KeyStage.isPlace($0) ? $0 : nil }
        self.world = world
        self.opens = opens
    }

    func startedOn(_ key: DatabaseKey) {
        lock.withLock { oldKey = key }
    }

    func rotating(to key: DatabaseKey, staged: KeyStage?, kept: KeptCurrentKey?) {
        lock.withLock {
            newKey = key
            self.staged = staged
            self.kept = kept
        }
    }

    func newKeyWasReadBack() {
        lock.withLock { newKeyReadBack = true }
    }

    func oldKeyWasDeleted() {
        lock.withLock { oldKeyDeleted = true }
    }

    func state() -> KeyState? {
        let (oldKey, newKey, staged, kept, readBack, deleted) = lock.withLock { (self.oldKey, self.newKey, self.staged, self.kept, newKeyReadBack, oldKeyDeleted) }
        guard oldKey != nil || newKey != nil else { return nil }
        return Interruption.unstoppable {
            var unknown = false
            // The keys in memory, then the copies kept beside the database or a place: a
            // current key read from a place a stopped run wrote over is not the one the
            // database is on, and the copy kept of that one is.
            let keptKeys: [(KeyState.Key, DatabaseKey?)] = [
                (.new, staged.flatMap { try? $0.stagedKey(warn: { _ in }) }),
                (.old, kept.flatMap { try? $0.key(reading) }),
            ]
            let candidates: [(KeyState.Key, DatabaseKey)] = ([(.new, newKey), (.old, oldKey)] + keptKeys).compactMap { which, key in key.map { (which, $0) } }
            guard let (which, key) = candidates.first(where: { _, key in
                let answer = opens(key)
                if answer == nil { unknown = true }
                return answer == true
            }) else {
                return KeyState(on: unknown ? .unknown : .none, storedIn: [], keptIn: [])
            }
            var storedIn: [String] = []
            let places = which == .new ? [newPlace] : deleted ? [] : [oldPlace]
            for case let place? in places {
                if case .command = place {
                    // No stopped run may run a key command again: what the store gave this
                    // run is all that is known.
                    if which == .new, readBack { storedIn.append(KeyStage.describe(place) + " (it gave the key back to this run)") }
                } else if holds(place, key) {
                    storedIn.append(KeyStage.describe(place))
                }
            }
            var keptIn: [String] = []
            if let staged, holds(staged.staging, key) { keptIn.append(KeyStage.describe(staged.staging)) }
            if let kept, holds(.file(path: kept.path), key) { keptIn.append(kept.path) }
            return KeyState(on: which, storedIn: storedIn, keptIn: keptIn)
        }
    }

    /// Whether the key file or item `place` holds `key` now.
    private func holds(_ place: KeySource, _ key: DatabaseKey) -> Bool {
        (try? KeyStage.read(place, reading, warn: { _ in }))??.isSameKey(as: key) == true
    }

    func lastLook() -> ErrorPresentation? {
        let (newKey, staged) = lock.withLock { (self.newKey, self.staged) }
        guard let newKey, let place = newPlace else { return nil }
        let cause: String
        do {
            if let live = try KeyStage.read(place, reading, warn: { _ in }) {
                guard live.isSameKey(as: newKey) else {
                    return failure(place, cause: "it holds another key", keeping: newKey, staged: staged)
                }
                if opens(live) != false { return nil }
                cause = "the key there no longer opens it"
            } else {
                cause = "it was removed after the database was done"
            }
        } catch {
            cause = "it could not be read back: " + PublishedKey.cause(error, in: world)
        }
        return failure(place, cause: cause, keeping: newKey, staged: staged)
    }

    /// The failure of a database whose new key was not at its place at the end of the
    /// fleet: the key is kept (where a stopped run keeps it, so the next run finds it) and
    /// the sentence names that copy, never the key.
    private func failure(_ place: KeySource, cause: String, keeping key: DatabaseKey, staged: KeyStage?) -> ErrorPresentation {
        let stage = staged ?? KeyStage(publishingTo: place, database: database, store: nil, reading: reading)
        var sentence = "\(database) is on its new key, but at the end of the run \(KeyStage.describe(place)) did not hold it (\(cause))."
        if let stage {
            do {
                try stage.write(key, ownedLike: nil)
                sentence += " The new key is kept in \(KeyStage.describe(stage.staging)); once the store holds what it is given, run the rotation again."
            } catch {
                sentence += " Keeping it in \(KeyStage.describe(stage.staging)) failed (\(PublishedKey.reason(error, in: world))): check the database with `migrationkit verify` and each key you have."
            }
        }
        let error = CLIError(.newKeyNotStored, sentence)
        return ErrorPresentation(error, in: world) ?? ErrorPresentation(of: error, message: sentence)
    }
}

extension CommandWorld {
    /// The key rotation's record of the database this world works on, once `rekey`
    /// began one.
    var rotationRecord: RotationRecord? { journal.rotation as? RotationRecord }
}

import ArgumentParser
import MigrationKitCommandTree
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeys

/// `rekey --new-key generate` and `--old-key keep|delete`: key rotation, for one
/// database or a fleet, safe under kills and reruns.
///
/// The new key is written to its place (a `--new-password-file`, or a Secret Service
/// item) before the database changes, and only when that place holds no key yet, so a
/// rerun after a kill reuses the key the killed run wrote rather than making another.
/// The old key stays where it is until the new one is proven on the database; then it
/// is kept, or deleted. At every moment the database opens with exactly one of the two,
/// and each is where the options say.
enum KeyRotation {
    /// `--new-key`: where the new key comes from besides the new-key options.
    enum NewKeyMode: String, ExpressibleByArgument, CaseIterable {
        /// 32 random bytes, a raw key, written to the new key's place if empty.
        case generate
    }

    /// `--old-key`: what becomes of the old key once the new one is proven.
    enum OldKeyRetirement: String, ExpressibleByArgument, CaseIterable {
        /// Left where it is (the backup, still on the old key, needs it).
        case keep
        /// Its file removed, or its Secret Service item deleted.
        case delete
    }

    /// A new key and, when it was just made, the write that puts it in its place: run
    /// once the current key is proven and before the database changes, so a wrong
    /// current key leaves no key file or item behind.
    struct PendingKey {
        let key: DatabaseKey
        /// Nil when the key was already there (a rerun after a kill).
        let write: (() throws -> Void)?
    }

    /// The new key at `source`: the one already there (a rerun), or a new random raw key
    /// with the write that stores it (a 0600 file, or a Secret Service item).
    ///
    /// - Parameter ownedLike: the old key's file, whose owner and group a new key file
    ///   takes: run as root, the app that read the old key still reads the new one.
    static func pendingKey(at source: KeySource, ownedLike: String?, warn: (KeyWarning) -> Void) throws -> PendingKey {
        switch source {
        case .file(let path):
            if FileProbe(path: path).kind != .missing { return PendingKey(key: try source.resolve(warn: warn), write: nil) }
            let key = DatabaseKey.randomRawKey()
            return PendingKey(key: key) {
                try key.withKeyText { text in try DurableFile.writePrivate(Array(text) + [0x0A], to: path, replacing: false, ownedLike: ownedLike) }
            }
        case .secretService(let service, let account):
            let store = SecretServiceKeyStore()
            do {
                return PendingKey(key: try store.lookup(service: service, account: account, warn: warn), write: nil)
            } catch let error as KeyError where error.code == .itemNotFound {
                // Only an item that is not there is made: one that could not be read (a
                // locked keyring) may hold the key a killed run already rekeyed to.
            }
            let key = DatabaseKey.randomRawKey()
            return PendingKey(key: key) {
                try store.store(service: service, account: account, label: "MigrationKit key (\(account))", key: key)
            }
        default:
            throw CLIError(.usage, "--new-key generate writes each new key to a file (--new-password-file) or a Secret Service item (--new-keychain-service with --new-keychain-account); give one of them for it to write to.")
        }
    }

    /// The new key at `source`, written there first when it was just made: for a key a
    /// fleet's databases share, in place before the first of them changes.
    static func generatedKey(at source: KeySource, ownedLike: String?, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        let pending = try pendingKey(at: source, ownedLike: ownedLike, warn: warn)
        try pending.write?()
        return pending.key
    }

    /// Removes the old key at `source` once the new one is proven: its file, or its
    /// Secret Service item. Nothing to remove is not an error (a rerun).
    static func delete(_ source: KeySource) throws {
        switch source {
        case .file(let path):
            guard FileProbe(path: path).kind != .missing else { return }
            guard FileRemoval.remove(path) else {
                throw CLIError(.fileError, "The old key file \(path) could not be removed; the database is on the new key already. Remove the file yourself.")
            }
        case .secretService(let service, let account):
            _ = try SecretServiceKeyStore().delete(service: service, account: account)
        case .hex(let place):
            // A hex key file is a key file: removed the same way.
            try delete(place)
        default:
            throw CLIError(.usage, "--old-key delete removes a key file (--password-file or --password-hex-file) or a Secret Service item (--keychain-service with --keychain-account); the current key comes from neither.")
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

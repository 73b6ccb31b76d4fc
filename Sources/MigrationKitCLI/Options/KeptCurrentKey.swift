import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeys

/// The key a database is on when a rotation through a key command's store begins, kept
/// beside the database (`.DATABASE.migrationkit-old-key`, mode 0600, written durably)
/// until it is proven that the store command did not write over it.
///
/// A store command writes the new key before the database changes. Whether the entry it
/// writes is the one the current key is read from, only the stores can tell: `cat
/// ./db.key` and `cat db.key`, `pass show db/app` with two spaces, a symbolic link or a
/// copy on write name one entry in words that differ. When they are one, that write
/// replaces the only stored copy of the key the database is still on, and a kill before
/// the rekey would leave the database with no key anywhere. So the current key is kept
/// here first, and given up only once the current key's source, read again after the
/// store, still gives it (two entries), or once the database is proven on a key its
/// store gives back (`RekeyCommand`).
struct KeptCurrentKey {
    /// The file beside the database.
    let path: String

    init(database: String) {
        path = DurableFile.siblingPath(of: DurableFile.resolvingSymlinks(database), purpose: "old-key")
    }

    /// Keeps `key`, replacing what a stopped run left (the same key: the database was on
    /// it when this run began).
    func keep(_ key: DatabaseKey, ownedLike: String?, _ reading: KeyReading) throws {
        try KeyStage.write(key, to: .file(path: path), ownedLike: ownedLike, reading)
    }

    /// The key kept here, or nil when none is.
    func key(_ reading: KeyReading) throws -> DatabaseKey? {
        try KeyStage.read(.file(path: path), reading, warn: { _ in })
    }

    /// Gives the copy up.
    func remove() {
        FileRemoval.remove(path)
    }

    /// Whether a copy is kept here now.
    var exists: Bool { FileProbe(path: path).kind != .missing }
}

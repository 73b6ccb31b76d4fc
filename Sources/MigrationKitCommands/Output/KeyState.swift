/// Which key a database is on after a key rotation stopped or failed, and where that
/// key is stored: read then, by opening the database with each key the run knew and
/// looking at each place it can look at, never assumed from how far the run got. A
/// rotation is not all or nothing: a tenant stopped after its rekey committed is on its
/// new key, and advice to put an old key back would leave it with none.
package struct KeyState: Encodable, Sendable, Equatable {
    /// The key that opens the database.
    package enum Key: String, Encodable, Sendable {
        /// The key it was on as the run began.
        case old
        /// The new key.
        case new
        /// Neither of the keys the run knew.
        case none
        /// Not known: the database could not be opened to tell (another process holds it
        /// locked, it cannot be read).
        case unknown
    }

    /// The key that opens it.
    let on: Key
    /// Where that key is stored, each place as sentences name it: looked at after the
    /// run ended (a file, an item), or, for a key command's store, which no stopped run
    /// may run again, said to have given the key back to this run.
    let storedIn: [String]
    /// Where a copy of it is kept until a run finishes (a new key beside its place or
    /// the database, the current key beside the database).
    let keptIn: [String]

    package init(on: Key, storedIn: [String], keptIn: [String]) {
        self.on = on
        self.storedIn = storedIn
        self.keptIn = keptIn
    }

    /// "on its new key, stored in keys/acme.key", "on its old key, kept in
    /// .acme.db.migrationkit-old-key only": a clause for the fleet's table and a
    /// stop's sentence.
    var clause: String {
        switch on {
        case .unknown:
            return "which key it is on could not be told (it could not be opened); check it with `migrationkit verify` and each key you have"
        case .none:
            return "on none of the keys this run knew; check it with `migrationkit verify` and each key you have"
        case .old, .new:
            let key = "on its \(on.rawValue) key"
            let kept = keptIn.isEmpty ? "" : "kept in \(Self.list(keptIn))"
            if storedIn.isEmpty {
                return kept.isEmpty ? key + ", which is stored nowhere this run looked" : key + ", " + kept + " only"
            }
            return key + ", stored in \(Self.list(storedIn))" + (kept.isEmpty ? "" : " and " + kept)
        }
    }

    private static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}

/// What a key rotation knows of one database's keys, held by the run's journal
/// (`RunJournal.rotation`): its state, read after the run stopped or failed, and the look
/// a fleet's rotation ends with.
package protocol KeyRotationRecord: AnyObject, Sendable {
    /// The key the database is on now and where it is stored (`KeyState`); nil before
    /// the rotation read the current key, when nothing can have changed.
    func state() -> KeyState?

    /// Reads the new key from its place once more and opens the database with it, after
    /// every database of the fleet finished: nil when it opens; otherwise why, a copy of
    /// the key kept (and named in the failure) first.
    func lastLook() -> ErrorPresentation?
}

import MigrationKitCommands
import MigrationKitKeys

/// A rekeyed database's new key at the place an app reads it from (a key file, a hex
/// key file, a Secret Service item, a key command's store), from its publication to the
/// end of the rotation.
///
/// The order is what keeps a database from ending with no key where it is stored: the
/// key is published (when it was kept staged), read back from its place and proven to
/// open the database (`prove`); only then is the old key retired; last, the key is read
/// from its place once more and must open the database, and only then is the staged copy
/// given up (`finish`). A key that went missing from its place meanwhile (a cleaner that
/// purges files it does not manage, an item someone deleted) is written back there once
/// from memory, the staged copy is kept, and the database fails with a sentence naming
/// the cause, never the key: a rotation is reported done only for a key that was at its
/// place at the end. A Secret Service that does not answer while the key is written or
/// read there is said not to answer, never taken for a key missing from there: nothing
/// is written back, and the old key is retired only after a look that did answer.
///
/// A key command's store is the exception to writing back: what the rotation's store
/// command writes, only the key command's read-back can prove, so a store that does not
/// give the key back after the rekey (it fails, does not finish, gives another key, lost
/// it) has the database put back on its old key (`putBack`), and the staged copy beside
/// the database is kept until the database is on one key a store holds.
struct PublishedKey {
    /// The key the database is on.
    let key: DatabaseKey
    /// Where it is stored (`KeyStage.isPlace`); nil when it has none to read it back
    /// from (typed at a prompt, given as an option or a variable): then only `key`
    /// itself is proven.
    let place: KeySource?
    /// Where a generated key is kept until the end of the rotation; nil for a key that
    /// was not staged.
    let staged: KeyStage?
    /// The database on `key`.
    let database: String
    /// The old key's file, whose owner and group a key file written back takes.
    let ownedLike: String?
    /// Whether the new key's place is the old key's (a rotation in place).
    let inPlace: Bool
    /// Whether `prove` first writes the staged key to its place: not when the place got
    /// it before the rekey (a key command's store, `KeyStage.storesBeforeRekey`), unless
    /// a stopped run left it only in its staged copy.
    let publishes: Bool
    /// Whether a key opens `database`.
    let opens: (DatabaseKey) -> Bool
    /// Rekeys `database` from `key` back to its old key, read again from where the
    /// current key is read, and proves that key, read once more, opens it.
    let putBack: () throws -> Void
    /// The world of the rekey, which words the failures.
    let world: CommandWorld

    /// When a key found missing is looked for: what the old key is then, for the sentence.
    private enum Moment {
        /// Read back right after its publication: the old key is where it was.
        case publication
        /// At the end, the old key retired (`true`: deleted) or kept.
        case end(oldKeyDeleted: Bool)
    }

    /// Publishes a staged key to its place, then reads the key back from there and opens
    /// the database with what was read: what retiring the old key waits for.
    func prove() throws {
        if publishes, let staged {
            do {
                try staged.publish(key, ownedLike: ownedLike)
            } catch let error as KeyError where error.code == .secretServiceNotAnswering {
                throw notAnswering(error, at: .publication, restaging: false)
            } catch {
                // An item deleted while the Secret Service proves it, a full disk: the key
                // is still kept beside its place, which the sentence names.
                throw unproven(.publication, cause: "writing it there failed: \(Self.reason(error, in: world))")
            }
        }
        try confirm(at: .publication, restaging: false)
    }

    /// Retires the old key (`retiring`: deleted; nil: kept or replaced in place), then
    /// reads the key from its place once more and opens the database with it, and only
    /// then gives up the staged copy.
    ///
    /// - Parameters:
    ///   - afterRetiring: runs once the old key is retired, before the last look (tests
    ///     remove the key there).
    ///   - afterReleasing: runs once an item's staged copy is given up, before the look
    ///     that follows (tests change the key's place there).
    func finish(retiring oldKey: KeySource?, afterRetiring: () throws -> Void = {}, afterReleasing: () throws -> Void = {}) throws {
        if let oldKey {
            try KeyRotation.delete(oldKey, world.keyReading)
            world.rotationRecord?.oldKeyWasDeleted()
        }
        try afterRetiring()
        let end = Moment.end(oldKeyDeleted: oldKey != nil)
        try confirm(at: end, restaging: false)
        // An item's staged copy is deleted before the key is looked for once more, so a
        // deletion of its place before that is seen; a file's is renamed onto its place.
        if let staged, try !staged.release() {
            try afterReleasing()
            try confirm(at: end, restaging: true)
        }
    }

    /// Reads the key from its place and opens the database with what was read; a key
    /// missing there is written back once (and staged again, with `restaging`, after its
    /// staged copy was given up), and the database fails.
    private func confirm(at moment: Moment, restaging: Bool) throws {
        guard let place else {
            // Typed at a prompt: nowhere to read it back from.
            guard opens(key) else { throw failure(moment, cause: "") }
            return
        }
        let live: DatabaseKey?
        do {
            live = try KeyStage.read(place, world.keyReading, warn: { _ in })
        } catch let error as KeyError where error.code == .secretServiceNotAnswering {
            // The key may well be there: nothing is written back over it.
            throw notAnswering(error, at: moment, restaging: restaging)
        } catch {
            throw unproven(moment, cause: "it could not be read back: \(Self.cause(error, in: world))", restaging: restaging)
        }
        guard let live else {
            let cause: String
            switch moment {
            case .publication: cause = "it is not there"
            case .end: cause = "it was removed after the key was proven there"
            }
            let stagedLost = restage(restaging)
            var writtenBack = ""
            do {
                try KeyStage.write(key, to: place, ownedLike: ownedLike, world.keyReading)
            } catch {
                writtenBack = Self.reason(error, in: world)
            }
            throw failure(moment, cause: cause, writtenBack: writtenBack, stagedLost: stagedLost)
        }
        guard live.isSameKey(as: key) else { throw unproven(moment, cause: "it holds another key, left as it is", restaging: restaging) }
        guard opens(live) else { throw unproven(moment, cause: "the key read back from there does not open it", restaging: restaging) }
        world.rotationRecord?.newKeyWasReadBack()
    }

    /// After the staged copy was given up (`restaging`), writes it again before a failure
    /// is said, so that whatever went wrong at the last look, the key is still kept where
    /// the sentence says. Returns why that write failed, or nil.
    private func restage(_ restaging: Bool) -> String? {
        guard restaging, let staged else { return nil }
        do {
            try staged.write(key, ownedLike: ownedLike)
            return nil
        } catch {
            return Self.reason(error, in: world)
        }
    }

    /// `unproven(_:cause:)` at a look made after the staged copy was given up: the copy is
    /// written again first, but for a key command's store, whose database is put back on
    /// its old key instead.
    private func unproven(_ moment: Moment, cause: String, restaging: Bool) -> CLIError {
        if case .command? = place { return unproven(moment, cause: cause) }
        if let stagedLost = restage(restaging) { return failure(moment, cause: cause, stagedLost: stagedLost) }
        return unproven(moment, cause: cause)
    }

    /// The database's failure when its key was not proven at its place for `cause`: a
    /// key command's store has the database put back on its old key (`puttingBack`);
    /// a file or an item, whose key can be written back, keeps it on the new one.
    private func unproven(_ moment: Moment, cause: String) -> CLIError {
        if case .command? = place { return puttingBack(at: moment, cause: cause) }
        return failure(moment, cause: cause)
    }

    /// Puts the database back on its old key once its store did not give the new key
    /// back (`cause`), and says so: the old key was not retired. When the old key is
    /// deleted already, or putting it back fails (the current key cannot be read again,
    /// a lock), the database stays on its new key, kept beside the database, which a
    /// rerun stores again or puts back.
    private func puttingBack(at moment: Moment, cause: String) -> CLIError {
        guard case .end(oldKeyDeleted: true) = moment else {
            let place = self.place.map(KeyStage.describe) ?? "its place"
            do {
                try putBack()
            } catch where opens(key) {
                let kept = staged.map { " The new key is kept in \(KeyStage.describe($0.staging)); run the command again to store it there again or put the database back on its old key." } ?? ""
                return CLIError(.newKeyNotStored, "\(database) is on its new key, but \(place) does not hold it (\(cause)), and putting the database back on its old key failed (\(Self.reason(error, in: world))).\(kept)")
            } catch {
                // Rekeyed back, but the old key read again did not open it: the old key
                // opened it a moment ago, and is where it was.
                return CLIError(.newKeyNotStored, "\(database) was put back on its old key, but reading that key again from its place did not prove it (\(Self.reason(error, in: world))): \(place) did not give the new key back after the rekey (\(cause)); the old key was not retired.")
            }
            staged?.removeStaged()
            return CLIError(.newKeyNotStored, "\(database) was put back on its old key, which opens it as read again from its place: \(place) did not give the new key back after the rekey (\(cause)), so the old key was not retired.")
        }
        return failure(moment, cause: cause)
    }

    /// What an error says, as the command line running in `world` says it, inside a
    /// sentence of the database's failure: without its closing period.
    static func reason(_ error: any Error, in world: CommandWorld) -> String {
        reason(error, naming: true, in: world)
    }

    /// `reason(_:in:)` inside a sentence that names the key command already: a key
    /// command's failure without its name again ("the command failed with exit status 1").
    static func cause(_ error: any Error, in world: CommandWorld) -> String {
        reason(error, naming: false, in: world)
    }

    private static func reason(_ error: any Error, naming: Bool, in world: CommandWorld) -> String {
        if !naming, let cause = (error as? KeyError)?.commandCause { return cause }
        let message = ErrorPresentation(error, in: world)?.message ?? "\(error)"
        return message.hasSuffix(".") ? String(message.dropLast()) : message
    }

    /// The database's failure when the Secret Service did not answer as the key was written
    /// to its place or read from there: its sentence (exit 5), then what is known — the
    /// database is on the new key, what became of the old key, where else the new key is
    /// kept. Never that the key is missing: it may be there.
    private func notAnswering(_ error: KeyError, at moment: Moment, restaging: Bool) -> KeyError {
        var sentence = "\(error.message) \(database) is on its new key, but whether \(place.map(KeyStage.describe) ?? "its place") holds it is not known."
        sentence += oldKeySentence(at: moment)
        // After its release the staged copy may be gone already.
        if let staged, !restaging {
            sentence += " The new key is also kept in \(KeyStage.describe(staged.staging))."
        }
        return KeyError(code: .secretServiceNotAnswering, message: sentence, glibError: error.glibError)
    }

    /// What became of the old key by `moment`, as a sentence to add (none for a rotation
    /// in place, where the new key took the old one's place).
    private func oldKeySentence(at moment: Moment) -> String {
        guard !inPlace else { return "" }
        switch moment {
        case .publication, .end(oldKeyDeleted: false):
            return " The old key was left where it was, though it no longer opens the database."
        case .end(oldKeyDeleted: true):
            return " The old key is deleted."
        }
    }

    /// The database's failure: where the key is not, why, what became of the old key,
    /// where the new key is now, and what to do. Never the key.
    ///
    /// - Parameter writtenBack: nil when the key was not missing; "" when it was written
    ///   back to its place; otherwise why writing it back failed.
    ///   - stagedLost: why the staged copy, given up before the last look, could not be
    ///     written again; nil when it is kept (or there is none).
    private func failure(_ moment: Moment, cause: String, writtenBack: String? = nil, stagedLost: String? = nil) -> CLIError {
        guard let place = self.place.map(KeyStage.describe) else {
            return CLIError(.newKeyNotStored, "\(database) was rekeyed, but the new key does not open it; check the database with `migrationkit verify` and each key you have.")
        }
        var sentence = "\(database) is on its new key, but \(place) does not hold it (\(cause))."
        switch writtenBack {
        case nil: break
        case ""?: sentence += " The new key was written back there once, from memory."
        case let reason?: sentence += " Writing the new key back there failed (\(reason))."
        }
        sentence += oldKeySentence(at: moment)
        if let staged, let stagedLost {
            sentence += " Keeping it again in \(KeyStage.describe(staged.staging)) failed too (\(stagedLost))"
                + (writtenBack == "" ? "; stop whatever removes \(place), then run the command again."
                    : ", so no copy of the new key is kept: stop whatever removes them, and check the database with `migrationkit verify` and each key you have.")
        } else if let staged {
            sentence += " The new key is kept in \(KeyStage.describe(staged.staging)); "
                + (writtenBack != nil ? "stop whatever removes \(place), then run the command again."
                    : "run the command again to publish it from there.")
        } else if writtenBack == "" {
            sentence += " Stop whatever removes \(place), then run the command again."
        } else {
            sentence += " Put the new key back at \(place), then run the command again."
        }
        return CLIError(.newKeyNotStored, sentence)
    }
}

import CLibSecretLoader
import Foundation
import MigrationKit
import MigrationKitSecrets
import Synchronization

/// Database keys in the freedesktop Secret Service (GNOME Keyring, KeePassXC: the
/// providers the tests run), which stands in for the Apple keychain on Linux.
///
/// An item is named like a keychain generic password: a `service` attribute and an
/// account. Two conventions name the account: `secret-tool` users (and the keychain) say
/// `account`, Python's `keyring` says `username` (what `keyring set S A` stores and what
/// its lookups match). A lookup finds an item in either form; an item this type stores
/// carries both, so `secret-tool lookup service S account A` and Python's
/// `keyring.get_password(S, A)` find it too. Stored items also carry
/// `xdg:schema = org.migrationkit.DatabaseKey`; lookups do not require it.
///
/// Several items can match (one per convention, or copies another tool made). A lookup
/// returns their key when they all hold the same one, and refuses (`.ambiguousItems`)
/// when they differ, rather than pick one by the provider's order.
///
/// The secret is the key's text form: a passphrase as is, a raw key as `x'<64 hex>'`.
///
/// Before anything else each call makes sure the provider has an unlocked keyring: a
/// search while every keyring is locked would wait for someone to unlock one (KeePassXC
/// holds the reply until its unlock dialog is answered, for D-Bus's 25 seconds), so the
/// answer is `.keyringLocked` at once instead.
///
/// Every call is synchronous and may block while the provider shows an unlock prompt;
/// do not call it from a UI thread. Calls are serialized within the process.
///
/// Every call ends within `timeout` (and a moment to cancel what is under way), whatever
/// the provider does: one that stopped, restarted between a request and its reply, or
/// shows an unlock prompt nobody answers is `.secretServiceNotAnswering`, never a wait
/// for ever. The time runs while the provider shows a prompt, too. Stores of one `Batch`
/// stop waiting together: once one of their calls got no answer in time, the later ones
/// fail at once.
public struct SecretServiceKeyStore: Sendable {
    /// Recorded as `xdg:schema` on the items `store` creates.
    static let schemaName = "org.migrationkit.DatabaseKey"

    /// How long `init()`'s store waits for the Secret Service in each lookup, store or
    /// delete: as long as D-Bus waits for any one reply.
    public static let defaultTimeout: Duration = .seconds(25)

    /// How long each lookup, store or delete waits for the Secret Service in all.
    let timeout: Duration
    /// The stores this one stops waiting with; nil when it waits on its own.
    let batch: Batch?

    /// The store of the session's Secret Service, waiting at most `defaultTimeout` for
    /// each operation (a store a `migrationkit` command makes joins the command's batch
    /// instead, `KeyReading.secretServiceStore`); nothing is contacted until it is used.
    public init() {
        self.init(timeout: Self.defaultTimeout)
    }

    /// The store of the session's Secret Service, waiting at most `timeout` for each
    /// lookup, store or delete (an unlock prompt included), whatever an earlier call met;
    /// nothing is contacted until it is used.
    public init(timeout: Duration) {
        self.timeout = timeout
        batch = nil
    }

    /// A store of `batch`: it waits at most the batch's timeout for each lookup, store or
    /// delete, and not at all once a call of any store of the batch got no answer within
    /// it (`.secretServiceNotAnswering` at once, saying the Secret Service was not asked).
    public init(batch: Batch) {
        timeout = batch.timeout
        self.batch = batch
    }

    /// Stores that stop waiting together: once a lookup, store or delete of any of them
    /// got no answer from the Secret Service within the batch's timeout (it stopped, or
    /// hangs), every later one fails at once with `.secretServiceNotAnswering`, without
    /// asking the Secret Service again. A provider that refused a request, or left the
    /// bus and said so at once (it exited or restarted), does not stop the batch.
    ///
    /// A store on its own (`init(timeout:)`) waits in each call: an app that looks a key
    /// up now and then should ask again each time, as a keyring restarted or unlocked
    /// since then answers. Calls that someone waits for as one piece of work (a command
    /// over many databases, a key rotation's several steps) share a batch, so a keyring
    /// that stopped costs them one timeout rather than one for each call; the next piece
    /// of work takes a new batch and asks again. `migrationkit` makes one per command.
    public final class Batch: Sendable {
        /// How long each lookup, store or delete of the batch's stores waits.
        let timeout: Duration
        private let unanswered = Atomic<Bool>(false)

        /// A batch whose stores wait at most `timeout` for each lookup, store or delete.
        package init(timeout: Duration) {
            self.timeout = timeout
        }

        /// Whether a call of the batch got no answer within `timeout`: every later call
        /// fails at once.
        var stoppedWaiting: Bool {
            unanswered.load(ordering: .acquiring)
        }

        fileprivate func stopWaiting() {
            unanswered.store(true, ordering: .releasing)
        }
    }

    /// The key stored for `service` and `account`.
    ///
    /// - Throws: `KeyError` with code `.itemNotFound` (in neither attribute form),
    ///   `.keyringLocked` (an item exists but in a locked keyring that could not be
    ///   unlocked, or every keyring is locked), `.ambiguousItems` (items that hold
    ///   different keys), `.noSessionBus`, `.noSecretService`, `.invalidItemName`,
    ///   `.itemEmpty`, `.secretServiceNotAnswering` (no answer within `timeout`, or at
    ///   once in a batch that stopped waiting) or `.secretServiceFailed`.
    public func lookup(service: String, account: String) throws -> DatabaseKey {
        try lookup(service: service, account: account) { _ in }
    }

    /// `lookup(service:account:)`, handing warnings (a malformed raw key) to `warn`.
    public func lookup(service: String, account: String, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        try lookup(service: service, account: account, form: .text, library: nil, warn: warn)
    }

    /// `lookup(service:account:warn:)` with the item's text read in `form` (`KeySource.hex`),
    /// for the SQLCipher of `library` when known (`KeyText.key`).
    func lookup(service: String, account: String, form: KeyText.Form, library: SQLCipherVersion?, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        let item = ItemName(service: service, account: account)
        try item.validate()
        let found = try operation(on: item, doing: "look up") { library in
            do {
                return try ItemForm.findEveryItem(item, in: library)
            } catch let failure as LibSecret.Failure where failure.isSecretError(SECRET_ERROR_NO_SUCH_OBJECT) {
                // An item deleted between the search and the reading of its secret (by
                // another program): it is not there, which is no failure of the Secret
                // Service. Searched once more, without it.
                return try ItemForm.findEveryItem(item, in: library)
            }
        }
        guard !found.isEmpty else { throw item.notFoundError() }
        // Every item is read, so that a second one holding another key is never missed;
        // one that stayed locked could be that one.
        var key: DatabaseKey?
        var warnings: [KeyWarning] = []
        for candidate in found {
            guard let text = candidate.secret else { throw item.lockedError() }
            let next = try KeyText.key(
                from: text, origin: "the Secret Service item for \(item)", form: form, library: library,
                empty: KeyError(code: .itemEmpty, message: "The Secret Service item for \(item) holds an empty secret; store the key again."),
                warn: { warnings.append($0) })
            if let key, !key.isSameKey(as: next) { throw item.ambiguousError(count: found.count) }
            key = key ?? next
        }
        for warning in Set(warnings).sorted(by: { $0.message < $1.message }) { warn(warning) }
        return key!
    }

    /// Stores `key` for `service` and `account` in the default collection, as the one
    /// item a lookup by either convention finds afterwards.
    ///
    /// The new item is created beside any existing one and read back from the Secret
    /// Service; only once it holds `key` are the items it replaces deleted: every other
    /// item with the same service and account, in either attribute form, whoever made it
    /// (an earlier `store`, `secret-tool store`, Python's `keyring set`). So a lookup
    /// never returns the old key afterwards, and a store that fails leaves the old items
    /// as they were.
    ///
    /// - Parameters:
    ///   - key: the key to store, in its text form (Keys/README.md).
    ///   - service: the item's `service` attribute.
    ///   - account: the item's `account` attribute, and its `username` (Python's `keyring`).
    ///   - label: what keyring managers (Seahorse, KeePassXC) show; defaults to
    ///     "MigrationKit database key (service S, account A)".
    /// - Throws: `KeyError` (`.keyringLocked` when the default collection is locked and
    ///   could not be unlocked, or every keyring is, `.noSessionBus`, `.noSecretService`,
    ///   `.invalidItemName`, `.secretServiceNotAnswering`, `.secretServiceFailed`, `.unusableKey` for a key SQLCipher
    ///   could not use, `.keyNotStorableAsText` for a passphrase whose text form would be
    ///   read back as another key).
    public func store(service: String, account: String, label: String? = nil, key: DatabaseKey) throws {
        let item = ItemName(service: service, account: account)
        try item.validate()
        if let reason = key.unusableReason {
            throw KeyError(code: .unusableKey, message: "Cannot store the key for \(item): \(reason)")
        }
        if let problem = KeyText.textFormProblem(of: key) {
            throw KeyError(code: .keyNotStorableAsText,
                           message: "Cannot store the key for \(item) as an item's text, because \(problem); keep that passphrase as hex digits in a hex key file instead.")
        }
        let label = label ?? "MigrationKit database key (\(item))"
        try operation(on: item, doing: "store") { library in
            let path: String
            do {
                path = try key.withKeyText { text in try StoredItem.create(item, label: label, secret: text, in: library) }
            } catch let failure as LibSecret.Failure {
                if failure.isSecretError(SECRET_ERROR_IS_LOCKED) {
                    throw KeyError(
                        code: .keyringLocked,
                        message: "Cannot store the key for \(item) because the default keyring is locked and could not be unlocked; unlock it (log in to the desktop, or use Seahorse or KeePassXC) and try again.",
                        glibError: failure.glibError)
                }
                throw item.failedError(failure, doing: "store", within: library.bound)
            }
            try prove(path, holds: key, for: item, in: library)
            do {
                for form in ItemForm.lookupForms {
                    _ = try form.deleteItems(item, in: library) { $0 != path }
                }
            } catch let failure as LibSecret.Failure {
                throw KeyError(
                    code: failure.keyErrorCode,
                    message: "The key for \(item) was stored, but an older item with the same service and account could not be deleted (\(failure.explanation)), so a lookup will find two keys and refuse; delete the older item with a keyring manager such as Seahorse.",
                    glibError: failure.glibError)
            }
        }
    }

    /// Reads the item at `path` back, as a lookup finds it, and makes sure it holds `key`;
    /// otherwise deletes it and throws, leaving the items it was to replace as they were.
    private func prove(_ path: String, holds key: DatabaseKey, for item: ItemName, in library: LibSecret) throws {
        let held: SecretBytes?
        do {
            held = try ItemForm.keychain.search(item, in: library).first { $0.path == path }?.secret
        } catch let failure as LibSecret.Failure {
            throw KeyError(
                code: failure.keyErrorCode,
                message: "The key for \(item) was stored but could not be read back (\(failure.explanation)), so no older item was replaced; try again, and if it fails again check the keyring daemon.",
                glibError: failure.glibError)
        }
        let matches = held.map { text in key.withKeyText { text.isEqual(to: SecretBytes(copying: $0)) } } ?? false
        if !matches {
            _ = try? StoredItem.delete(path, item, in: library)
            throw KeyError(
                code: .secretServiceFailed,
                message: "The Secret Service did not keep the key stored for \(item) (reading it back gave \(held == nil ? "nothing" : "other bytes")), so no older item was replaced; check the keyring daemon, then try again.")
        }
    }

    /// Deletes every item `lookup(service:account:)` could return for `service` and
    /// `account`, in both attribute forms, so a later lookup fails with `.itemNotFound`.
    ///
    /// - Returns: true if at least one item was deleted, false if there was none (not an
    ///   error, so deleting twice is harmless).
    /// - Throws: `KeyError` with code `.keyringLocked` when matching items exist but are
    ///   locked, or as for `lookup`.
    @discardableResult
    public func delete(service: String, account: String) throws -> Bool {
        let item = ItemName(service: service, account: account)
        try item.validate()
        return try operation(on: item, doing: "delete") { library in
            var deleted = false
            for form in ItemForm.lookupForms {
                if try form.clear(item, in: library) { deleted = true }
            }
            if !deleted {
                // As with lookup: nothing deleted may mean "locked", not "absent".
                for form in ItemForm.lookupForms where try form.countItems(item, in: library) > 0 {
                    throw item.lockedError()
                }
            }
            return deleted
        }
    }

    /// Runs one lookup, store or delete, one at a time in the process (`LibSecret.lock`),
    /// with libsecret connected and an unlocked keyring: its calls end within `timeout`.
    /// In a batch that stopped waiting it fails at once, asking nothing; a call of it
    /// that got no answer within `timeout` stops its batch.
    private func operation<T>(on item: ItemName, doing action: String, _ body: (LibSecret) throws -> T) throws -> T {
        try LibSecret.lock.withLock {
            // Under the lock: a store that waited for it while another call went
            // unanswered asks nothing either.
            if let batch, batch.stoppedWaiting { throw item.notAskedError(doing: action, within: timeout) }
            let library = try connect(for: item, doing: action)
            defer { if library.gaveUp { batch?.stopWaiting() } }
            try requireUnlockedKeyring(in: library, for: item, doing: action)
            return try body(library)
        }
    }

    /// Loads libsecret (on the first use in the process), then makes sure there is a
    /// session bus before anything else, so its absence gets its own error rather than
    /// whatever the first libsecret call makes of it. Every call of the operation ends
    /// within `timeout` from here.
    private func connect(for item: ItemName, doing action: String) throws -> LibSecret {
        let library: LibSecret
        do {
            library = try LibSecret.load(answeringWithin: timeout)
        } catch {
            throw KeyError(
                code: .libsecretUnavailable,
                advice: Advice(situation: "Cannot \(action) the key in the Secret Service because libsecret could not be loaded (\(error.message))",
                               otherwise: "install it (`apt install libsecret-1-0`)", remedy: .keyFromFile))
        }
        do {
            try library.connectToSessionBus()
            return library
        } catch {
            throw KeyError(
                code: .noSessionBus,
                advice: Advice(situation: "Cannot \(action) the key in the Secret Service because there is no D-Bus session bus",
                               otherwise: "run inside a desktop session or under `dbus-run-session`", remedy: .keyFromFile),
                glibError: error.glibError)
        }
    }

    /// Throws `.keyringLocked` at once when the provider has no unlocked keyring: then
    /// every search waits for a person (KeePassXC with every database locked, or none
    /// open, holds the reply until its unlock dialog is answered) and ends, if nobody is
    /// there, in D-Bus's timeout 25 seconds later. GNOME Keyring always has one (its
    /// in-memory "session" keyring), so there a locked "login" keyring still gets its
    /// own unlock prompt, item by item, as before.
    private func requireUnlockedKeyring(in library: LibSecret, for item: ItemName, doing action: String) throws {
        let collections: [LibSecret.Collection]
        do {
            collections = try library.collections()
        } catch {
            throw item.failedError(error, doing: action, within: library.bound)
        }
        guard !collections.contains(where: { !$0.isLocked }) else { return }
        let labels = collections.map { "“\($0.label.isEmpty ? $0.path : $0.label)”" }
        let state = labels.isEmpty
            ? "the Secret Service has no keyring open (KeePassXC with no database open)"
            : "every keyring of the Secret Service is locked (\(labels.joined(separator: ", ")))"
        throw KeyError(
            code: .keyringLocked,
            message: "Cannot \(action) the key for \(item) because \(state); unlock it in KeePassXC or your keyring manager (such as Seahorse), then try again.")
    }
}

/// A service and account pair, as it appears in messages (never with a secret).
private struct ItemName: CustomStringConvertible {
    let service: String
    let account: String

    var description: String { "service “\(service)”, account “\(account)”" }

    func validate() throws {
        guard !service.isEmpty, !account.isEmpty else {
            throw KeyError(code: .invalidItemName, message: "The Secret Service service and account names must both be non-empty (got \(self)).")
        }
    }

    func notFoundError() -> KeyError {
        KeyError(
            code: .itemNotFound,
            message: "The Secret Service has no key for \(self) (looked for service/account and service/username attributes); store one with `secret-tool store --label=… service \(shellQuoted(service)) account \(shellQuoted(account))`, or check the names.")
    }

    func ambiguousError(count: Int) -> KeyError {
        KeyError(
            code: .ambiguousItems,
            advice: Advice(
                situation: "The Secret Service has \(count) items for \(self) (as service/account and service/username) that hold different keys, so which one opens the database is not guessed",
                otherwise: "delete the wrong ones (`secret-tool search --all service \(shellQuoted(service))` lists them)",
                remedy: .storeKeyAgain(service: service, account: account)))
    }

    /// A call a batch that stopped waiting did not make: the Secret Service did not
    /// answer an earlier one within `bound`.
    func notAskedError(doing action: String, within bound: Duration) -> KeyError {
        KeyError(
            code: .secretServiceNotAnswering,
            message: "The Secret Service (gnome-keyring, KeePassXC) did not answer within \(Bounded.seconds(bound)) when asked earlier, so it was not asked to \(action) the key for \(self); \(Self.notAnsweringAdvice).")
    }

    /// What to do about a Secret Service that does not answer. A provider that runs with its
    /// keyring unlocked also leaves a request unanswered while its prompt waits for a
    /// person: KeePassXC, as it is set up by default, asks before it lets a program read or
    /// delete an entry, every program and every run anew, and answers only once someone
    /// allows it.
    private static let notAnsweringAdvice = "check that it runs and its keyring is unlocked, and answer its prompt if it shows one (KeePassXC asks before a program reads or deletes an entry), then try again"

    func lockedError() -> KeyError {
        KeyError(
            code: .keyringLocked,
            message: "The Secret Service key for \(self) is in a locked keyring that could not be unlocked (no unlock prompt could be shown, or it was dismissed); unlock the keyring, e.g. by logging in to the desktop or with Seahorse, and try again.")
    }

    /// Any other failure: classified when GLib's domain and code say what it was;
    /// `bound` is how long the operation waited for an answer.
    func failedError(_ failure: LibSecret.Failure, doing action: String, within bound: Duration) -> KeyError {
        if failure.isDBus(G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER,
                          G_DBUS_ERROR_SPAWN_EXEC_FAILED, G_DBUS_ERROR_SPAWN_FORK_FAILED,
                          G_DBUS_ERROR_SPAWN_CHILD_EXITED, G_DBUS_ERROR_SPAWN_CHILD_SIGNALED,
                          G_DBUS_ERROR_SPAWN_FAILED, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND) {
            return KeyError(
                code: .noSecretService,
                advice: Advice(situation: "Cannot \(action) the key in the Secret Service because no Secret Service provider is running on the session bus",
                               otherwise: "start one (`gnome-keyring-daemon --start --components=secrets`, or KeePassXC with Secret Service integration enabled)",
                               remedy: .keyFromFile),
                glibError: failure.glibError)
        }
        if failure.isUnanswered {
            let what = failure.isOutOfTime ? "did not answer within \(Bounded.seconds(bound))" : "stopped answering (its daemon exited or restarted)"
            return KeyError(
                code: .secretServiceNotAnswering,
                message: "The Secret Service (gnome-keyring, KeePassXC) \(what) when asked to \(action) the key for \(self); \(Self.notAnsweringAdvice).",
                glibError: failure.glibError)
        }
        return KeyError(
            code: .secretServiceFailed,
            message: "The Secret Service could not \(action) the key for \(self) (\(failure.explanation)); check that the keyring daemon is running and the keyring unlocked, then try again.",
            glibError: failure.glibError)
    }
}

/// One way of naming an item with attributes, as lookups match it.
private struct ItemForm {
    /// The attribute that holds the account name.
    let accountAttribute: String

    /// The keychain's and `secret-tool`'s service/account.
    static let keychain = ItemForm(accountAttribute: "account")
    /// Python keyring's service/username.
    static let pythonKeyring = ItemForm(accountAttribute: "username")

    static let lookupForms = [keychain, pythonKeyring]

    /// The items of every form, each once (an item this type stored has both forms).
    static func findEveryItem(_ item: ItemName, in library: LibSecret) throws -> [LibSecret.FoundItem] {
        var found: [LibSecret.FoundItem] = []
        for form in lookupForms {
            for candidate in try form.find(item, in: library) where !found.contains(where: { $0.path == candidate.path }) {
                found.append(candidate)
            }
        }
        return found
    }

    func find(_ item: ItemName, in library: LibSecret) throws -> [LibSecret.FoundItem] {
        try run(item, in: library, doing: "look up") { try library.search(schema: $0, attributes: $1) }
    }

    /// `find`, throwing `LibSecret.Failure` unchanged, so the caller can classify it in context.
    func search(_ item: ItemName, in library: LibSecret) throws -> [LibSecret.FoundItem] {
        try withItem(item, in: library) { try library.search(schema: $0, attributes: $1) }
    }

    /// How many items match, locked ones included, without trying to unlock them.
    func countItems(_ item: ItemName, in library: LibSecret) throws -> Int {
        try run(item, in: library, doing: "look up") { try library.countItems(schema: $0, attributes: $1) }
    }

    func clear(_ item: ItemName, in library: LibSecret) throws -> Bool {
        try run(item, in: library, doing: "delete") { try library.clear(schema: $0, attributes: $1) }
    }

    /// Throws `LibSecret.Failure` unchanged, so the caller can classify it in context.
    func deleteItems(_ item: ItemName, in library: LibSecret, where delete: (String) -> Bool) throws -> Int {
        try withItem(item, in: library) { try library.deleteItems(schema: $0, attributes: $1, where: delete) }
    }

    /// A schema that matches on these attributes alone (any `xdg:schema`, or none), and
    /// the item's attributes, for the duration of `body`.
    private func withItem<T>(_ item: ItemName, in library: LibSecret, _ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        try library.withSchema(name: SecretServiceKeyStore.schemaName, attributes: ["service", accountAttribute]) { schema in
            try library.withAttributes(["service": item.service, accountAttribute: item.account]) { attributes in
                try body(schema, attributes)
            }
        }
    }

    private func run<T>(_ item: ItemName, in library: LibSecret, doing action: String, _ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        do {
            return try withItem(item, in: library, body)
        } catch let failure as LibSecret.Failure {
            throw item.failedError(failure, doing: action, within: library.bound)
        }
    }
}

/// The item `store` creates: both forms' attributes (`account` for `secret-tool` and the
/// keychain, `username` for Python's `keyring`), and `xdg:schema` for keyring managers.
private enum StoredItem {
    static let attributeNames = ["service", "account", "username"]

    /// Throws `LibSecret.Failure` unchanged, so the caller can classify it in context.
    static func create(_ item: ItemName, label: String, secret: UnsafeRawBufferPointer, in library: LibSecret) throws -> String {
        try withItem(item, in: library) { try library.create(schema: $0, attributes: $1, label: label, secret: secret) }
    }

    /// Deletes the item at `path` (one `create` just made).
    static func delete(_ path: String, _ item: ItemName, in library: LibSecret) throws -> Int {
        try withItem(item, in: library) { try library.deleteItems(schema: $0, attributes: $1) { $0 == path } }
    }

    private static func withItem<T>(_ item: ItemName, in library: LibSecret, _ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        try library.withSchema(name: SecretServiceKeyStore.schemaName, attributes: attributeNames) { schema in
            try library.withAttributes(["service": item.service, "account": item.account, "username": item.account]) { attributes in
                try body(schema, attributes)
            }
        }
    }
}

extension LibSecret.Failure {
    /// The code of a failure only explained in its sentence (a store's read-back or
    /// clean-up): a Secret Service that did not answer is said to, as everywhere.
    fileprivate var keyErrorCode: KeyError.Code {
        isUnanswered ? .secretServiceNotAnswering : .secretServiceFailed
    }
}

/// Single-quotes a word for a shell command shown in a message (the command lines'
/// sentences too).
package func shellQuoted(_ word: String) -> String {
    let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_.@/:".contains($0) }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

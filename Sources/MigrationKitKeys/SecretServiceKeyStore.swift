import CLibSecretLoader
import Foundation
import MigrationKit
import MigrationKitSecrets

/// Database keys in the freedesktop Secret Service (GNOME Keyring, KeePassXC, KWallet),
/// which stands in for the Apple keychain on Linux.
///
/// An item is named like a keychain generic password: a `service` attribute and an
/// `account` attribute (kSecAttrService/kSecAttrAccount), so
/// `secret-tool store --label=L service S account A` makes an item `lookup` finds. Items
/// this type stores also carry `xdg:schema = org.migrationkit.DatabaseKey`; lookups do
/// not require it. When no `service` + `account` item exists, `lookup` falls back to
/// Python `keyring`'s form, `service` + `username` (what `keyring set S A` stores).
///
/// The secret is the key's text form: a passphrase as is, a raw key as `x'<64 hex>'`.
///
/// Every call is synchronous and may block while the provider shows an unlock prompt;
/// do not call it from a UI thread. Calls are serialized within the process.
public struct SecretServiceKeyStore: Sendable {
    /// Recorded as `xdg:schema` on the items `store` creates.
    public static let schemaName = "org.migrationkit.DatabaseKey"

    /// The store of the session's Secret Service; nothing is contacted until it is used.
    public init() {}

    /// The key stored for `service` and `account`.
    ///
    /// - Throws: `KeyError` with code `.itemNotFound` (in neither attribute form),
    ///   `.keyringLocked` (it exists, but in a locked collection that could not be
    ///   unlocked), `.noSessionBus`, `.noSecretService`, `.invalidItemName`, `.itemEmpty`
    ///   or `.secretServiceFailed`.
    public func lookup(service: String, account: String) throws -> DatabaseKey {
        try lookup(service: service, account: account) { _ in }
    }

    /// `lookup(service:account:)`, handing warnings (a malformed raw key) to `warn`.
    public func lookup(service: String, account: String, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        try lookup(service: service, account: account, form: .text, warn: warn)
    }

    /// `lookup(service:account:warn:)` with the item's text read in `form` (`KeySource.hex`).
    func lookup(service: String, account: String, form: KeyText.Form, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        let item = ItemName(service: service, account: account)
        try item.validate()
        let text: SecretBytes = try LibSecret.lock.withLock {
            let library = try connect(for: item, doing: "look up")
            for form in ItemForm.lookupOrder {
                if let text = try form.lookup(item, in: library) { return text }
                // NULL with no error also means "only in a locked collection whose unlock
                // prompt could not be shown": a search, which lists locked items too,
                // tells the two apart. Stop at the first form that exists.
                if try form.countItems(item, in: library) > 0 { throw item.lockedError() }
            }
            throw item.notFoundError()
        }
        return try KeyText.key(
            from: text, origin: "the Secret Service item for \(item)", form: form,
            empty: KeyError(code: .itemEmpty, message: "The Secret Service item for \(item) holds an empty secret; store the key again."),
            warn: warn)
    }

    /// Stores `key` for `service` and `account` in the default collection, creating the
    /// item or replacing its secret and label.
    ///
    /// Other items with the same service and account but not made by this type (such as
    /// one `secret-tool store` made, which has no `xdg:schema`) are deleted once the new
    /// item is safely stored: the Secret Service only replaces an item whose attributes
    /// include all the new ones, so they would otherwise survive and `lookup` could return
    /// the old key. Python keyring's service/username items are left alone; `lookup`
    /// prefers the service/account item anyway.
    ///
    /// - Parameters:
    ///   - key: the key to store, in its text form (Keys/README.md).
    ///   - service: the item's `service` attribute.
    ///   - account: the item's `account` attribute.
    ///   - label: what keyring managers (Seahorse, KeePassXC) show; defaults to
    ///     "MigrationKit database key (service S, account A)".
    /// - Throws: `KeyError` (`.keyringLocked` when the default collection is locked and
    ///   could not be unlocked, `.noSessionBus`, `.noSecretService`, `.invalidItemName`,
    ///   `.secretServiceFailed`, `.unusableKey` for a key SQLCipher could not use).
    public func store(service: String, account: String, label: String? = nil, key: DatabaseKey) throws {
        let item = ItemName(service: service, account: account)
        try item.validate()
        if let reason = key.unusableReason {
            throw KeyError(code: .unusableKey, message: "Cannot store the key for \(item): \(reason)")
        }
        let label = label ?? "MigrationKit database key (\(item))"
        try LibSecret.lock.withLock {
            let library = try connect(for: item, doing: "store")
            do {
                try key.withKeyText { text in
                    try ItemForm.keychain.store(item, label: label, secret: text, in: library)
                }
            } catch let failure as LibSecret.Failure {
                if failure.isSecretError(SECRET_ERROR_IS_LOCKED) {
                    throw KeyError(
                        code: .keyringLocked,
                        message: "Cannot store the key for \(item) because the default keyring is locked and could not be unlocked; unlock it (log in to the desktop, or use Seahorse) and try again.",
                        glibError: failure.glibError)
                }
                throw item.failedError(failure, doing: "store")
            }
            do {
                try ItemForm.keychain.deleteItemsNotStoredHere(item, in: library)
            } catch let failure as LibSecret.Failure {
                throw KeyError(
                    code: .secretServiceFailed,
                    message: "The key for \(item) was stored, but an older item with the same service and account could not be deleted (it said: \(failure.message)), so a lookup may still return the old key; delete that item with a keyring manager such as Seahorse.",
                    glibError: failure.glibError)
            }
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
        return try LibSecret.lock.withLock {
            let library = try connect(for: item, doing: "delete")
            var deleted = false
            for form in ItemForm.lookupOrder {
                if try form.clear(item, in: library) { deleted = true }
            }
            if !deleted {
                // As with lookup: nothing deleted may mean "locked", not "absent".
                for form in ItemForm.lookupOrder where try form.countItems(item, in: library) > 0 {
                    throw item.lockedError()
                }
            }
            return deleted
        }
    }

    /// Loads libsecret (on the first use in the process), then makes sure there is a
    /// session bus before anything else, so its absence gets its own error rather than
    /// whatever the first libsecret call makes of it.
    private func connect(for item: ItemName, doing action: String) throws -> LibSecret {
        let library: LibSecret
        do {
            library = try LibSecret.load()
        } catch {
            throw KeyError(
                code: .libsecretUnavailable,
                advice: Advice(situation: "Cannot \(action) the key in the Secret Service because libsecret could not be loaded (\(error.reason))",
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

    func lockedError() -> KeyError {
        KeyError(
            code: .keyringLocked,
            message: "The Secret Service key for \(self) is in a locked keyring that could not be unlocked (no unlock prompt could be shown, or it was dismissed); unlock the keyring, e.g. by logging in to the desktop or with Seahorse, and try again.")
    }

    /// Any other failure: classified when GLib's domain and code say what it was.
    func failedError(_ failure: LibSecret.Failure, doing action: String) -> KeyError {
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
        if failure.isDBus(G_DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT)
            || failure.isIOError(G_IO_ERROR_TIMED_OUT) {
            return KeyError(
                code: .secretServiceFailed,
                message: "The Secret Service did not answer when asked to \(action) the key for \(self); check that the keyring daemon is responsive, then try again.",
                glibError: failure.glibError)
        }
        return KeyError(
            code: .secretServiceFailed,
            message: "The Secret Service could not \(action) the key for \(self) (it said: \(failure.message)); check that the keyring daemon is running and the keyring unlocked, then try again.",
            glibError: failure.glibError)
    }
}

/// One way of naming an item with attributes.
private struct ItemForm {
    /// The schema name: recorded as `xdg:schema` on store; not matched on lookup.
    let schemaName: String
    /// The attribute that holds the account name.
    let accountAttribute: String

    /// The keychain's service/account, which this type stores.
    static let keychain = ItemForm(schemaName: SecretServiceKeyStore.schemaName, accountAttribute: "account")
    /// Python keyring's service/username (its schema is org.freedesktop.Secret.Generic).
    static let pythonKeyring = ItemForm(schemaName: "org.freedesktop.Secret.Generic", accountAttribute: "username")

    static let lookupOrder = [keychain, pythonKeyring]

    func lookup(_ item: ItemName, in library: LibSecret) throws -> SecretBytes? {
        try run(item, in: library, doing: "look up") { try library.lookup(schema: $0, attributes: $1) }
    }

    func countItems(_ item: ItemName, in library: LibSecret) throws -> Int {
        try run(item, in: library, doing: "look up") { try library.countItems(schema: $0, attributes: $1) }
    }

    func clear(_ item: ItemName, in library: LibSecret) throws -> Bool {
        try run(item, in: library, doing: "delete") { try library.clear(schema: $0, attributes: $1) }
    }

    /// Throws `LibSecret.Failure` unchanged, so the caller can classify it in context.
    func deleteItemsNotStoredHere(_ item: ItemName, in library: LibSecret) throws {
        try withItem(item, in: library) { schema, attributes in
            _ = try library.deleteItems(schema: schema, attributes: attributes, notOfSchema: schemaName)
        }
    }

    /// Throws `LibSecret.Failure` unchanged, so the caller can classify it in context.
    func store(_ item: ItemName, label: String, secret: UnsafeRawBufferPointer, in library: LibSecret) throws {
        try withItem(item, in: library) { schema, attributes in
            try library.store(schema: schema, attributes: attributes, label: label, secret: secret)
        }
    }

    /// This form's schema and the item's attributes, for the duration of `body`.
    private func withItem<T>(_ item: ItemName, in library: LibSecret, _ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        try library.withSchema(name: schemaName, attributes: ["service", accountAttribute]) { schema in
            try library.withAttributes(["service": item.service, accountAttribute: item.account]) { attributes in
                try body(schema, attributes)
            }
        }
    }

    private func run<T>(_ item: ItemName, in library: LibSecret, doing action: String, _ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        do {
            return try withItem(item, in: library, body)
        } catch let failure as LibSecret.Failure {
            throw item.failedError(failure, doing: action)
        }
    }
}

/// Single-quotes a word for a shell command shown in a message.
private func shellQuoted(_ word: String) -> String {
    let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_.@/:".contains($0) }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

import CLibSecretLoader
import Foundation
import MigrationKit
import MigrationKitSecrets

/// Thin, internal wrappers over the libsecret and GLib calls `SecretServiceKeyStore` makes,
/// through the functions `CLibSecretLoader` finds when the Secret Service is first used.
///
/// Each wrapper owns what it allocates: hash tables, schemas, secret values and errors
/// are released before it returns, and a GError is copied (domain, code, message) and
/// freed on the spot, so no GLib memory escapes into Swift.
///
/// Every call that waits for the Secret Service ends by `deadline`, whatever the provider
/// does: libsecret's own *_sync calls can wait for ever (a prompt whose `Completed` signal
/// never comes, a provider that restarted between a request and its reply, a stopped
/// one), so each call is libsecret's asynchronous one, run on a main context of its own
/// (`Bounded`).
struct LibSecret {
    /// One libsecret call at a time in this process. libsecret's *_sync calls each spin
    /// their own main context, but share one cached `SecretService` proxy; serializing
    /// them keeps GLib's per-context machinery out of Swift's thread pool's way. Key
    /// lookups are rare, so the cost is nil.
    static let lock = NSLock()

    /// libsecret's functions (and GLib's, which it loads).
    private let functions: MigrationKitLibSecret
    /// How long the operation this value serves may wait for the Secret Service in all.
    let bound: Duration
    /// When that is over: each call waits for what is left of it.
    private let deadline: ContinuousClock.Instant
    /// Whether a call of this operation got no answer within `bound` (`gaveUp`).
    private let outcome = Outcome()

    /// What the calls of one operation found out about the Secret Service.
    private final class Outcome {
        var gaveUp = false
    }

    /// Whether a call of this operation got no answer within `bound`
    /// (`Failure.isOutOfTime`): the Secret Service is stopped or stuck, not merely
    /// refusing, so a batch of stores stops waiting for it.
    var gaveUp: Bool { outcome.gaveUp }

    /// libsecret, loaded by the first call in the process (later calls are cheap), for
    /// one operation whose calls to the Secret Service end within `bound` from now.
    /// - Throws: `Failure.unloaded`, with why in the dynamic loader's words (`message`).
    static func load(answeringWithin bound: Duration) throws(Failure) -> LibSecret {
        var reason = [CChar](repeating: 0, count: 512)
        guard let table = migrationkit_libsecret_load(&reason, reason.count) else {
            throw Failure.unloaded(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return LibSecret(functions: table.pointee, bound: bound, deadline: .now + bound)
    }

    /// A GError's content, copied out before `g_error_free`.
    struct Failure: Error {
        /// The GLib error domains the key store tells apart, and `unanswered`: no answer
        /// came before the deadline (no GLib error at all).
        enum Domain {
            case dbus, io, secret, unanswered
        }

        /// The domain's name, as GLib names it (e.g. `g-dbus-error-quark`).
        let domainName: String
        /// The domain, when it is one of those told apart.
        let domain: Domain?
        let code: Int32
        /// GLib's message, without the `GDBus.Error:NAME: ` that GDBus puts before an
        /// error the provider sent (that name is `remoteName`).
        let message: String
        /// The D-Bus error name the provider answered with, if it did.
        var remoteName: String? = nil

        /// GLib's identity of the error, for `--verbose`; nil for `unanswered`.
        var glibError: KeyError.GLibError? {
            domain == .unanswered ? nil : KeyError.GLibError(domain: domainName, code: code, remoteName: remoteName)
        }

        /// What the failure was, for "(…)" in a sentence: the provider's words, or that
        /// it did not answer in time.
        var explanation: String {
            domain == .unanswered ? message : "it said: \(message)"
        }

        /// libsecret could not be loaded: the dynamic loader's `reason` (no GLib error at all).
        static func unloaded(_ reason: String) -> Failure {
            Failure(domainName: "migrationkit", domain: nil, code: 0, message: reason)
        }

        /// GLib aborts on out-of-memory, so this is for NULL results it does not document.
        static func allocation(_ what: String) -> Failure {
            Failure(domainName: "migrationkit", domain: nil, code: 0, message: "libsecret could not create \(what)")
        }

        /// No answer within `bound`: the call was cancelled, or given up on.
        fileprivate static func unanswered(within bound: Duration) -> Failure {
            Failure(domainName: "migrationkit", domain: .unanswered, code: 0, message: "it did not answer within \(Bounded.seconds(bound))")
        }

        /// The Secret Service did not answer: nothing came before the deadline, D-Bus gave
        /// up waiting, or the provider left the bus with the request unanswered (it
        /// exited or restarted).
        var isUnanswered: Bool {
            isOutOfTime || isDBus(G_DBUS_ERROR_NO_REPLY)
        }

        /// The unanswered failures where the whole wait went by: nothing came before the
        /// deadline, or D-Bus or GIO gave up waiting. Not a provider that left the bus with
        /// the request unanswered, which says so at once (it exited or restarted, and the
        /// next request finds the new one, or none).
        var isOutOfTime: Bool {
            domain == .unanswered || isDBus(G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT) || isIOError(G_IO_ERROR_TIMED_OUT)
        }

        func isDBus(_ codes: GDBusError...) -> Bool {
            domain == .dbus && codes.contains { Int32(bitPattern: $0) == code }
        }

        func isSecretError(_ code: SecretError) -> Bool {
            domain == .secret && Int32(bitPattern: code) == self.code
        }

        func isIOError(_ code: GIOErrorEnum) -> Bool {
            domain == .io && Int32(bitPattern: code) == self.code
        }
    }

    /// Runs a call that reports failure through a `GError **`, turning the error into a
    /// thrown `Failure` (and freeing it).
    func call<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws(Failure) -> T {
        var error: UnsafeMutablePointer<GError>?
        let result = body(&error)
        if let error { throw failure(copying: error) }
        return result
    }

    /// The failure of a call that got no answer before the deadline.
    private func unanswered() -> Failure {
        noted(Failure.unanswered(within: bound))
    }

    /// `failure`, noted in `gaveUp` when it is out of time.
    private func noted(_ failure: Failure) -> Failure {
        if failure.isOutOfTime { outcome.gaveUp = true }
        return failure
    }

    /// A GError's content, the error freed; noted in `gaveUp` when it says time ran out.
    private func failure(copying error: UnsafeMutablePointer<GError>) -> Failure {
        let quark = error.pointee.domain
        let domain: Failure.Domain? = switch quark {
        case functions.g_dbus_error_quark(): .dbus
        case functions.g_io_error_quark(): .io
        case functions.secret_error_get_quark(): .secret
        default: nil
        }
        let remote = functions.g_dbus_error_get_remote_error(error)
        defer { functions.g_free(remote) }
        _ = functions.g_dbus_error_strip_remote_error(error)
        let failure = Failure(
            domainName: functions.g_quark_to_string(quark).map { String(cString: $0) } ?? "unknown-domain",
            domain: domain,
            code: error.pointee.code,
            message: error.pointee.message.map { String(cString: $0) } ?? "",
            remoteName: remote.map { String(cString: $0) })
        functions.g_error_free(error)
        return noted(failure)
    }

    /// Runs one asynchronous libsecret call to its end, or until the deadline, and
    /// returns what `finish` makes of its result.
    ///
    /// libsecret's *_sync calls are this same asynchronous call on a private main
    /// context, run until the result comes, which may be never. Here the context is
    /// iterated only until the deadline. Then the call's `GCancellable` is cancelled
    /// (GDBus ends a pending method call with `G_IO_ERROR_CANCELLED`; a prompt is
    /// dismissed) and the context is iterated a little longer (`Bounded.grace`) for the
    /// call to end cleanly. A call that does not end even then is given up on: its
    /// callbacks, GDBus's replies and signals included, run only when its context is
    /// iterated, which nothing does again, so it can never touch the process's state
    /// later (libsecret's and GDBus's own threads only queue work onto that context).
    /// What it holds stays allocated. No thread is left waiting, and the process goes
    /// on using GLib at once; a worker thread with a deadline would have left libsecret
    /// running on it.
    private func bounded<T>(_ start: (OpaquePointer?, GAsyncReadyCallback?, UnsafeMutableRawPointer?) -> Void,
                            finish: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws(Failure) -> T {
        guard let context = functions.g_main_context_new() else { throw Failure.allocation("a main context") }
        defer { functions.g_main_context_unref(context) }
        let cancellable = functions.g_cancellable_new()
        defer { functions.g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        // The call's callback writes here; freed only once it did.
        let completion = UnsafeMutablePointer<Bounded.Completion>.allocate(capacity: 1)
        completion.initialize(to: Bounded.Completion(reference: functions.g_object_ref))
        functions.g_main_context_push_thread_default(context)
        start(cancellable, Bounded.completed, UnsafeMutableRawPointer(completion))
        var cancelled = false
        if !iterate(context, until: deadline, completion) {
            cancelled = true
            functions.g_cancellable_cancel(cancellable)
            _ = iterate(context, until: .now + Bounded.grace, completion)
        }
        functions.g_main_context_pop_thread_default(context)
        guard let result = completion.pointee.result else { throw unanswered() }
        completion.deallocate()
        defer { functions.g_object_unref(UnsafeMutableRawPointer(result)) }
        var error: UnsafeMutablePointer<GError>?
        let value = finish(result, &error)
        guard let error else { return value }
        let failure = failure(copying: error)
        throw cancelled ? unanswered() : failure
    }

    /// Iterates `context` until the call's result came (true) or `deadline` passed.
    private func iterate(_ context: OpaquePointer, until deadline: ContinuousClock.Instant, _ completion: UnsafeMutablePointer<Bounded.Completion>) -> Bool {
        while completion.pointee.result == nil {
            let left = deadline - .now
            guard left > .zero else { return false }
            // Wakes the iteration at the deadline if nothing else does.
            let timer = functions.g_timeout_source_new(UInt32(clamping: left.wholeMillisecondsRoundedUp))
            functions.g_source_set_callback(timer, Bounded.wake, nil, nil)
            _ = functions.g_source_attach(timer, context)
            _ = functions.g_main_context_iteration(context, 1)
            functions.g_source_destroy(timer)
            functions.g_source_unref(timer)
        }
        return true
    }

    /// How many milliseconds are left for a plain D-Bus call; throws once none are.
    private func millisecondsLeft() throws(Failure) -> Int32 {
        let left = deadline - .now
        guard left > .zero else { throw unanswered() }
        return Int32(clamping: left.wholeMillisecondsRoundedUp)
    }

    /// Connects to the session bus (GLib caches the connection for the process), so "no
    /// bus at all" is told apart from every later failure without parsing messages.
    func connectToSessionBus() throws(Failure) {
        let connection = try call { functions.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }
        if let connection { functions.g_object_unref(UnsafeMutableRawPointer(connection)) }
    }

    /// A `GHashTable` of string attributes, as the *v_sync calls take; its keys and
    /// values are `g_strdup` copies released by `g_free` with the table.
    func withAttributes<T>(_ attributes: KeyValuePairs<String, String>, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let table = functions.g_hash_table_new_full(functions.g_str_hash, functions.g_str_equal, functions.g_free, functions.g_free) else {
            throw Failure.allocation("an attribute table")
        }
        defer { functions.g_hash_table_unref(table) }
        for (name, value) in attributes {
            _ = functions.g_hash_table_insert(table, UnsafeMutableRawPointer(functions.g_strdup(name)), UnsafeMutableRawPointer(functions.g_strdup(value)))
        }
        return try body(table)
    }

    /// A schema of string attributes with `SECRET_SCHEMA_DONT_MATCH_NAME`: lookups match
    /// on the attributes alone, so items stored by `secret-tool` or Python's `keyring`
    /// (which carry another `xdg:schema`, or none) are found too. When storing, libsecret
    /// records `name` as the item's `xdg:schema` attribute.
    func withSchema<T>(name: String, attributes: [String], _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let types = functions.g_hash_table_new_full(functions.g_str_hash, functions.g_str_equal, functions.g_free, nil) else {
            throw Failure.allocation("a schema")
        }
        for attribute in attributes {
            // The value is the attribute's type: SECRET_SCHEMA_ATTRIBUTE_STRING, i.e. 0.
            _ = functions.g_hash_table_insert(types, UnsafeMutableRawPointer(functions.g_strdup(attribute)), nil)
        }
        let schema = functions.secret_schema_newv(name, SECRET_SCHEMA_DONT_MATCH_NAME, types)
        functions.g_hash_table_unref(types)
        guard let schema else { throw Failure.allocation("a schema") }
        defer { functions.secret_schema_unref(schema) }
        return try body(schema)
    }

    /// One item a search found.
    struct FoundItem {
        /// Its D-Bus object path: what tells two items apart, whatever their attributes.
        let path: String
        /// Its secret, copied into wiped storage; nil when it is locked and could not be
        /// unlocked (its unlock prompt could not be shown, or was dismissed).
        let secret: SecretBytes?
    }

    /// Every item matching the attributes, locked ones included, each with its secret.
    /// Locked items are unlocked first (the provider may show its unlock prompt).
    ///
    /// Secrets are read as bytes, whatever their content type, because a passphrase may
    /// be any bytes (a text read gives nothing for one that is not UTF-8). libsecret keeps
    /// each value in its wiped, non-pageable memory until `secret_value_unref`.
    func search(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> [FoundItem] {
        let flags = SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS
        let list = try searchItems(schema: schema, attributes: attributes, flags: flags)
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        return items(in: list).map { item in
            var secret: SecretBytes?
            if functions.secret_item_get_locked(item) == 0, let value = functions.secret_item_get_secret(item) {
                defer { functions.secret_value_unref(UnsafeMutableRawPointer(value)) }
                var length = 0
                let bytes = functions.secret_value_get(value, &length)
                secret = bytes.map { SecretBytes(copying: UnsafeRawBufferPointer(start: $0, count: length)) } ?? SecretBytes(copying: [])
            }
            return FoundItem(path: path(of: item), secret: secret)
        }
    }

    /// `secret_password_searchv`: the matching `SecretItem`s, to release with the list.
    private func searchItems(schema: OpaquePointer, attributes: OpaquePointer, flags: SecretSearchFlags) throws(Failure) -> UnsafeMutablePointer<GList>? {
        try bounded({ functions.secret_password_searchv(schema, attributes, flags, $0, $1, $2) },
                    finish: { functions.secret_password_search_finish($0, $1) })
    }

    /// Creates a new `text/plain` item in the default collection, next to any item with
    /// the same attributes rather than over it, so that nothing is replaced before the new
    /// item is proven; returns its D-Bus object path. A locked default collection is
    /// unlocked first (the provider may show its prompt), as `secret_password_store` does.
    func create(schema: OpaquePointer, attributes: OpaquePointer, label: String, secret: UnsafeRawBufferPointer) throws(Failure) -> String {
        // The process's shared service (libsecret 0.20's alias lookup needs it given).
        let service = try bounded({ functions.secret_service_get(SECRET_SERVICE_OPEN_SESSION, $0, $1, $2) },
                                  finish: { functions.secret_service_get_finish($0, $1) })
        guard let service else { throw Failure.allocation("the Secret Service proxy") }
        defer { functions.g_object_unref(UnsafeMutableRawPointer(service)) }
        let collection = try bounded({ functions.secret_collection_for_alias(service, "default", SECRET_COLLECTION_NONE, $0, $1, $2) },
                                     finish: { functions.secret_collection_for_alias_finish($0, $1) })
        guard let collection else {
            throw Failure(domainName: "migrationkit", domain: nil, code: 0, message: "the Secret Service has no default keyring")
        }
        defer { functions.g_object_unref(UnsafeMutableRawPointer(collection)) }
        // secret_value_new copies the bytes into libsecret's wiped memory.
        guard let value = functions.secret_value_new(secret.baseAddress?.assumingMemoryBound(to: CChar.self), secret.count, "text/plain") else {
            throw Failure.allocation("the secret value")
        }
        defer { functions.secret_value_unref(UnsafeMutableRawPointer(value)) }
        let create = { () throws(Failure) -> OpaquePointer? in
            try bounded({ functions.secret_item_create(collection, schema, attributes, label, value, SECRET_ITEM_CREATE_NONE, $0, $1, $2) },
                        finish: { functions.secret_item_create_finish($0, $1) })
        }
        var created: OpaquePointer?
        do {
            created = try create()
        } catch where error.isSecretError(SECRET_ERROR_IS_LOCKED) {
            try unlock(collection, in: service)
            created = try create()
        }
        guard let created else { throw Failure.allocation("the item") }
        defer { functions.g_object_unref(UnsafeMutableRawPointer(created)) }
        return path(of: created)
    }

    /// Asks the provider to unlock `object` (it may show a prompt); an unlock that did not
    /// happen leaves the next call to say the object is locked.
    private func unlock(_ object: OpaquePointer, in service: OpaquePointer) throws(Failure) {
        let objects = functions.g_list_append(nil, UnsafeMutableRawPointer(object))
        defer { functions.g_list_free(objects) }
        var unlocked: UnsafeMutablePointer<GList>?
        defer { functions.g_list_free_full(unlocked, functions.g_object_unref) }
        _ = try bounded({ functions.secret_service_unlock(service, objects, $0, $1, $2) },
                        finish: { functions.secret_service_unlock_finish(service, $0, &unlocked, $1) })
    }

    /// Deletes the items matching the attributes for which `delete` says so, given their
    /// D-Bus object path; returns how many it deleted.
    func deleteItems(schema: OpaquePointer, attributes: OpaquePointer, where delete: (String) -> Bool) throws(Failure) -> Int {
        let list = try searchItems(schema: schema, attributes: attributes, flags: SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK)
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        var deleted = 0
        for item in items(in: list) where delete(path(of: item)) {
            _ = try bounded({ functions.secret_item_delete(item, $0, $1, $2) }, finish: { functions.secret_item_delete_finish(item, $0, $1) })
            deleted += 1
        }
        return deleted
    }

    /// How many items match the attributes, locked ones included (no unlock is tried).
    func countItems(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> Int {
        let list = try searchItems(schema: schema, attributes: attributes, flags: SECRET_SEARCH_ALL)
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        return Int(functions.g_list_length(list))
    }

    /// Deletes every item matching the attributes; false when none matched (or the only
    /// matches are locked and could not be unlocked).
    func clear(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> Bool {
        try bounded({ functions.secret_password_clearv(schema, attributes, $0, $1, $2) },
                    finish: { functions.secret_password_clear_finish($0, $1) }) != 0
    }

    /// The `SecretItem`s of a search's list (every element is one; checked all the same).
    private func items(in list: UnsafeMutablePointer<GList>?) -> [OpaquePointer] {
        var items: [OpaquePointer] = []
        var node = list
        while let current = node {
            node = current.pointee.next
            guard let object = current.pointee.data.map(OpaquePointer.init),
                  functions.g_type_check_instance_is_a(object, functions.secret_item_get_type()) != 0
            else { continue }
            items.append(object)
        }
        return items
    }

    /// An item's D-Bus object path (a `SecretItem` is a `GDBusProxy`).
    private func path(of item: OpaquePointer) -> String {
        functions.g_dbus_proxy_get_object_path(item).map { String(cString: $0) } ?? ""
    }

    // MARK: - Collections, read as D-Bus properties

    /// A collection (a keyring: GNOME Keyring's "login", a KeePassXC database).
    struct Collection {
        let path: String
        /// What keyring managers show; empty when the provider did not say.
        let label: String
        let isLocked: Bool
    }

    /// The Secret Service's collections and whether each is locked, read straight from the
    /// provider's D-Bus properties: never through libsecret's cached proxies, which would
    /// not see a keyring locked or unlocked since, and never through a call that could
    /// wait for a person (KeePassXC answers a search while every database is locked only
    /// once someone unlocks one, or after D-Bus gives up, 25 seconds later).
    func collections() throws(Failure) -> [Collection] {
        let connection = try call { functions.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }
        defer { if let connection { functions.g_object_unref(UnsafeMutableRawPointer(connection)) } }
        guard let connection else { throw Failure.allocation("a bus connection") }
        let paths: [String] = try property(connection, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Collections", type: "ao") { value in
            (0..<functions.g_variant_n_children(value)).map { index -> String in
                let child = functions.g_variant_get_child_value(value, index)
                defer { functions.g_variant_unref(child) }
                return functions.g_variant_get_string(child, nil).map { String(cString: $0) } ?? ""
            }
        } ?? []
        var collections: [Collection] = []
        for path in paths {
            // A collection that went away in between, or will not say, is left out; a
            // provider that stopped answering is not a keyring less.
            let locked: Bool? = try answered { () throws(Failure) -> Bool? in
                try property(connection, path, "org.freedesktop.Secret.Collection", "Locked", type: "b") { functions.g_variant_get_boolean($0) != 0 }
            }
            guard let locked else { continue }
            let label: String? = try answered { () throws(Failure) -> String? in
                try property(connection, path, "org.freedesktop.Secret.Collection", "Label", type: "s") { value in
                    functions.g_variant_get_string(value, nil).map { String(cString: $0) }
                }
            }
            collections.append(Collection(path: path, label: label ?? "", isLocked: locked))
        }
        return collections
    }

    /// `body`'s value, nil when the provider refused it; a provider that did not answer
    /// is thrown.
    private func answered<T>(_ body: () throws(Failure) -> T?) throws(Failure) -> T? {
        do {
            return try body()
        } catch where error.isUnanswered {
            throw error
        } catch {
            return nil
        }
    }

    /// `org.freedesktop.DBus.Properties.Get` of one property of a Secret Service object,
    /// read by `read` when its value has the D-Bus type `type`; nil for another type.
    private func property<T>(_ connection: OpaquePointer, _ path: String, _ interface: String, _ name: String, type: String,
                             _ read: (OpaquePointer) -> T?) throws(Failure) -> T? {
        let children = [functions.g_variant_new_string(interface), functions.g_variant_new_string(name)]
        // The call takes the floating parameters; the reply is ours to release.
        let parameters = children.withUnsafeBufferPointer { functions.g_variant_new_tuple($0.baseAddress, 2) }
        // A plain D-Bus call, bounded by its own timeout: what is left of the deadline.
        let timeout = try millisecondsLeft()
        let reply = try call {
            functions.g_dbus_connection_call_sync(connection, "org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties", "Get",
                                                  parameters, nil, G_DBUS_CALL_FLAGS_NONE, timeout, nil, $0)
        }
        guard let reply else { return nil }
        defer { functions.g_variant_unref(reply) }
        guard typeString(reply) == "(v)", let boxed = functions.g_variant_get_child_value(reply, 0) else { return nil }
        defer { functions.g_variant_unref(boxed) }
        guard let value = functions.g_variant_get_variant(boxed) else { return nil }
        defer { functions.g_variant_unref(value) }
        return typeString(value) == type ? read(value) : nil
    }

    private func typeString(_ value: OpaquePointer) -> String {
        functions.g_variant_get_type_string(value).map { String(cString: $0) } ?? ""
    }
}

/// What `LibSecret`'s bounded calls share: the C callbacks, which capture nothing.
enum Bounded {
    /// How long a call cancelled at its deadline is given to end cleanly (a prompt
    /// dismissed, a pending D-Bus call ended) before it is given up on.
    static let grace: Duration = .milliseconds(500)

    /// Where an asynchronous call's callback puts its result.
    struct Completion {
        /// `g_object_ref`, which the callback cannot capture.
        let reference: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        /// The call's `GAsyncResult`, referenced; nil until it ends.
        var result: OpaquePointer?
    }

    /// The `GAsyncReadyCallback` of every bounded call: keeps the result for `finish`.
    static let completed: GAsyncReadyCallback = { _, result, data in
        guard let completion = data?.assumingMemoryBound(to: Completion.self) else { return }
        completion.pointee.result = completion.pointee.reference(UnsafeMutableRawPointer(result)).map(OpaquePointer.init)
    }

    /// The deadline's timer: it only wakes the iteration, once.
    static let wake: GSourceFunc = { _ in 0 }

    /// "3 s", "1.5 s": a bound as a sentence says it.
    static func seconds(_ bound: Duration) -> String {
        let milliseconds = bound.wholeMillisecondsRoundedUp
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}


import CLibSecretLoader
import Foundation
import MigrationKitSecrets

/// Thin, internal wrappers over the libsecret and GLib calls `SecretServiceKeyStore` makes,
/// through the functions `CLibSecretLoader` finds when the Secret Service is first used.
///
/// Each wrapper owns what it allocates: hash tables, schemas, secret values and errors
/// are released before it returns, and a GError is copied (domain, code, message) and
/// freed on the spot, so no GLib memory escapes into Swift.
struct LibSecret {
    /// One libsecret call at a time in this process. libsecret's *_sync calls each spin
    /// their own main context, but share one cached `SecretService` proxy; serializing
    /// them keeps GLib's per-context machinery out of Swift's thread pool's way. Key
    /// lookups are rare, so the cost is nil.
    static let lock = NSLock()

    /// libsecret's functions (and GLib's, which it loads).
    private let functions: MigrationKitLibSecret

    /// Why libsecret could not be loaded, in the dynamic loader's words.
    struct LoadFailure: Error {
        let reason: String
    }

    /// libsecret, loaded by the first call in the process; later calls are cheap.
    static func load() throws(LoadFailure) -> LibSecret {
        var reason = [CChar](repeating: 0, count: 512)
        guard let table = migrationkit_libsecret_load(&reason, reason.count) else {
            throw LoadFailure(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return LibSecret(functions: table.pointee)
    }

    /// A GError's content, copied out before `g_error_free`.
    struct Failure: Error {
        /// The GLib error domains the key store tells apart.
        enum Domain {
            case dbus, io, secret
        }

        /// The domain's name, as GLib names it (e.g. `g-dbus-error-quark`).
        let domainName: String
        /// The domain, when it is one of those told apart.
        let domain: Domain?
        let code: Int32
        let message: String

        var glibError: KeyError.GLibError { KeyError.GLibError(domain: domainName, code: code) }

        /// GLib aborts on out-of-memory, so this is for NULL results it does not document.
        static func allocation(_ what: String) -> Failure {
            Failure(domainName: "migrationkit", domain: nil, code: 0, message: "libsecret could not create \(what)")
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
        if let error {
            let quark = error.pointee.domain
            let domain: Failure.Domain? = switch quark {
            case functions.g_dbus_error_quark(): .dbus
            case functions.g_io_error_quark(): .io
            case functions.secret_error_get_quark(): .secret
            default: nil
            }
            let failure = Failure(
                domainName: functions.g_quark_to_string(quark).map { String(cString: $0) } ?? "unknown-domain",
                domain: domain,
                code: error.pointee.code,
                message: error.pointee.message.map { String(cString: $0) } ?? "")
            functions.g_error_free(error)
            throw failure
        }
        return result
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
        let list = try call { functions.secret_password_searchv_sync(schema, attributes, flags, nil, $0) }
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

    /// Creates a new `text/plain` item in the default collection, next to any item with
    /// the same attributes rather than over it, so that nothing is replaced before the new
    /// item is proven; returns its D-Bus object path. A locked default collection is
    /// unlocked first (the provider may show its prompt), as `secret_password_store` does.
    func create(schema: OpaquePointer, attributes: OpaquePointer, label: String, secret: UnsafeRawBufferPointer) throws(Failure) -> String {
        // The process's shared service (libsecret 0.20's alias lookup needs it given).
        guard let service = try call({ functions.secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, nil, $0) }) else {
            throw Failure.allocation("the Secret Service proxy")
        }
        defer { functions.g_object_unref(UnsafeMutableRawPointer(service)) }
        guard let collection = try call({ functions.secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE, nil, $0) }) else {
            throw Failure(domainName: "migrationkit", domain: nil, code: 0, message: "the Secret Service has no default keyring")
        }
        defer { functions.g_object_unref(UnsafeMutableRawPointer(collection)) }
        // secret_value_new copies the bytes into libsecret's wiped memory.
        guard let value = functions.secret_value_new(secret.baseAddress?.assumingMemoryBound(to: CChar.self), secret.count, "text/plain") else {
            throw Failure.allocation("the secret value")
        }
        defer { functions.secret_value_unref(UnsafeMutableRawPointer(value)) }
        let create = { () throws(Failure) -> OpaquePointer? in
            try call { functions.secret_item_create_sync(collection, schema, attributes, label, value, SECRET_ITEM_CREATE_NONE, nil, $0) }
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
        _ = try call { functions.secret_service_unlock_sync(service, objects, nil, &unlocked, $0) }
        functions.g_list_free_full(unlocked, functions.g_object_unref)
    }

    /// Deletes the items matching the attributes for which `delete` says so, given their
    /// D-Bus object path; returns how many it deleted.
    func deleteItems(schema: OpaquePointer, attributes: OpaquePointer, where delete: (String) -> Bool) throws(Failure) -> Int {
        let list = try call { functions.secret_password_searchv_sync(schema, attributes, SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK, nil, $0) }
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        var deleted = 0
        for item in items(in: list) where delete(path(of: item)) {
            _ = try call { functions.secret_item_delete_sync(item, nil, $0) }
            deleted += 1
        }
        return deleted
    }

    /// How many items match the attributes, locked ones included (no unlock is tried).
    func countItems(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> Int {
        let list = try call { functions.secret_password_searchv_sync(schema, attributes, SECRET_SEARCH_ALL, nil, $0) }
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        return Int(functions.g_list_length(list))
    }

    /// Deletes every item matching the attributes; false when none matched (or the only
    /// matches are locked and could not be unlocked).
    func clear(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> Bool {
        try call { functions.secret_password_clearv_sync(schema, attributes, nil, $0) } != 0
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
        return paths.compactMap { path -> Collection? in
            // A collection that went away in between, or will not say, is left out.
            let locked: Bool? = try? property(connection, path, "org.freedesktop.Secret.Collection", "Locked", type: "b") { value in
                functions.g_variant_get_boolean(value) != 0
            }
            guard let locked else { return nil }
            let label: String? = try? property(connection, path, "org.freedesktop.Secret.Collection", "Label", type: "s") { value in
                functions.g_variant_get_string(value, nil).map { String(cString: $0) }
            }
            return Collection(path: path, label: label ?? "", isLocked: locked)
        }
    }

    /// `org.freedesktop.DBus.Properties.Get` of one property of a Secret Service object,
    /// read by `read` when its value has the D-Bus type `type`; nil for another type.
    private func property<T>(_ connection: OpaquePointer, _ path: String, _ interface: String, _ name: String, type: String,
                             _ read: (OpaquePointer) -> T?) throws(Failure) -> T? {
        let children = [functions.g_variant_new_string(interface), functions.g_variant_new_string(name)]
        // The call takes the floating parameters; the reply is ours to release.
        let parameters = children.withUnsafeBufferPointer { functions.g_variant_new_tuple($0.baseAddress, 2) }
        let reply = try call {
            functions.g_dbus_connection_call_sync(connection, "org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties", "Get",
                                                  parameters, nil, G_DBUS_CALL_FLAGS_NONE, -1, nil, $0)
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

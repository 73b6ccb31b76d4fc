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

    /// The secret of the first unlocked item matching the attributes, copied into wiped
    /// storage; nil when there is none (absent, or locked and the unlock prompt failed).
    ///
    /// The binary variant is used rather than `secret_password_lookupv_sync`, because a
    /// text lookup returns NULL for a secret whose content type is not `text/plain`
    /// and is not valid UTF-8, and a passphrase may be any bytes. libsecret keeps the
    /// value in its wiped, non-pageable memory until `secret_value_unref`.
    func lookup(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> SecretBytes? {
        guard let value = try call({ functions.secret_password_lookupv_binary_sync(schema, attributes, nil, $0) }) else {
            return nil
        }
        defer { functions.secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length = 0
        guard let bytes = functions.secret_value_get(value, &length) else { return SecretBytes(copying: []) }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// How many items match the attributes, locked ones included (no unlock is tried).
    func countItems(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> Int {
        let list = try call { functions.secret_password_searchv_sync(schema, attributes, SECRET_SEARCH_ALL, nil, $0) }
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        return Int(functions.g_list_length(list))
    }

    /// Stores `secret` as a `text/plain` item in the default collection. The provider
    /// replaces an existing item instead of adding one when that item's attributes
    /// include all of these (gnome-keyring's rule), which covers this type's own items.
    func store(schema: OpaquePointer, attributes: OpaquePointer, label: String, secret: UnsafeRawBufferPointer) throws(Failure) {
        // secret_value_new copies the bytes into libsecret's wiped memory.
        guard let value = functions.secret_value_new(secret.baseAddress?.assumingMemoryBound(to: CChar.self), secret.count, "text/plain") else {
            throw Failure.allocation("the secret value")
        }
        defer { functions.secret_value_unref(UnsafeMutableRawPointer(value)) }
        _ = try call { functions.secret_password_storev_binary_sync(schema, attributes, nil, label, value, nil, $0) }
    }

    /// Deletes the items matching the attributes whose `xdg:schema` is not `schemaName`
    /// (e.g. one `secret-tool` stored, which has none), returning how many were deleted.
    func deleteItems(schema: OpaquePointer, attributes: OpaquePointer, notOfSchema schemaName: String) throws(Failure) -> Int {
        let list = try call { functions.secret_password_searchv_sync(schema, attributes, SECRET_SEARCH_ALL, nil, $0) }
        defer { functions.g_list_free_full(list, functions.g_object_unref) }
        var deleted = 0
        var node = list
        while let current = node {
            defer { node = current.pointee.next }
            guard let object = current.pointee.data.map(OpaquePointer.init),
                  functions.g_type_check_instance_is_a(object, functions.secret_item_get_type()) != 0
            else { continue }
            guard itemSchemaName(object) != schemaName else { continue }
            _ = try call { functions.secret_item_delete_sync(object, nil, $0) }
            deleted += 1
        }
        return deleted
    }

    /// An item's `xdg:schema` attribute (attributes are readable even when it is locked).
    private func itemSchemaName(_ retrievable: OpaquePointer) -> String? {
        guard let attributes = functions.secret_retrievable_get_attributes(retrievable) else { return nil }
        defer { functions.g_hash_table_unref(attributes) }
        return "xdg:schema".withCString { name in
            functions.g_hash_table_lookup(attributes, name).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
        }
    }

    /// Deletes every item matching the attributes; false when none matched (or the only
    /// matches are locked and could not be unlocked).
    func clear(schema: OpaquePointer, attributes: OpaquePointer) throws(Failure) -> Bool {
        try call { functions.secret_password_clearv_sync(schema, attributes, nil, $0) } != 0
    }
}

import MigrationKit

/// What a connection is given of what only the database's app registers, so that SQLite
/// can read and use what its schema names: built-in collations standing in for the
/// app's (`--collation`), the app's extensions (`--load-extension`), and a host's own
/// registrations (`SQLCipherConfiguration.prepareDatabase`). Every connection a command
/// opens — the database, its copies, backups and scratch files — gets the same.
package struct AppRegistrations: Sendable {
    /// Built-in collations under the names of the app's, by lower-cased name.
    package var collationStandIns: [String: CollationStandIn] = [:]
    /// Loaded in order, once the connection is keyed.
    package var extensions: [LoadableExtension] = []
    /// Runs after the extensions are loaded.
    var prepareDatabase: (@Sendable (SQLCipherDatabase) throws -> Void)?

    package init(collationStandIns: [String: CollationStandIn] = [:], extensions: [LoadableExtension] = [],
                 prepareDatabase: (@Sendable (SQLCipherDatabase) throws -> Void)? = nil) {
        self.collationStandIns = collationStandIns
        self.extensions = extensions
        self.prepareDatabase = prepareDatabase
    }

    /// Loads the extensions into `database`, then runs `prepareDatabase` on it.
    func register(on database: SQLCipherDatabase) throws {
        for library in extensions { try database.loadExtension(library) }
        try prepareDatabase?(database)
    }
}

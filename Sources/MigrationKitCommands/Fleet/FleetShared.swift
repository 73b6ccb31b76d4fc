import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys
import MigrationKitSecrets

/// What a fleet's databases share, made once by whichever database asks first and
/// reused by every other — the result or the failure:
///
/// - a key from a source without `{name}` (a key file, the environment, a Secret
///   Service item, a prompt): a prompt is asked once, not once per tenant, and standard
///   input (`--password-file -`) can only be read once anyway. A source with `{name}` is
///   each database's own and never comes here;
/// - the migrations: the folder is read and checksummed once, and every database is
///   judged against the same files even if the folder changes during the run.
package final class FleetShared: @unchecked Sendable {
    /// Which key of a command: the one that opens the database, or the one `rekey`
    /// changes it to.
    package enum Role: Hashable {
        case current, new
    }

    /// How many databases share the keys, for the prompt.
    let databaseCount: Int
    /// The folder `{path}` is taken under, for the databases a pattern matched
    /// (`FleetDatabases.roots`).
    private let roots: [String: String]
    private let lock = NSLock()
    private var resolved: [Role: Result<DatabaseKey?, any Error>] = [:]
    private var migrations: Result<LoadedMigrations, any Error>?

    init(databaseCount: Int, roots: [String: String] = [:]) {
        self.databaseCount = databaseCount
        self.roots = roots
    }

    /// The folder `{path}` is taken under for the database at `path`, when a pattern
    /// matched it.
    func root(of path: String) -> String? { roots[path] }

    /// The prompt for a key every database shares.
    package func promptMessage(_ role: Role) -> String {
        "\(role == .new ? "New key" : "Key") for the \(FleetSummary.databases(databaseCount)): "
    }

    /// The key for `role`: `read` runs once, under the lock, so a second database waits
    /// for the first one's prompt instead of asking again.
    package func key(_ role: Role, read: () throws -> DatabaseKey?) throws -> DatabaseKey? {
        try lock.withLock {
            if let known = resolved[role] { return try known.get() }
            let result = Result { try read() }
            resolved[role] = result
            return try result.get()
        }
    }

    /// The migrations every database of the run is judged against: `load` runs once.
    package func migrations(load: () throws -> LoadedMigrations) throws -> LoadedMigrations {
        try lock.withLock {
            if let known = migrations { return try known.get() }
            let result = Result { try load() }
            migrations = result
            return try result.get()
        }
    }
}

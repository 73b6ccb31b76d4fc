import Foundation
import MigrationKitKeys

/// The keys a fleet's databases share: a key source without `{name}` (a key file, the
/// environment, a Secret Service item, a prompt) is read once for the whole fleet, by
/// whichever database asks first, and every other database reuses what it gave — the
/// key or the failure. A prompt is asked once, not once per tenant, and standard input
/// (`--password-file -`) can only be read once anyway.
///
/// A source with `{name}` is each database's own and never comes here.
final class FleetKeys: @unchecked Sendable {
    /// Which key of a command: the one that opens the database, or the one `rekey`
    /// changes it to.
    enum Role: Hashable {
        case current, new
    }

    /// How many databases share the keys, for the prompt.
    let databaseCount: Int
    private let lock = NSLock()
    private var resolved: [Role: Result<DatabaseKey?, any Error>] = [:]

    init(databaseCount: Int) {
        self.databaseCount = databaseCount
    }

    /// The prompt for a key every database shares.
    func promptMessage(_ role: Role) -> String {
        "\(role == .new ? "New key" : "Key") for the \(FleetSummary.databases(databaseCount)): "
    }

    /// The key for `role`: `read` runs once, under the lock, so a second database waits
    /// for the first one's prompt instead of asking again.
    func key(_ role: Role, read: () throws -> DatabaseKey?) throws -> DatabaseKey? {
        try lock.withLock {
            if let known = resolved[role] { return try known.get() }
            let result = Result { try read() }
            resolved[role] = result
            return try result.get()
        }
    }
}

import Foundation
import MigrationKit

/// Whether a database's schema is what its applied migrations make: drift, such as an
/// index added by hand on a production copy, or a column an old app version added.
///
/// The applied steps run on an empty scratch database (in a private temporary folder,
/// encrypted with a random key, deleted afterwards); its schema is compared with the
/// database's through `SchemaDifference`. The database itself is only read.
public struct SchemaDrift: Sendable {
    /// What was compared, and how the schemas differ (empty: no drift).
    public struct Report: Sendable {
        /// The applied migrations the expected schema was made from, in order.
        public let applied: [String]
        /// Applied migrations whose files changed since: the expected schema is made
        /// from the files as they are now.
        public let modified: [String]
        /// The database's schema against the migrations' (`actual` is the database's).
        public let differences: [SchemaDifference]
    }

    /// Why there is no schema to compare with.
    public enum Refusal: LocalizedError, Hashable, Sendable, CustomStringConvertible {
        /// The ledger names migrations these steps do not have.
        case unknownApplied([String])
        /// Steps before the latest applied one are not applied: the steps in order do
        /// not make this database.
        case pendingBeforeLatestApplied(pending: [String], latestApplied: String)

        public var description: String {
            switch self {
            case .unknownApplied(let identifiers):
                return "The database has applied migrations the runner does not have (\(identifiers.joined(separator: ", "))), so their schema cannot be made; use the runner whose steps migrated it."
            case .pendingBeforeLatestApplied(let pending, let latest):
                return "The database has migrations before its latest applied one (\(latest)) that are not applied (\(pending.joined(separator: ", "))), so the migrations in order do not make it; apply them first (the runner's `allowOutOfOrder`)."
            }
        }

        /// `description`, for `localizedDescription`.
        public var errorDescription: String? { description }
    }

    /// The runner whose steps make the expected schema, observer removed (quiet).
    public let runner: SQLCipherMigrationRunner

    /// A drift check against `runner`'s steps (its observer is not called: the scratch
    /// database's migrations are not the user's).
    public init(runner: SQLCipherMigrationRunner) {
        var quiet = runner
        quiet.observer = nil
        self.runner = quiet
    }

    /// Compares the schema of the database `writer` opens with what its applied steps
    /// make on an empty database.
    /// - Throws: `Refusal` when the steps cannot make this database's schema; an error
    ///   of a step, if one fails on the empty database.
    public func check(_ writer: SQLCipherWriter) throws -> Report {
        let status = try runner.migrationStatus(in: writer)
        if !status.unknownApplied.isEmpty { throw Refusal.unknownApplied(status.unknownApplied) }
        let applied = status.applied
        let gaps = status.outOfOrder + status.partlyMerged
        if let latest = applied.last, !gaps.isEmpty {
            throw Refusal.pendingBeforeLatestApplied(pending: gaps, latestApplied: latest)
        }
        let scratch = try ScratchFolder(purpose: "diff")
        defer { withExtendedLifetime(scratch) {} }
        let key = ScratchFolder.randomKey()
        let expected = try SQLCipherWriter(path: scratch.path + "/expected.db", key: key)
        if let latest = applied.last { try runner.migrate(in: expected, upTo: latest) }
        let expectedObjects = try expected.read { try SchemaDump.objects(in: $0) }
        let actualObjects = try writer.read { try SchemaDump.objects(in: $0) }
        return Report(applied: applied, modified: status.modified,
                      differences: SchemaDifference.between(expected: expectedObjects, actual: actualObjects))
    }
}

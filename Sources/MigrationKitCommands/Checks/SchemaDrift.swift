import Foundation
import MigrationKit

/// Whether a database's schema is what its applied migrations make: drift, such as an
/// index added by hand on a production copy, or a column an old app version added.
///
/// The applied steps run on an empty scratch database (the layer's replay,
/// `MigrationSession.replayedSchema(upTo:)`: on SQLCipher the one erase-on-schema-change
/// compares with); its schema is compared with the database's through
/// `SchemaDifference`, as erase-on-schema-change compares. The database itself is only read.
package enum SchemaDrift {
    /// What was compared, and how the schemas differ (empty: no drift).
    package struct Report: Sendable {
        /// The applied migrations the expected schema was made from, in order.
        package let applied: [String]
        /// Applied migrations whose files changed since: the expected schema is made
        /// from the files as they are now.
        package let modified: [String]
        /// The database's schema against the migrations' (`actual` is the database's).
        package let differences: [SchemaDifference]
    }

    /// Why there is no schema to compare with.
    package enum Refusal: LocalizedError, Hashable, Sendable, CustomStringConvertible {
        /// The ledger names migrations these steps do not have.
        case unknownApplied([String])
        /// Steps before the latest applied one are not applied: the steps in order do
        /// not make this database.
        case pendingBeforeLatestApplied(pending: [String], latestApplied: String)

        package var description: String {
            switch self {
            case .unknownApplied(let identifiers):
                return "The database has applied migrations the runner does not have (\(identifiers.joined(separator: ", "))), so their schema cannot be made; use the runner whose steps migrated it."
            case .pendingBeforeLatestApplied(let pending, let latest):
                return "The database has migrations before its latest applied one (\(latest)) that are not applied (\(pending.joined(separator: ", "))), so the migrations in order do not make it; apply them first (the runner's `allowOutOfOrder`)."
            }
        }

        /// `description`, for `localizedDescription`.
        package var errorDescription: String? { description }
    }

    /// An applied migration failed on the empty scratch database the expected schema is
    /// made in: the migrations do not make this database's schema from nothing (as when
    /// another app made its first tables), or the file was edited after it was applied.
    /// The scratch database's transaction was rolled back; the database was only read.
    package struct ReplayFailure: Error, CustomStringConvertible {
        /// The step's failure on the scratch database.
        package let failure: MigrationStepError
        /// Whether the failing migration was edited after the database applied it.
        package let edited: Bool
        /// The latest migration the database has applied: `baseline --to` it records a
        /// new first migration, one that makes the tables another app made, as applied.
        package let latestApplied: String

        /// Where it failed, as a compiler says it ("Migrations/0002_x.sql:3"), or its
        /// identifier for a step from no file.
        package var place: String {
            guard let file = failure.sourceFile else { return failure.identifier }
            return failure.line.map { "\(file):\($0)" } ?? file
        }

        /// What failed there: SQLite's words and the statement, or what the step threw.
        package var reason: String {
            if let explanation = failure.explanation { return explanation.cause }
            return (failure.underlying as? any DatabaseStatementError)?.statementFailure ?? "\(failure.underlying)"
        }

        package var description: String {
            "Migration \"\(failure.identifier)\" failed on the empty scratch database where its applied migrations are replayed (\(place): \(reason)); the database itself was only read."
        }
    }

    /// Compares the schema of the session's database with what its applied steps make
    /// on an empty database.
    /// - Throws: `Refusal` when the steps cannot make this database's schema;
    ///   `ReplayFailure` when one fails on the empty database.
    package static func check(_ session: MigrationSession) throws -> Report {
        let status = try session.status()
        if !status.unknownApplied.isEmpty { throw Refusal.unknownApplied(status.unknownApplied) }
        let applied = status.applied
        let gaps = status.outOfOrder + status.partlyMerged
        if let latest = applied.last, !gaps.isEmpty {
            throw Refusal.pendingBeforeLatestApplied(pending: gaps, latestApplied: latest)
        }
        return Report(applied: applied, modified: status.modified,
                      differences: try differences(of: session, upTo: applied.last, modified: status.modified))
    }

    /// How the schema of `database` differs from what the steps up to `target` (none
    /// when nil) make on an empty database; empty when it is that schema. Also
    /// `baseline`'s proof that recording those steps as applied leaves nothing missing.
    ///
    /// - Parameter modified: the applied steps whose files changed since, for the
    ///   sentence of a step that fails on the empty database (`ReplayFailure`).
    package static func differences(of database: MigrationSession, upTo target: String?, modified: [String] = []) throws -> [SchemaDifference] {
        let expected: [SchemaDump.Object]
        do {
            expected = try database.replayedSchema(upTo: target)
        } catch let failure as MigrationStepError {
            throw ReplayFailure(failure: failure, edited: modified.contains(failure.identifier), latestApplied: target ?? failure.identifier)
        }
        let actual = try database.read { try SchemaDump.objects(in: $0) }
        return SchemaDifference.between(expected: expected, actual: actual)
    }
}

import Foundation
import MigrationKit

/// Whether a database's schema is what its applied migrations make: drift, such as an
/// index added by hand on a production copy, or a column an old app version added.
///
/// The applied steps run on an empty scratch database (the layer's replay,
/// `MigrationSession.replayedSchema(upTo:)`: on SQLCipher the one erase-on-schema-change
/// compares with); its schema is compared with the database's through
/// `SchemaDifference`, as erase-on-schema-change compares. The database itself is only read.
enum SchemaDrift {
    /// What was compared, and how the schemas differ (empty: no drift).
    package struct Report: Sendable {
        /// The applied migrations the expected schema was made from, in order.
        package let applied: [String]
        /// Applied migrations whose files changed since: the expected schema is made
        /// from the files as they are now.
        let modified: [String]
        /// The database's schema against the migrations' (`actual` is the database's).
        let differences: [SchemaDifference]
    }

    /// Why there is no schema to compare with (drift's cases of the one schema refusal).
    package typealias Refusal = SchemaRefusal

    /// Compares the schema of the session's database with what its applied steps make
    /// on an empty database.
    /// - Throws: `Refusal` when the steps cannot make this database's schema, or one
    ///   fails on the empty database (`replayFailed`).
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
    ///   sentence of a step that fails on the empty database (`Refusal.replayFailed`).
    static func differences(of database: MigrationSession, upTo target: String?, modified: [String] = []) throws -> [SchemaDifference] {
        let expected: [SchemaDump.Object]
        do {
            expected = try database.replayedSchema(upTo: target)
        } catch let failure as MigrationStepError {
            throw Refusal.replayFailed(Refusal.ReplayFailure(failure: failure, edited: modified.contains(failure.identifier), latestApplied: target ?? failure.identifier))
        }
        let actual = try database.read { try SchemaDump.objects(in: $0) }
        return SchemaDifference.between(expected: expected, actual: actual)
    }
}

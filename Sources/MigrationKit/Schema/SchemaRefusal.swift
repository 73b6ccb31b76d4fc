import Foundation

/// Why a schema cannot be proven on a scratch database, and so nothing is shown: the
/// drift a database's applied migrations should make (`diff`, `baseline`'s proof), or the
/// migration to a desired schema (`diff --to`). Every refusal of both proofs is one of
/// these, worded here in the library's words; a command line words each in its own.
package enum SchemaRefusal: LocalizedError, CustomStringConvertible {
    // What a database's applied migrations should make (drift).
    /// The ledger names migrations these steps do not have.
    case unknownApplied([String])
    /// Steps before the latest applied one are not applied: the steps in order do
    /// not make this database.
    case pendingBeforeLatestApplied(pending: [String], latestApplied: String)
    /// An applied step failed on the empty scratch database.
    case replayFailed(ReplayFailure)

    // The migration to a desired schema.
    /// The desired schema's statements fail on an empty database: the line of the
    /// one that failed, and SQLite's words.
    case desiredSchemaFails(String)
    /// The desired schema holds statements that are not a `CREATE` (an `INSERT`, a
    /// `PRAGMA`, an `ATTACH`, …): each one's line and first word, in order. A schema
    /// file is run on a scratch database, and only what makes a schema belongs in it.
    case notSchemaStatements([(line: Int, word: String)])
    /// The migration would lose rows or values: one phrase per change.
    case destructive([String])
    /// The migration fails on a scratch copy of the current schema (its words).
    case migrationFails(String)
    /// Applied, the migration does not give the desired schema: what still differs
    /// (`expected` is the desired schema's).
    case notExpressed([SchemaDifference])
    /// Rolled back, it does not give the current schema back (`expected` is the
    /// current schema's).
    case notReversed([SchemaDifference])
    /// Lint finds errors in it.
    case lintErrors([LintFinding])

    package var description: String {
        switch self {
        case .unknownApplied(let identifiers):
            return "The database has applied migrations the runner does not have (\(identifiers.joined(separator: ", "))), so their schema cannot be made; use the runner whose steps migrated it."
        case .pendingBeforeLatestApplied(let pending, let latest):
            return "The database has migrations before its latest applied one (\(latest)) that are not applied (\(pending.joined(separator: ", "))), so the migrations in order do not make it; apply them first (the runner's `allowOutOfOrder`)."
        case .replayFailed(let failure):
            return failure.description
        case .desiredSchemaFails(let message):
            return "The desired schema does not run on an empty database: \(message)."
        case .notSchemaStatements(let statements):
            return "The desired schema holds statements that are not CREATE statements (\(Self.listed(statements))); a schema holds only CREATE statements."
        case .destructive(let changes):
            return "The migration would lose data: it \(changes.joined(separator: "; it ")). Allow it (`allowsDestructiveChanges`) only if that is what you want."
        case .migrationFails(let message):
            return "The migration fails on a scratch copy of the current schema: \(message)."
        case .notExpressed(let differences):
            return "Applied on a scratch copy, the migration still leaves \(differences.map { "\($0.type) \($0.name)" }.joined(separator: ", ")) different from the desired schema."
        case .notReversed(let differences):
            return "Rolled back on a scratch copy, the migration leaves \(differences.map { "\($0.type) \($0.name)" }.joined(separator: ", ")) different from the current schema."
        case .lintErrors(let findings):
            return "Lint finds errors in the migration: \(findings.map { "line \($0.line): \($0.rule): \($0.message)" }.joined(separator: "; "))."
        }
    }

    /// `description`, for `localizedDescription`.
    package var errorDescription: String? { description }

    /// "line 2: ATTACH, line 5: INSERT".
    package static func listed(_ statements: [(line: Int, word: String)]) -> String {
        statements.map { "line \($0.line): \($0.word)" }.joined(separator: ", ")
    }

    /// An applied migration failed on the empty scratch database the expected schema is
    /// made in: the migrations do not make this database's schema from nothing (as when
    /// another app made its first tables), or the file was edited after it was applied.
    /// The scratch database's transaction was rolled back; the database was only read.
    package struct ReplayFailure: CustomStringConvertible {
        /// The step's failure on the scratch database.
        package let failure: MigrationStepError
        /// Whether the failing migration was edited after the database applied it.
        package let edited: Bool
        /// The latest migration the database has applied: `baseline --to` it records a
        /// new first migration, one that makes the tables another app made, as applied.
        package let latestApplied: String

        package init(failure: MigrationStepError, edited: Bool, latestApplied: String) {
            self.failure = failure
            self.edited = edited
            self.latestApplied = latestApplied
        }

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
}

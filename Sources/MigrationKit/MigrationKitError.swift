/// Everything that can go wrong in migration logic, independent of the database engine.
///
/// Each case's `description` is one sentence a person can act on. Cases carry
/// identifiers and counts, never row values or keys. A refusal that can be overridden
/// carries the override as a `Remedy`, which each command line words as its own flag
/// (`sentence(_:)`); the library never names one.
public enum MigrationKitError: RemediableError, Hashable, Sendable {
    /// Two steps share an identifier.
    case duplicateIdentifiers([String])
    /// With lexicographic order enforced, `actual` was registered where `expected` belongs.
    case identifiersOutOfOrder(expected: String, actual: String)
    /// The step to roll back has no rollback (a file's down section that holds no
    /// statement is none).
    case rollbackNotDefined(String)
    /// Only the most recently applied step can be rolled back.
    case rollbackMustTargetLatestApplied(latestApplied: String?, requested: String)
    /// A negative number of steps was asked to roll back.
    case rollbackStepCountMustBeNonNegative
    /// `PRAGMA quick_check` (or `cipher_integrity_check`) did not answer `ok`.
    case quickCheckFailed(result: String)
    /// `PRAGMA foreign_key_check` found rows whose parent is missing.
    case foreignKeyViolations(count: Int)
    /// A migration step left rows whose parent is missing that were not there before it.
    case foreignKeyViolationsAdded(ForeignKeyViolations)
    /// A required index is missing.
    case missingIndex(table: String, index: String)
    /// An identifier that no registered step has.
    case unknownMigration(String)
    /// `migrate(upTo:)` was asked for a step older than what the database already has.
    case databaseAlreadyMigratedBeyond(String)
    /// The database's ledger holds steps this registry does not know: it was migrated
    /// by a newer version of the app (or by steps this app registers later, which
    /// `MigrateOptions.acceptUnknown` names).
    case databaseSuperseded(unknown: [String])
    /// A pending step sorts before the latest applied one.
    case pendingMigrationsOutOfOrder(pending: [String], latestApplied: String)
    /// Applied steps whose source changed since they were applied.
    case modifiedMigrations(identifiers: [String], files: [String])
    /// More steps were asked to roll back than are applied.
    case rollbackBeyondApplied(requested: Int, applied: Int)
    /// Only some of the steps a merged step replaces are applied.
    case partiallyAppliedMerge(step: String, applied: [String], missing: [String])
    /// A full-text (FTS3/4/5) or R*Tree index fails its own check (`integrity-check`,
    /// `rtreecheck()`): it does not match the rows it indexes.
    case virtualTableIndexDamaged(table: String, module: String, result: String)
    /// MigrationKit's own tables in the database are in a format a newer MigrationKit
    /// wrote, which only versions writing `oldestWriter` or later may change
    /// (`grdb_migrationkit_meta`): this version reads what it recognises and writes
    /// nothing.
    case historyFormatNewer(format: Int, oldestWriter: Int)

    /// What the refusal offers beyond fixing the cause: applying out of order anyway,
    /// accepting an edit or unknown identifiers. Each command line words it
    /// (`sentence(_:)`), or leaves it out.
    public var remedy: Remedy? {
        switch self {
        case .pendingMigrationsOutOfOrder: return .allowOutOfOrder
        case .modifiedMigrations(let identifiers, _): return .acceptModified(identifiers)
        case .databaseSuperseded(let unknown): return .acceptUnknown(unknown)
        default: return nil
        }
    }

    public func sentence(_ wording: RemedyWording) -> String {
        switch self {
        case .duplicateIdentifiers(let identifiers):
            return "Migration identifiers must be unique, but \(Self.list(identifiers)) "
                + "\(identifiers.count == 1 ? "is" : "are") registered more than once; rename or remove the duplicates."
        case .identifiersOutOfOrder(let expected, let actual):
            return "Migrations must be registered in lexicographic order of their identifiers, but \"\(actual)\" is "
                + "registered where \"\(expected)\" belongs; reorder them or give the new step an identifier that sorts last."
        case .rollbackNotDefined(let identifier):
            return "Migration \"\(identifier)\" has no rollback (a migration file's down section or down file holding at least one "
                + "statement, a Swift step's rollback closure), so it cannot be rolled back; add one (`SELECT 1;` as the down says there is "
                + "nothing to undo)."
        case .rollbackMustTargetLatestApplied(let latest, let requested):
            if let latest {
                return "Only the latest applied migration, \"\(latest)\", can be rolled back, not \"\(requested)\"; "
                    + "roll back \"\(latest)\" first."
            }
            return "Migration \"\(requested)\" cannot be rolled back: no migration is applied."
        case .rollbackStepCountMustBeNonNegative:
            return "The number of steps to roll back must be zero or more."
        case .quickCheckFailed(let result):
            return "The database failed its integrity check (\(result)); restore it from a backup before using it."
        case .foreignKeyViolations(let count):
            return "\(count) row\(count == 1 ? "" : "s") reference\(count == 1 ? "s" : "") a missing parent "
                + "(PRAGMA foreign_key_check); fix the migration so that every reference stays valid."
        case .foreignKeyViolationsAdded(let added):
            return "The migration left \(added.count) row\(added.count == 1 ? "" : "s") referencing a missing parent that "
                + "\(added.count == 1 ? "was" : "were") not there before it (\(added.summary())); the migration is at fault, not "
                + "the existing data: keep every reference valid in the migration. Foreign keys are off while migrations run, "
                + "so ON DELETE CASCADE does not fire: delete child rows yourself before their parents."
        case .missingIndex(let table, let index):
            return "The required index \"\(index)\" on table \"\(table)\" is missing; a migration dropped it "
                + "(often by recreating the table), so recreate it in a new migration."
        case .unknownMigration(let identifier):
            return "No migration is registered with identifier \"\(identifier)\"; check the spelling against `status`."
        case .databaseAlreadyMigratedBeyond(let identifier):
            return "The database is already migrated beyond \"\(identifier)\"; use rollback to go back, not migrate."
        case .databaseSuperseded(let unknown):
            return Advice(
                situation: "The database was migrated by a newer version: it has applied \(Self.list(unknown)), which "
                    + "\(unknown.count == 1 ? "is" : "are") not among the known migrations",
                otherwise: "use the newer version",
                remedy: remedy).sentence(wording)
        case .pendingMigrationsOutOfOrder(let pending, let latest):
            return Advice(
                situation: "Pending migration\(pending.count == 1 ? "" : "s") \(Self.list(pending)) sort\(pending.count == 1 ? "s" : "") "
                    + "before the latest applied one, \"\(latest)\", so the database would reach a state no migration expected",
                otherwise: "rename \(pending.count == 1 ? "it" : "them") to sort last",
                remedy: remedy).sentence(wording)
        case .modifiedMigrations(let identifiers, let files):
            return Advice(
                situation: "\(files.count == 1 ? "A migration was" : "Migrations were") edited after being applied to this database: "
                    + "\(Self.list(files)). Databases that applied the old version will not get the change",
                otherwise: "revert the edit and put the change in a new migration",
                remedy: .acceptModified(identifiers)).sentence(wording)
        case .rollbackBeyondApplied(let requested, let applied):
            if applied == 0 { return "No migration is applied, so there is nothing to roll back." }
            return "Cannot roll back \(requested) step\(requested == 1 ? "" : "s"): only \(applied) "
                + "\(applied == 1 ? "is" : "are") applied; nothing was rolled back."
        case .partiallyAppliedMerge(let step, let applied, let missing):
            return "Migration \"\(step)\" merges steps of which only some are applied (applied: \(Self.list(applied)); "
                + "not applied: \(Self.list(missing))); migrate with a version that still has the individual steps first."
        case .virtualTableIndexDamaged(let table, let module, let result):
            let rebuild = module.hasPrefix("FTS")
                ? "rebuild it from its rows in a migration: INSERT INTO \"\(table)\"(\"\(table)\") VALUES ('rebuild')"
                : "fill it again from the rows it indexes in a migration (delete its rows and insert them again)"
            return "The \(module) index \"\(table)\" does not match the rows it indexes (\(result)); \(rebuild)."
        case .historyFormatNewer(let format, let oldestWriter):
            return "MigrationKit's own tables in the database are in format \(format), written by a newer MigrationKit, and only a MigrationKit "
                + "that writes format \(oldestWriter) or later may change them (this one writes format \(MigrationHistoryFormat.current)); "
                + "use the newer version."
        }
    }

    /// The case's name, stable for machine-readable output ("databaseSuperseded").
    public var name: String {
        switch self {
        case .duplicateIdentifiers: return "duplicateIdentifiers"
        case .identifiersOutOfOrder: return "identifiersOutOfOrder"
        case .rollbackNotDefined: return "rollbackNotDefined"
        case .rollbackMustTargetLatestApplied: return "rollbackMustTargetLatestApplied"
        case .rollbackStepCountMustBeNonNegative: return "rollbackStepCountMustBeNonNegative"
        case .quickCheckFailed: return "quickCheckFailed"
        case .foreignKeyViolations: return "foreignKeyViolations"
        case .foreignKeyViolationsAdded: return "foreignKeyViolationsAdded"
        case .missingIndex: return "missingIndex"
        case .unknownMigration: return "unknownMigration"
        case .databaseAlreadyMigratedBeyond: return "databaseAlreadyMigratedBeyond"
        case .databaseSuperseded: return "databaseSuperseded"
        case .pendingMigrationsOutOfOrder: return "pendingMigrationsOutOfOrder"
        case .modifiedMigrations: return "modifiedMigrations"
        case .rollbackBeyondApplied: return "rollbackBeyondApplied"
        case .partiallyAppliedMerge: return "partiallyAppliedMerge"
        case .virtualTableIndexDamaged: return "virtualTableIndexDamaged"
        case .historyFormatNewer: return "historyFormatNewer"
        }
    }

    static func list(_ identifiers: [String]) -> String {
        let quoted = identifiers.map { "\"\($0)\"" }
        if quoted.count <= 8 { return quoted.joined(separator: ", ") }
        return quoted.prefix(8).joined(separator: ", ") + " and \(quoted.count - 8) more"
    }
}

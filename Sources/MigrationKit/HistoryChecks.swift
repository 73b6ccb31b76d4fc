/// Which of MigrationKit's refusals a runner makes before it migrates, beyond what
/// GRDB's `DatabaseMigrator` refuses. One setting, because the refusals share a purpose:
/// to stop before a database reaches a state no step was written for.
public enum HistoryChecks: Hashable, Sendable {
    /// GRDB's rules, and nothing more: pending steps run in registration order wherever
    /// they sort (a step a merge of two branches inserted before applied ones too), a
    /// database a newer version migrated is migrated as well (`hasBeenSuperseded` is the
    /// app's question), and an applied step's checksum is not compared. What
    /// `GRDBMigrationRunner` does unless told otherwise: an app's launch gets exactly
    /// what `DatabaseMigrator` gives it.
    case grdb
    /// MigrationKit's refusals too, all before anything runs: a database migrated by a
    /// newer version (`MigrationKitError.databaseSuperseded`, unless
    /// `MigrateOptions.acceptUnknown` names its identifiers), a pending step registered
    /// before an applied one (`.pendingMigrationsOutOfOrder`, unless the runner's
    /// `allowOutOfOrder`), an applied step whose checksum changed (a migration file
    /// edited since: `.modifiedMigrations`, unless `MigrateOptions.acceptModified`
    /// names it). The commands' setting on every connection, and the SQLCipher
    /// runner's.
    ///
    /// A runner cannot tell a step it will be told of later from a newer version's: an
    /// app that registers its steps in passes (some, `migrate`, more, `migrate` again)
    /// names the later passes' identifiers in `MigrateOptions.acceptUnknown` when it
    /// migrates the earlier ones; the pass that has every step registered refuses any
    /// other unknown identifier.
    case strict
}

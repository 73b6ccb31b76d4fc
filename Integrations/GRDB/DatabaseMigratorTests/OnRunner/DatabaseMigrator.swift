// The one line that turns GRDB's own `DatabaseMigratorTests`, compiled unchanged from the
// GRDB checkout SwiftPM resolved, into tests of `GRDBMigrationRunner`: within this
// module, `DatabaseMigrator` names the runner, not GRDB's migrator.
import MigrationKitGRDB

typealias DatabaseMigrator = GRDBMigrationRunner

/// The JSON documents of the migration commands, the same whatever the database layer
/// (README: "JSON output"). Scripts read their fields by name.
///
/// Each names its database twice over: `database`, the file, and `databaseName`, the
/// project file's `[databases.NAME]` that chose it (null when none did, and always over
/// GRDB, whose commands have no project file).

/// What `migrate --json` prints.
struct MigrateDocument: Encodable {
    struct Step: Encodable {
        package let identifier: String
        let durationMs: Int64

        init(identifier: String, durationMs: Int64) {
            self.identifier = identifier
            self.durationMs = durationMs
        }
    }
    package let database: String
    @AlwaysPresent package var databaseName: String?
    package let applied: [Step]
    let durationMs: Int64
    let verification: String
    /// What the verification checked, in words (`MigrationReport.verification`).
    let checks: [String]
    package let dryRun: Bool
    /// For a dry run: the schema change as "-"/"+" lines; otherwise null.
    @AlwaysPresent var schemaDiff: [String]?
    /// The backup written first, or null.
    @AlwaysPresent var backup: String?
    let adoptedChecksums: [String]
    /// Why the database was erased (--erase-on-schema-change), or null.
    @AlwaysPresent var erased: String?

    init(database: String, databaseName: String? = nil, applied: [Step], durationMs: Int64, verification: String, checks: [String], dryRun: Bool, schemaDiff: [String]?, backup: String?, adoptedChecksums: [String], erased: String?) {
        self.database = database
        self.databaseName = databaseName
        self.applied = applied
        self.durationMs = durationMs
        self.verification = verification
        self.checks = checks
        self.dryRun = dryRun
        self.schemaDiff = schemaDiff
        self.backup = backup
        self.adoptedChecksums = adoptedChecksums
        self.erased = erased
    }
}

/// What `rollback --json` prints.
struct RollbackDocument: Encodable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    /// The backup written first, or null.
    @AlwaysPresent var backup: String?
    let rolledBack: [MigrateDocument.Step]
    let durationMs: Int64

    init(database: String, databaseName: String? = nil, backup: String?, rolledBack: [MigrateDocument.Step], durationMs: Int64) {
        self.database = database
        self.databaseName = databaseName
        self.backup = backup
        self.rolledBack = rolledBack
        self.durationMs = durationMs
    }
}

/// What `schema-dump --json` prints, with or without --output.
struct SchemaDumpDocument: Encodable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    /// The file written, or null when the schema went to standard output.
    @AlwaysPresent var output: String?
    let schema: String

    init(database: String, databaseName: String? = nil, output: String?, schema: String) {
        self.database = database
        self.databaseName = databaseName
        self.output = output
        self.schema = schema
    }
}

/// One migration: an identifier, the change it makes, and optionally how to undo it.
///
/// Generic over the database handle so that this core module stays free of any C
/// library; `MigrationKitSQLCipher` instantiates it with `SQLCipherDatabase`.
/// The closures are `@Sendable` so a registry of steps can be shared by runners on
/// any thread; each closure only ever runs inside the runner's serialized writer.
public struct MigrationStep<Database>: Sendable {
    /// The ledger identifier (GRDB's `grdb_migrations.identifier`).
    public let identifier: String
    /// Where the step came from (a migration file path, or for a Swift step the file it
    /// was declared in, `#fileID` by default), so errors can point at it.
    public let sourceFile: String?
    /// For a Swift step, the line it was declared on (`#line` by default), where its
    /// failure is reported; nil for a migration file, whose failing statement names its
    /// own line.
    public let sourceLine: Int?
    /// Applies the step. Runs inside the runner's transaction.
    public internal(set) var apply: @Sendable (Database) throws -> Void
    /// Undoes the step, or nil when the step cannot be rolled back.
    public internal(set) var rollback: (@Sendable (Database) throws -> Void)?
    /// A fingerprint of what `apply` does (for file steps, the SHA-256 of the up SQL's
    /// tokens, `MigrationChecksum`), so a step edited after it shipped can be detected.
    /// Nil for steps that do not offer one.
    public let checksum: String?
    /// Identifiers this step replaces (a squash of earlier steps, like GRDB's
    /// `registerMigration(_:merging:)`). Empty for ordinary steps.
    ///
    /// How a merged step runs depends on whether it can be told which of them are
    /// applied. One made with `applyMerged` (GRDB's form) runs, as GRDB runs it, whenever
    /// its own identifier is not in the ledger, and is told which of `merging` are; the
    /// ledger then holds its identifier instead of theirs. One made with `apply` alone (a
    /// migration file's squash) cannot tell: it runs when none of them is applied, only
    /// rewrites the ledger when all are, and is refused when some are.
    public let merging: [String]
    /// For a merged step in GRDB's form, its closure, given the identifiers of
    /// `merging` the database has applied; nil for every other step.
    public internal(set) var applyMerged: (@Sendable (Database, Set<String>) throws -> Void)?
    /// Other fingerprints of this same step, recorded by an earlier way of computing
    /// them (for a file, the checksum of its up section's bytes, and with Windows line
    /// endings, of those bytes as they were). A database that recorded one of them reads
    /// the step as unchanged, and keeps what it recorded.
    var equivalentChecksums: [String] {
        get { equivalentChecksumsSource() }
        set { equivalentChecksumsSource = { newValue } }
    }
    /// Makes `equivalentChecksums` when asked: a file's are two more hashes of its
    /// text, needed only where a database recorded something other than `checksum`.
    var equivalentChecksumsSource: @Sendable () -> [String] = { [] }
    /// True when running the step changes nothing but the database it is given: a
    /// migration file's SQL. Such a step's transaction may be rolled back and run again
    /// without anyone seeing it, which lets the runner learn what the database held
    /// before it only in the rare run that needs to know (a foreign-key check that meets
    /// violations it knows nothing about). A Swift step may write files, call services
    /// or count; the runner never runs it twice, and learns that beforehand instead.
    /// False unless set.
    public var changesOnlyTheDatabase = false
    /// When the step's foreign keys are checked; nil for the runner's own setting
    /// (`foreignKeyChecks`, deferred unless the app says otherwise).
    public var foreignKeyChecks: ForeignKeyChecks?
    /// Whether builds that do not know this step may keep using a database it was applied
    /// to; nil (the default) when they may not. Recorded when the step is applied
    /// (`MigrationDowngradeTable`), for the older build to read.
    public var compatibility: MigrationCompatibility?
    /// The step's way back as SQL (as it runs, a file's own transaction left out), kept
    /// in the database when the step is applied so that an older build, which never had
    /// the step, can step back from it: a migration file's down section. Nil for a Swift
    /// step's closure, which has no text to keep. Its checksum is made when it is
    /// recorded (`MigrationDowngradeTable`), not at every registration.
    package var storedDown: String?
    /// Whether the step is a migration file's (`init(file:)`): its way back is a down
    /// section, where a Swift step's is a rollback closure.
    var isMigrationFile = false
    /// The version its file's layout reads from the file's name (`SQLMigrationFile.version`),
    /// what another tool's ledger records it under (`OtherToolMapping`); nil for a Swift
    /// step, or a name that starts with no number.
    package var fileVersion: MigrationVersion?
    /// The layout its file was read in (`SQLMigrationFile.layout`), which decides how
    /// another tool's ledger maps to it (a `user_version` counts migrations, in
    /// SQLDelight's layout it is the schema version); nil for a Swift step.
    var fileLayout: MigrationFolderLayout?
    /// Whether a deferred step's foreign keys are checked before it commits: false for a
    /// step registered after the runner's `disablingDeferredForeignKeyChecks()`, which,
    /// as GRDB's, applies to the steps registered after it only.
    package var checksDeferredForeignKeys = true

    /// A step that runs `apply`, and can be undone by `rollback` when one is given. A
    /// failure is reported at the file and line the step is declared at, unless given.
    public init(
        identifier: String,
        sourceFile: String? = #fileID,
        sourceLine: Int? = #line,
        checksum: String? = nil,
        merging: [String] = [],
        apply: @escaping @Sendable (Database) throws -> Void,
        rollback: (@Sendable (Database) throws -> Void)? = nil
    ) {
        self.identifier = identifier
        self.sourceFile = sourceFile
        self.sourceLine = sourceLine
        self.checksum = checksum
        self.merging = merging
        self.apply = apply
        self.applyMerged = nil
        self.rollback = rollback
    }

    /// A merged step in GRDB's form (`DatabaseMigrator.registerMigration(_:merging:migrate:)`):
    /// it runs whenever its own identifier is not applied, and `applyMerged` is given the
    /// identifiers of `merging` the database has applied, to do only what they did not.
    public init(
        identifier: String,
        sourceFile: String? = #fileID,
        sourceLine: Int? = #line,
        checksum: String? = nil,
        merging: [String],
        applyMerged: @escaping @Sendable (Database, Set<String>) throws -> Void,
        rollback: (@Sendable (Database) throws -> Void)? = nil
    ) {
        self.identifier = identifier
        self.sourceFile = sourceFile
        self.sourceLine = sourceLine
        self.checksum = checksum
        // As GRDB: a step does not replace itself.
        self.merging = merging.filter { $0 != identifier }
        self.apply = { try applyMerged($0, []) }
        self.applyMerged = applyMerged
        self.rollback = rollback
    }

    /// Whether the step has a rollback.
    public var isReversible: Bool { rollback != nil }

    /// What the step's way back is called: a migration file's down section, a Swift
    /// step's rollback closure.
    package var rollbackName: String { isMigrationFile ? "down section" : "rollback closure" }

    /// The same step, with `check` run before and after each of its closures: how a
    /// command line stops at a step's edge when a signal asks it to (a statement inside
    /// the step stops through its connection), the step's transaction then rolled back.
    package func checking(_ check: @escaping @Sendable () throws -> Void) -> MigrationStep {
        var checked = self
        let apply = self.apply
        checked.apply = { db in
            try check()
            try apply(db)
            try check()
        }
        if let applyMerged {
            checked.applyMerged = { db, applied in
                try check()
                try applyMerged(db, applied)
                try check()
            }
        }
        if let rollback {
            checked.rollback = { db in
                try check()
                try rollback(db)
                try check()
            }
        }
        return checked
    }

    /// The identifiers the ledger may hold this step under: its own and, for a squash,
    /// those of the steps it replaces. Rolling the step back forgets every one of them,
    /// or the squash would still read as applied.
    var recordedIdentifiers: [String] { [identifier] + merging }
}

/// When a step's foreign keys are checked, as GRDB's `DatabaseMigrator.ForeignKeyChecks`
/// says it.
public enum ForeignKeyChecks: Sendable {
    /// Enforcement off while the step runs, so it may rebuild a table (sqlite.org's
    /// 12-step procedure), and `PRAGMA foreign_key_check` before it commits: violations
    /// it added fail it, violations the database already had are kept. The default.
    case deferred
    /// Enforcement on while the step runs, as the connection has it: a statement that
    /// breaks a foreign key fails at once. Only for a step that rebuilds no table other
    /// tables point at (dropping that table would delete or orphan their rows). A step
    /// that runs with others in one transaction (`MigrateOptions.Mode.atomic`, a dry
    /// run, a rollback) is deferred whatever it says.
    case immediate
}

import Foundation
import GRDB
import MigrationKit
import MigrationKitFiles

/// A GRDB app's migrations, run by GRDB's own `DatabaseMigrator`, with MigrationKit's
/// safety nets around it.
///
/// A drop-in for `DatabaseMigrator`: an app adopts it by changing the type's name. It
/// has the migrator's members, with their shapes, and hands every step to a
/// `DatabaseMigrator` it builds once for its steps, so what is applied, in which transaction,
/// with which foreign-key checks, how merged steps run, what
/// `eraseDatabaseOnSchemaChange` erases and what is thrown are GRDB's own outcomes,
/// decided by GRDB's code rather than restated here. The ledger is GRDB's
/// `grdb_migrations`, so an app moves between the two in either direction.
///
/// What it adds, and only adds:
/// - each step's history row (its checksum, when it ran and for how long), in a table
///   GRDB's dumps and schema comparisons pass over (`grdb_migrationkit_history`), as the
///   SQLCipher runner writes it: a call's first step's transaction records the checksum
///   of every step GRDB's migrator is going to run, its last one their times, so that
///   a step's checksum is committed no later than its ledger row without a page more in
///   every step's commit;
/// - the verification after a run that applied steps (`GRDBMigrationVerifier`, or the
///   host's checks through `MigrationHostIntegration`), with errors of its own;
/// - an observer that hears of each step, and of a failing step with the file and line
///   it was declared at (`MigrationEvent.didFail`), while the runner throws what the
///   step threw, unchanged, as GRDB does;
/// - errors instead of GRDB's preconditions for a target the database is already
///   beyond, or that is not registered;
/// - rollback through each step's down closure, atomic and dry runs (`MigrateOptions`),
///   `baseline`, and MigrationKit's refusals (a newer version's database, an inserted
///   step, an edited migration file) when `historyChecks` is `.strict`, as the
///   commands set it.
public struct GRDBMigrationRunner: Sendable {
    /// When a step's foreign keys are checked, as `DatabaseMigrator.ForeignKeyChecks`
    /// says it.
    public typealias ForeignKeyChecks = MigrationKit.ForeignKeyChecks
    /// GRDB's connection, which the steps are given.
    public typealias Database = GRDB.Database

    /// The steps, in registration order.
    public package(set) var registry: MigrationRegistry<Database> {
        didSet { forgetMigrator() }
    }
    /// The checks after every migrate and rollback, unless `host` replaces them.
    public var verifier: GRDBMigrationVerifier
    /// The app's own integrity and post-migration checks, when it has them.
    public var host: MigrationHostIntegration<Database>
    /// GRDB's option: erase the database and migrate from scratch when GRDB's
    /// `hasSchemaChanges` says its schema is not what the applied steps make.
    /// Development databases only.
    public var eraseDatabaseOnSchemaChange: Bool {
        didSet { forgetMigrator() }
    }
    /// When a step that does not say is checked for foreign keys: `.deferred` (GRDB's
    /// default, sqlite.org's 12-step procedure) or `.immediate`.
    public var foreignKeyChecks: ForeignKeyChecks {
        didSet { forgetMigrator() }
    }
    /// MigrationKit's refusals beyond GRDB's: `.grdb` (the default) makes none, as
    /// `DatabaseMigrator` makes none; `.strict`, as the commands set it, refuses a
    /// newer version's database, an inserted step and an edited migration file before
    /// anything runs.
    public var historyChecks: HistoryChecks = .grdb
    /// With `.strict` history checks, apply a pending step even when a step registered
    /// after it is already applied (GRDB always does).
    public var allowOutOfOrder = false
    /// Told of each step as it starts, once it has committed, and when it fails.
    public var observer: (@Sendable (MigrationEvent) -> Void)?
    /// The database's change lock when the caller holds it already (a command holds it
    /// for its whole run): the runner then takes it no second time.
    package var heldChangeLock: DatabaseFileLock?
    /// Whether deferred steps registered from now on have their foreign keys checked
    /// before they commit (`disablingDeferredForeignKeyChecks()`).
    package private(set) var checksDeferredForeignKeys = true
    /// GRDB's migrator for the steps and settings as they are now: a change to either
    /// starts a new one.
    private(set) var migrators = GRDBMigratorCache()

    /// After a change to the steps or settings: the migrator built for the old ones is
    /// forgotten, in place when no copy of this runner shares it (registering steps one
    /// by one then allocates nothing), otherwise by starting a cache of this runner's own.
    private mutating func forgetMigrator() {
        if isKnownUniquelyReferenced(&migrators) {
            migrators.forget()
        } else {
            migrators = GRDBMigratorCache()
        }
    }

    /// A runner for `steps`, the app's migrations in the order they apply: any
    /// identifiers, as GRDB takes them (`enforceLexicographicOrder` also requires them in
    /// byte-wise order).
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` or
    ///   `.identifiersOutOfOrder(expected:actual:)`: a mistake in the app, found before
    ///   any database is touched.
    public init(
        steps: [MigrationStep<Database>],
        enforceLexicographicOrder: Bool = false,
        verifier: GRDBMigrationVerifier = GRDBMigrationVerifier(),
        host: MigrationHostIntegration<Database> = MigrationHostIntegration(),
        eraseDatabaseOnSchemaChange: Bool = false,
        foreignKeyChecks: ForeignKeyChecks = .deferred
    ) throws {
        registry = try MigrationRegistry(steps: steps, enforceLexicographicOrder: enforceLexicographicOrder)
        self.verifier = verifier
        self.host = host
        self.eraseDatabaseOnSchemaChange = eraseDatabaseOnSchemaChange
        self.foreignKeyChecks = foreignKeyChecks
    }

    /// A runner with no steps yet, to register them one by one, as GRDB's
    /// `DatabaseMigrator()`.
    public init() {
        registry = MigrationRegistry()
        verifier = GRDBMigrationVerifier()
        host = MigrationHostIntegration()
        eraseDatabaseOnSchemaChange = false
        foreignKeyChecks = .deferred
    }

    // MARK: - Registering, as GRDB registers

    /// The registered identifiers, in registration order: GRDB's `migrations`.
    public var migrations: [String] { registry.identifiers }

    /// Registers a step after those registered so far, as GRDB's `registerMigration`:
    /// any identifier, the order being the registration's. An identifier registered
    /// twice stops the process, as GRDB's precondition does.
    ///
    /// - Parameters:
    ///   - identifier: the step's identifier in the ledger.
    ///   - foreignKeyChecks: nil for the runner's `foreignKeyChecks` (deferred unless
    ///     set), as GRDB's `.deferred` default.
    ///   - compatibility: whether builds of the app that do not know this step may keep
    ///     using a database it was applied to (an added table, index or nullable column
    ///     their code never reads); nil when they may not. Recorded in the database for
    ///     them (`databaseCompatibility(in:)`).
    ///   - rollback: the step's down closure, for `rollbackLastMigration(in:)`.
    ///   - rollbackSQL: the step's down as SQL instead of a closure: it rolls the step
    ///     back here, and is kept in the database so that an older build, which never had
    ///     this step, can step back from it (`rollbackNewerMigrations(in:backupTo:)`).
    ///     Give `rollback` or `rollbackSQL`, not both.
    ///   - file: where the step is declared, for the observer's `didFail` and the
    ///     commands' sentences.
    ///   - line: the line it is declared on.
    ///   - migrate: the step, run in its own transaction.
    public mutating func registerMigration(
        _ identifier: String, foreignKeyChecks: ForeignKeyChecks? = nil, compatibility: MigrationCompatibility? = nil,
        rollback: (@Sendable (Database) throws -> Void)? = nil, rollbackSQL: String? = nil,
        file: String = #fileID, line: Int = #line,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        register(MigrationStep<Database>(identifier: identifier, sourceFile: file, sourceLine: line, apply: migrate,
                                         rollback: Self.rollback(identifier, rollback, rollbackSQL)),
                 foreignKeyChecks: foreignKeyChecks, compatibility: compatibility, rollbackSQL: rollbackSQL)
    }

    /// Registers a step that replaces `mergedIdentifiers`, as GRDB's
    /// `registerMigration(_:merging:migrate:)`: it runs unless its own identifier is
    /// applied, and its closure is given those of `mergedIdentifiers` the database has
    /// applied; the ledger then holds its identifier instead of theirs. Its own
    /// identifier among them is ignored, as GRDB ignores it.
    public mutating func registerMigration(
        _ identifier: String, foreignKeyChecks: ForeignKeyChecks? = nil, merging mergedIdentifiers: Set<String> = [],
        compatibility: MigrationCompatibility? = nil,
        rollback: (@Sendable (Database) throws -> Void)? = nil, rollbackSQL: String? = nil,
        file: String = #fileID, line: Int = #line,
        migrate: @escaping @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void
    ) {
        register(MigrationStep<Database>(identifier: identifier, sourceFile: file, sourceLine: line,
                                         merging: mergedIdentifiers.sorted(by: MigrationIdentifierOrder.precedes),
                                         applyMerged: migrate, rollback: Self.rollback(identifier, rollback, rollbackSQL)),
                 foreignKeyChecks: foreignKeyChecks, compatibility: compatibility, rollbackSQL: rollbackSQL)
    }

    /// Declares identifiers this build knows without registering a step for them: the
    /// steps another runner of the same app applies (a migrator split into parts, GRDB
    /// #1665), or steps retired after every database applied them. They are never
    /// pending, and a database that has them is not newer for `databaseCompatibility(in:)`
    /// and `.strict` history checks. GRDB's `hasBeenSuperseded` keeps GRDB's answer.
    public mutating func registerKnownMigrations(_ identifiers: some Sequence<String>) {
        registry.knownIdentifiers.formUnion(identifiers)
    }

    /// A step's rollback: its closure, or its rollback SQL run. Both stop the process, as
    /// a duplicate identifier does: the down kept for older builds and the one that runs
    /// here must be the same.
    private static func rollback(_ identifier: String, _ closure: (@Sendable (Database) throws -> Void)?,
                                 _ sql: String?) -> (@Sendable (Database) throws -> Void)? {
        guard let sql else { return closure }
        precondition(closure == nil, "Migration \"\(identifier)\" is given both a rollback closure and rollback SQL; give one.")
        return { db in try db.execute(sql: sql) }
    }

    /// Takes the step it is given (`consuming`): an app registers hundreds at every
    /// launch, and a copy of a step retains each of its closures and strings.
    private mutating func register(_ step: consuming MigrationStep<Database>, foreignKeyChecks: ForeignKeyChecks?,
                                   compatibility: MigrationCompatibility?, rollbackSQL: String?) {
        step.foreignKeyChecks = foreignKeyChecks
        step.checksDeferredForeignKeys = checksDeferredForeignKeys
        step.compatibility = compatibility
        step.storedDown = rollbackSQL
        registry.registerAsGRDB(step)
    }

    /// The same runner, whose deferred steps registered from now on commit without
    /// their foreign-key check, as GRDB's `disablingDeferredForeignKeyChecks()`: for an
    /// app that checks them itself. Steps registered before keep their check. The
    /// verification after a run in which such a step ran leaves foreign keys out, and
    /// does not list them among the checks that passed.
    public func disablingDeferredForeignKeyChecks() -> GRDBMigrationRunner {
        var runner = self
        runner.checksDeferredForeignKeys = false
        return runner
    }

    // MARK: - GRDB's migrator, and MigrationKit's engine

    /// GRDB's migrator for these steps, for an app that hands it to GRDB's own APIs: the
    /// same ledger, each step's history row written beside its ledger row. Without the
    /// verification and the observer: `migrate(_:)` has them.
    public var migrator: DatabaseMigrator { grdbMigrator() }

    /// GRDB's migrator for these steps, built once for them (`GRDBMigratorCache`): what
    /// every call runs, but those with `eraseDatabaseOnSchemaChange`.
    func grdbMigrator() -> DatabaseMigrator {
        migrators.migrator { buildMigrator(reproducingLegacyHistory: { nil }) }
    }

    /// GRDB's migrator for these steps whose closures, in the scratch database GRDB
    /// replays the applied steps into (`hasSchemaChanges`), also make an earlier
    /// version's history table: its `CREATE TABLE`, as `legacyHistorySQL` says it when
    /// they run (nil: none). Built for the call.
    func grdbMigrator(reproducingLegacyHistory legacyHistorySQL: @escaping @Sendable () -> String?) -> DatabaseMigrator {
        buildMigrator(reproducingLegacyHistory: legacyHistorySQL)
    }

    /// GRDB's migrator for these steps, each registered as GRDB registers it (its
    /// foreign-key checks, its merged identifiers, in order, with the deferred checks
    /// disabled from the first step registered after `disablingDeferredForeignKeyChecks()`),
    /// its closure the step's with MigrationKit's bookkeeping around it
    /// (`GRDBStepBody`), reporting to the call running on its connection.
    private func buildMigrator(reproducingLegacyHistory legacyHistorySQL: @escaping @Sendable () -> String?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = eraseDatabaseOnSchemaChange
        var disabled = false
        let steps = registry.steps
        let calls = migrators.calls
        for index in steps.indices {
            let checksDeferred = steps[index].checksDeferredForeignKeys
            if !checksDeferred, !disabled {
                migrator = migrator.disablingDeferredForeignKeyChecks()
                disabled = true
            }
            let immediate = (steps[index].foreignKeyChecks ?? foreignKeyChecks) == .immediate
            let checks: ForeignKeyChecking.Step = immediate ? .immediate : (checksDeferred ? .deferred : .unchecked)
            let body = GRDBStepBody(steps: steps, index: index, checks: checks, calls: calls, legacyHistorySQL: legacyHistorySQL)
            migrator.registerMigration(steps[index].identifier, foreignKeyChecks: immediate ? .immediate : .deferred,
                                       merging: Set(steps[index].merging)) { db, appliedMerged in
                try body.run(db, appliedMerged: appliedMerged)
            }
        }
        return migrator
    }

    /// MigrationKit's procedure (the core's `MigrationEngine`) over these steps and
    /// checks: for what GRDB's migrator does not do (rollback, atomic and dry runs,
    /// baseline, the plan behind the strict history checks, verification).
    package var engine: MigrationEngine<Database> {
        MigrationEngine(registry: registry, host: host, verifier: verifier, allowOutOfOrder: allowOutOfOrder, observer: observer,
                        foreignKeyChecks: foreignKeyChecks, historyChecks: historyChecks)
    }
}


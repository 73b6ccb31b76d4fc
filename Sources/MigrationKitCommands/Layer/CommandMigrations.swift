import MigrationKit

/// The migrations a command runs, as it asks about them before and without any database
/// (their identifiers, which have a way back, the status of a database that does not
/// exist yet), and how to open a database to run them on (`open`, a `MigrationSession`).
///
/// Made by a command line's layer from its runner (`init(runner:open:)`): the runner's
/// type stays inside, so no command, and no cast, ever needs to know which library runs
/// it.
package struct CommandMigrations: Sendable {
    /// The registered migrations, in order.
    package let identifiers: [String]
    /// Apply pending migrations that sort before the latest applied one.
    var allowOutOfOrder = false
    /// Told of each step as it runs.
    var observer: (@Sendable (MigrationEvent) -> Void)?
    /// The indexes verification requires (the app's and `--require-index`'s).
    var requiredIndexes: [RequiredIndexSpec]

    /// What each migration's file or step says of itself, by identifier.
    private let steps: [String: Step]
    /// The migrations compared with a ledger reading, for the settings given.
    private let analyse: @Sendable (LedgerReading, Settings) -> MigrationStatus
    /// What the runner, set up as the settings say, plans from a ledger reading: whether
    /// migrating up to a target would write anything, what a rollback would undo, what a
    /// baseline would record. Each throws what the change itself would refuse for.
    private let planning: @Sendable (LedgerReading, Settings) -> Planning
    /// Opens a database through the layer, its store holding the runner set up as
    /// `Settings` say, under the command's change locks.
    private let openStore: @Sendable (OpenRequest, Settings, CommandLocks) throws -> any DatabaseStore
    /// The same migrations but the first `count` only, on the same layer.
    private let first: @Sendable (Int) -> CommandMigrations

    /// What a command sets on the runner before it runs.
    struct Settings: Sendable {
        var allowOutOfOrder: Bool
        var observer: (@Sendable (MigrationEvent) -> Void)?
        var requiredIndexes: [RequiredIndexSpec]
    }

    /// A runner's plans from one ledger reading, its type kept inside.
    struct Planning {
        let changesAnything: (String?, MigrateOptions) throws -> Bool
        let rollback: (RollbackSelection, Set<String>) throws -> [String]
        let baseline: (String) throws -> [String]
    }

    private struct Step: Sendable {
        let position: Int
        let isReversible: Bool
        let rollbackName: String
        let fileVersion: MigrationVersion?
    }

    /// The migrations `runner` runs, on the stores `open` opens: the layer's writer for
    /// an `OpenRequest`, keyed and found in its format, holding `runner` set up for the
    /// command and the command's change locks.
    package init<Runner: MigrationRunning>(runner: Runner,
                                           open: @escaping @Sendable (OpenRequest, Runner, CommandLocks) throws -> any DatabaseStore) {
        identifiers = runner.registry.identifiers
        requiredIndexes = runner.verifier.requiredIndexes
        steps = Dictionary(uniqueKeysWithValues: runner.registry.steps.enumerated().map { position, step in
            (step.identifier, Step(position: position, isReversible: step.isReversible, rollbackName: step.rollbackName, fileVersion: step.fileVersion))
        })
        @Sendable func configured(_ settings: Settings) -> Runner {
            var configured = runner
            configured.allowOutOfOrder = settings.allowOutOfOrder
            configured.observer = settings.observer
            configured.verifier.requiredIndexes = settings.requiredIndexes
            return configured
        }
        analyse = { reading, settings in configured(settings).engine.analysis(of: reading).status }
        planning = { reading, settings in
            let engine = configured(settings).engine
            let registry = runner.registry
            return Planning(
                changesAnything: { target, options in
                    try engine.plan(from: reading, through: try target.map(registry.index(ofTarget:)) ?? (registry.steps.count - 1), options: options).changesAnything
                },
                rollback: { selection, accepted in try engine.analysis(of: reading).rollbackPlan(selection, acceptModified: accepted).map(\.identifier) },
                baseline: { target in try engine.analysis(of: reading).baselinePlan(through: try registry.index(ofTarget: target)).map(\.identifier) })
        }
        openStore = { request, settings, locks in try open(request, configured(settings), locks) }
        first = { count in
            var older = runner
            older.registry = runner.registry.prefix(count)
            return CommandMigrations(runner: older, open: open)
        }
    }

    /// The migrations of the release before every step from position `count` on: the
    /// first `count` only, set up as these are.
    func prefix(_ count: Int) -> CommandMigrations {
        var older = first(count)
        older.allowOutOfOrder = allowOutOfOrder
        older.observer = observer
        older.requiredIndexes = requiredIndexes
        return older
    }

    private var settings: Settings { Settings(allowOutOfOrder: allowOutOfOrder, observer: observer, requiredIndexes: requiredIndexes) }

    /// Opens the database `request` names (its key derived once, here) with these
    /// migrations to run on it. The command's change locks (`locks`) are handed to the
    /// store's runner, which then takes none a second time.
    func open(_ request: OpenRequest, locks: CommandLocks) throws -> MigrationSession {
        MigrationSession(request: request, store: try openStore(request, settings, locks), migrations: self)
    }

    /// What the runner plans from the ledger `ledger` found; reads nothing.
    func plans(from ledger: LedgerReading) -> Planning {
        planning(ledger, settings)
    }

    /// Whether the migration `identifier` has a way back (a down section, a rollback
    /// closure).
    func isReversible(_ identifier: String) -> Bool {
        steps[identifier]?.isReversible ?? false
    }

    /// What the migration `identifier`'s way back is called: "down section" for a
    /// migration file, "rollback closure" for an app's Swift step.
    package func rollbackName(_ identifier: String) -> String {
        steps[identifier]?.rollbackName ?? "rollback"
    }

    /// The position of `target`, or the registry's error naming it.
    func index(ofTarget target: String) throws -> Int {
        guard let index = steps[target]?.position else { throw MigrationKitError.unknownMigration(target) }
        return index
    }

    /// The migrations whose file's version is `version` (`3` is `0003_x`'s, `1.2`
    /// Flyway's `V1_2__x`'s): what another tool's ledger records, for `baseline --to`.
    package func identifiers(carryingVersion version: String) -> [String] {
        let parts = MigrationVersion(text: version, separators: ["."]).parts
        guard !parts.isEmpty else { return [] }
        return identifiers.filter { steps[$0]?.fileVersion?.parts == parts }
    }

    /// The status of a database that does not exist yet: everything pending.
    var statusOfNewDatabase: MigrationStatus {
        analyse(LedgerReading(snapshot: LedgerSnapshot(identifiers: []), dataVersion: 0), settings)
    }

    /// The migrations compared with the ledger `ledger` found; reads nothing.
    package func status(from ledger: LedgerReading) -> MigrationStatus {
        analyse(ledger, settings)
    }

    /// Whether migrating up to `target` would write anything (steps, bookkeeping), from
    /// the ledger `ledger` found; throws what migrate would refuse for. Reads nothing.
    package func changesAnything(upTo target: String?, options: MigrateOptions, from ledger: LedgerReading) throws -> Bool {
        try plans(from: ledger).changesAnything(target, options)
    }
}

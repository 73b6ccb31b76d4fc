import Foundation
import GRDB
@testable import MigrationKit
@testable import MigrationKitGRDB
import GRDBTestSupport
import Testing

/// What one `migrate` asks of the app's writer, measured on the writer itself beside
/// GRDB's own `DatabaseMigrator` on the same steps: how many times it takes the writer
/// (a barrier, a write, a read), and how many times it reads the ledger.
@Suite struct GRDBMigrationAccessTests {
    /// With the commands' `.strict` checks, the checks, GRDB's steps and the verification
    /// share the one barrier GRDB's migrator takes, so nothing can change between the
    /// plan the checks approved and the steps GRDB applies; the ledger is read once more
    /// than GRDB reads it, for the checks.
    @Test(arguments: WriterKind.allCases, [true, false])
    func aStrictMigrateTakesTheWriterOnceAsGRDBsMigratorDoes(_ kind: WriterKind, stepsPending: Bool) throws {
        let steps = (1...3).map { index in
            MigrationStep<Database>(identifier: "000\(index)_t\(index)",
                                    apply: { db in try db.execute(sql: "CREATE TABLE t\(index) (id INTEGER PRIMARY KEY)") })
        }
        var runner = try GRDBMigrationRunner(steps: steps)
        runner.historyChecks = .strict
        var migrator = DatabaseMigrator()
        for step in steps { migrator.registerMigration(step.identifier, migrate: step.apply) }

        let grdb = try AccessCount.of(kind) { writer in
            try migrator.migrate(writer, upTo: stepsPending ? "0001_t1" : "0003_t3")
        } migrating: { writer in
            try migrator.migrate(writer)
        }
        let ours = try AccessCount.of(kind) { writer in
            try runner.migrate(in: writer, upTo: stepsPending ? "0001_t1" : "0003_t3")
        } migrating: { writer in
            try runner.migrate(in: writer)
        }
        #expect(grdb.accesses == ["barrierWriteWithoutTransaction"])
        #expect(ours.accesses == grdb.accesses, "the runner: \(ours.accesses)")
        #expect(ours.ledgerReads <= grdb.ledgerReads + 1, "the runner reads the ledger \(ours.ledgerReads) times, GRDB's migrator \(grdb.ledgerReads)")
    }
}

/// One migrate on a writer of `kind`, counted: the writer's accesses, in order, and the
/// statements that read GRDB's ledger, on every connection the writer opens.
private struct AccessCount {
    var accesses: [String]
    var ledgerReads: Int

    static func of(_ kind: WriterKind, preparing prepare: (any DatabaseWriter) throws -> Void,
                   migrating migrate: (any DatabaseWriter) throws -> Void) throws -> AccessCount {
        let scratch = try ScratchDatabase()
        let ledgerReads = Counter()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.trace { event in
                guard case .statement(let statement) = event else { return }
                let sql = statement.sql.lowercased()
                if sql.hasPrefix("select"), sql.contains("from grdb_migrations") { ledgerReads.add() }
            }
        }
        let base: any DatabaseWriter = switch kind {
        case .queue: try DatabaseQueue(path: scratch.path, configuration: configuration)
        case .pool: try DatabasePool(path: scratch.path, configuration: configuration)
        }
        try prepare(base)
        let before = ledgerReads.value
        let writer = CountingWriter(base)
        try migrate(writer)
        let count = AccessCount(accesses: writer.accesses, ledgerReads: ledgerReads.value - before)
        try base.close()
        return count
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// The app's writer, with each access through it named as it is made.
private final class CountingWriter: DatabaseWriter, @unchecked Sendable {
    private let base: any DatabaseWriter
    private let lock = NSLock()
    private var names: [String] = []

    init(_ base: any DatabaseWriter) { self.base = base }

    var accesses: [String] { lock.withLock { names } }

    private func note(_ name: String) { lock.withLock { names.append(name) } }

    var configuration: Configuration { base.configuration }
    var path: String { base.path }
    func close() throws { try base.close() }
    func interrupt() { base.interrupt() }

    @_disfavoredOverload
    func read<T>(_ value: (Database) throws -> T) throws -> T {
        note("read")
        return try base.read(value)
    }

    func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        note("read")
        return try await base.read(value)
    }

    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        note("asyncRead")
        base.asyncRead(value)
    }

    @_disfavoredOverload
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        note("unsafeRead")
        return try base.unsafeRead(value)
    }

    func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        note("unsafeRead")
        return try await base.unsafeRead(value)
    }

    func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        note("asyncUnsafeRead")
        base.asyncUnsafeRead(value)
    }

    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        note("unsafeReentrantRead")
        return try base.unsafeReentrantRead(value)
    }

    func _add<Reducer: ValueReducer>(observation: ValueObservation<Reducer>, scheduling scheduler: some ValueObservationScheduler,
                                     onChange: @escaping @Sendable (Reducer.Value) -> Void) -> AnyDatabaseCancellable {
        base._add(observation: observation, scheduling: scheduler, onChange: onChange)
    }

    @_disfavoredOverload
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        note("writeWithoutTransaction")
        return try base.writeWithoutTransaction(updates)
    }

    func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        note("writeWithoutTransaction")
        return try await base.writeWithoutTransaction(updates)
    }

    @_disfavoredOverload
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        note("barrierWriteWithoutTransaction")
        return try base.barrierWriteWithoutTransaction(updates)
    }

    func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        note("barrierWriteWithoutTransaction")
        return try await base.barrierWriteWithoutTransaction(updates)
    }

    func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        note("asyncBarrierWriteWithoutTransaction")
        base.asyncBarrierWriteWithoutTransaction(updates)
    }

    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        note("asyncWriteWithoutTransaction")
        base.asyncWriteWithoutTransaction(updates)
    }

    func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        note("unsafeReentrantWrite")
        return try base.unsafeReentrantWrite(updates)
    }

    func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        note("spawnConcurrentRead")
        base.spawnConcurrentRead(value)
    }
}

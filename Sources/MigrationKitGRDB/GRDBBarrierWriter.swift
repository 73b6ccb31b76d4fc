import GRDB

/// The app's writer as the runner hands it to GRDB's migrator for one call: every access
/// goes to the writer unchanged, and the barrier GRDB's migrator takes to apply the steps
/// runs the call's own work around GRDB's (`around`): the checks before it, and the
/// verification after it. So a call takes the writer once, as GRDB's migrator does, and
/// nothing can change the database between the plan the checks approved and the steps
/// GRDB applies.
final class GRDBBarrierWriter: DatabaseWriter {
    private let base: any DatabaseWriter
    /// Runs GRDB's work (its argument) on the barrier's connection, with the call's
    /// around it; what it throws ends the barrier.
    private let around: @Sendable (Database, () throws -> Void) throws -> Void

    init(_ base: any DatabaseWriter, around: @escaping @Sendable (Database, () throws -> Void) throws -> Void) {
        self.base = base
        self.around = around
    }

    // MARK: - The barrier

    @_disfavoredOverload
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try base.barrierWriteWithoutTransaction { db in try Self.run(updates, around: around, in: db) }
    }

    func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        let around = self.around
        return try await base.barrierWriteWithoutTransaction { db in try Self.run(updates, around: around, in: db) }
    }

    private static func run<T>(_ updates: (Database) throws -> T, around: (Database, () throws -> Void) throws -> Void,
                               in db: Database) throws -> T {
        var result: T?
        try withoutActuallyEscaping(updates) { updates in
            try around(db) { result = try updates(db) }
        }
        guard let result else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "The barrier ended without running its work.") }
        return result
    }

    /// GRDB's `asyncMigrate`: what `around` throws before GRDB's work reaches GRDB as the
    /// barrier's failure, which GRDB hands to the completion.
    func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        let around = self.around
        base.asyncBarrierWriteWithoutTransaction { result in
            guard case .success(let db) = result else { return updates(result) }
            var began = false
            do {
                try around(db) {
                    began = true
                    updates(.success(db))
                }
            } catch {
                if !began { updates(.failure(error)) }
            }
        }
    }

    // MARK: - Everything else, as the writer does it

    var configuration: Configuration { base.configuration }
    var path: String { base.path }
    func close() throws { try base.close() }
    func interrupt() { base.interrupt() }

    @_disfavoredOverload
    func read<T>(_ value: (Database) throws -> T) throws -> T { try base.read(value) }
    func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T { try await base.read(value) }
    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) { base.asyncRead(value) }
    @_disfavoredOverload
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeRead(value) }
    func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T { try await base.unsafeRead(value) }
    func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) { base.asyncUnsafeRead(value) }
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeReentrantRead(value) }

    func _add<Reducer: ValueReducer>(observation: ValueObservation<Reducer>, scheduling scheduler: some ValueObservationScheduler,
                                     onChange: @escaping @Sendable (Reducer.Value) -> Void) -> AnyDatabaseCancellable {
        base._add(observation: observation, scheduling: scheduler, onChange: onChange)
    }

    @_disfavoredOverload
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T { try base.writeWithoutTransaction(updates) }
    func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await base.writeWithoutTransaction(updates)
    }
    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) { base.asyncWriteWithoutTransaction(updates) }
    func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T { try base.unsafeReentrantWrite(updates) }
    func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) { base.spawnConcurrentRead(value) }
}

import Foundation
import MigrationKit
import MigrationKitFiles

/// `LoadedMigrations.load` for `migrate`, on a thread of its own: reading,
/// parsing and checksumming the files (and, for a new database, linting them) overlaps
/// resolving the key and deriving it, which is most of a short run. Reading 300 small
/// files took 4.6 ms on the main thread, as long as parsing the command line.
///
/// Nothing is printed on that thread. `finish` prints its warnings and lint's findings
/// and throws its error or lint's, and the caller reaches it before anything is
/// written: the migrations' verdict still comes first, and a database the open created
/// meanwhile is removed by the caller. A host's Swift steps need no reading, and no thread.
package final class MigrationsLoading {
    private typealias Outcome = Result<(loaded: LoadedMigrations, warnings: [String], lint: LintReport?), any Error>
    private enum State {
        case loading(WorkerPool.Pending<Outcome>)
        /// Kept by `finish`: a second call answers the same without waiting again.
        case finished(Outcome)
    }

    private var state: State
    /// The lint that ran with the loading, to report its findings.
    private let lint: PendingLint?

    private init(_ state: State, lint: PendingLint?) {
        self.state = state
        self.lint = lint
    }

    /// Starts loading the migrations `migrations` names through `layer` (or takes the
    /// host's steps).
    ///
    /// - Parameter lint: lints the files on the same thread once read (a new database:
    ///   every file is pending, and there is nothing to consult).
    package static func start(_ migrations: MigrationsOptions, requiredIndexes: [RequiredIndexSpec], layer: any CommandLayer,
                              lint: PendingLint?) -> MigrationsLoading {
        if let host = layer.hostMigrations(requiredIndexes: requiredIndexes) {
            return MigrationsLoading(.finished(.success((LoadedMigrations(migrations: host, files: nil), [], nil))), lint: nil)
        }
        return MigrationsLoading(.loading(WorkerPool.start {
            Result {
                let read = try migrations.readFiles()
                let made = try layer.migrations(over: read.files, requiredIndexes: requiredIndexes)
                return (LoadedMigrations(migrations: made, files: read.files), read.warnings, lint?.findings(read.files))
            }
        }), lint: lint)
    }

    /// Waits for the loading and, the first time, prints its warnings and lint's
    /// findings; returns what it made, or throws what it threw or lint's errors.
    package func finish(reporter: Reporter) throws -> LoadedMigrations {
        switch state {
        case .finished(let outcome):
            return try outcome.get().loaded
        case .loading(let pending):
            let outcome = pending.wait()
            state = .finished(outcome)
            let made = try outcome.get()
            for warning in made.warnings { reporter.warning(warning) }
            if let lint, let report = made.lint { try lint.report(report, reporter: reporter) }
            return made.loaded
        }
    }
}

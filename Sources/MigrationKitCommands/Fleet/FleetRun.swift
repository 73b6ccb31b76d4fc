import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

/// What one command did to one database of a fleet.
package struct FleetOutcome<Value: Sendable>: Sendable {
    package enum State: Sendable {
        /// The command's work on it ended as it should.
        case finished
        /// It failed, or finished with a verdict that is a failure (a check that did not
        /// pass): `failure` says which, with the database's own exit code.
        case failed
        /// The process was asked to stop (Ctrl-C, SIGTERM) while this database ran: its
        /// change was rolled back, and it is as it was.
        case stopped
        /// The process was asked to stop before this database's turn.
        case notStarted
    }

    package let path: String
    package let state: State
    /// What the command reports for it (its `--json` document), when it got that far.
    let value: Value?
    package let failure: ErrorPresentation?
    let duration: Duration
    /// The backup the command wrote of it, kept whatever happened after.
    let backup: String?
    /// After a key rotation stopped or failed on it: the key it is on now and where that
    /// key is stored, read then (`KeyRotationRecord.state`).
    var keyState: KeyState? = nil
    /// What its key rotation knows of its keys, for the fleet's last look.
    package var rotation: (any KeyRotationRecord)? = nil
}

/// The one engine every command runs a fleet on: the databases `FleetOptions` selected,
/// `jobs` at a time on threads of their own, each database as if the command ran on it
/// alone — its own locks (taken and released with it: a fleet of thousands cannot hold
/// a descriptor for each until the command ends), its own run journal and backup, its
/// own key when the key options hold `{name}` (`FleetShared` otherwise) — and one
/// database's failure never stops the others. Ctrl-C or SIGTERM stops taking databases;
/// the ones running finish or roll back, and the rest are listed as not started.
///
/// Commands supply only the work on one database (`FleetCommand`).
struct FleetRun {
    /// The command's name, for each database's change note.
    let command: String
    let paths: [String]
    let jobs: Int

    /// Runs `body` on every database, with a progress line on a terminal ("[12/200]
    /// databases done, 1 failed, about 40 s left") and none in a pipe or with --json.
    ///
    /// - Parameters:
    ///   - verb: what the progress line says the fleet is doing ("Verifying").
    ///   - world: the fleet's world, which each database's is made from.
    ///   - body: the work on the database at the path given, in that database's world
    ///     (its own locks and journal), from several threads.
    ///   - judge: the failure a finished database's result stands for (a check that
    ///     failed), or nil.
    package func run<Value: Sendable>(reporter: Reporter, verb: String, in world: CommandWorld, _ body: @escaping (String, CommandWorld) throws -> Value,
                              judge: @escaping (Value) -> ErrorPresentation? = { _ in nil }) -> [FleetOutcome<Value>] {
        let total = paths.count
        let progress = ProgressLine(enabled: !reporter.quiet && !reporter.json && reporter.console.standardErrorIsTerminal, on: reporter.console)
        progress.start("\(verb) \(FleetSummary.databases(total))")
        defer { progress.stop() }
        let started = ContinuousClock.now
        let failures = FailureCount()
        return WorkerPool.map(count: total, jobs: jobs, { index in
            let outcome = runOne(paths[index], in: world, body, judge: judge, verbose: reporter.verbose)
            if outcome.failure != nil { failures.add() }
            return outcome
        }, finished: { done in
            progress.update(Self.progress(done: done, total: total, failed: failures.value, elapsed: ContinuousClock.now - started))
        }, stop: { Interruption.signal != nil },
        skipped: { FleetOutcome(path: paths[$0], state: .notStarted, value: nil, failure: nil, duration: .zero, backup: nil) })
    }

    /// Ends a fleet's run, after its table or document: stopped by a signal, with
    /// `stopped`'s sentence and that signal's code; with failed databases, with
    /// `failed`'s sentence and the worst of their codes (`CLIExitCode.worst`); else
    /// normally. The one place a fleet's exit is decided, for every command.
    ///
    /// Where no table was printed (`--quiet`, as a timer's unit runs it, or `--json`,
    /// whose document is on standard output), each failed database is named on standard
    /// error first, with its sentence and code, so "listed above" stays true in a
    /// journal that keeps standard error alone.
    static func end<Value>(_ outcomes: [FleetOutcome<Value>], reporter: Reporter, in world: CommandWorld, stopped: (Int32) -> String,
                                   failed: () -> String) throws {
        let name = world.layer.commandName
        let failures = outcomes.compactMap(\.failure)
        if reporter.quiet || reporter.json {
            for failure in failures { world.surroundings.console.error("\(name): error: \(failure.message) (exit \(failure.exitCode.rawValue))") }
        }
        if let signal = Interruption.signal {
            world.surroundings.console.error("\(name): error: \(stopped(signal))")
            throw ExitCode(CLIExitCode.stopped(by: signal).rawValue)
        }
        guard !failures.isEmpty else { return }
        world.surroundings.console.error("\(name): error: \(failed())")
        throw ExitCode(CLIExitCode.worst(failures.map(\.exitCode)).rawValue)
    }

    /// "[12/200] databases done, 1 failed, about 40 s left": done, not "migrated", as a
    /// failed database is done too and is counted apart.
    static func progress(done: Int, total: Int, failed: Int, elapsed: Duration) -> String {
        var line = "[\(done)/\(total)] databases done" + (failed > 0 ? ", \(failed) failed" : "")
        if done > 0, done < total {
            let seconds = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * Double(total - done) / Double(done)
            line += seconds < 90 ? ", about \(max(1, Int(seconds.rounded()))) s left" : ", about \(Int((seconds / 60).rounded())) min left"
        }
        return line
    }

    private func runOne<Value: Sendable>(_ path: String, in fleetWorld: CommandWorld, _ body: (String, CommandWorld) throws -> Value,
                                         judge: (Value) -> ErrorPresentation?, verbose: Bool) -> FleetOutcome<Value> {
        let started = ContinuousClock.now
        let locks = CommandLocks()
        locks.command = command
        let journal = RunJournal(locks: locks)
        defer { locks.releaseAll() }
        let world = fleetWorld.with { $0.locks = locks; $0.journal = journal }
        do {
            let value = try body(path, world)
            let failure = judge(value).map { Self.naming(path, in: $0) }
            return FleetOutcome(path: path, state: failure == nil ? .finished : .failed, value: value, failure: failure,
                                duration: ContinuousClock.now - started, backup: journal.backupWritten, rotation: journal.rotation)
        } catch {
            // A change that is all or nothing left the database as it was, whatever stopped
            // it; a key rotation's state is read (the key it is on, where that key is).
            let keyState = journal.rotation?.state() ?? nil
            if Interruption.signal != nil {
                return FleetOutcome(path: path, state: .stopped, value: nil, failure: nil,
                                    duration: ContinuousClock.now - started, backup: journal.backupWritten, keyState: keyState)
            }
            let presented = ErrorPresentation(error, in: world)?.verbose(verbose)
                ?? ErrorPresentation(row: ExitCodeDecision.unexpected, message: "unexpected failure: \(error)")
            return FleetOutcome(path: path, state: .failed, value: nil, failure: Self.naming(path, in: presented),
                                duration: ContinuousClock.now - started, backup: journal.backupWritten, keyState: keyState)
        }
    }

    /// A key rotation's last look, once every database finished and no stop was asked:
    /// each database whose rotation finished has its new key read from its place once
    /// more and opened with it, `jobs` at a time; one whose key is gone from there (a
    /// cleaner that ran after its own end) fails now, with the copy of the key kept named.
    func lastLook<Value: Sendable>(_ outcomes: [FleetOutcome<Value>]) -> [FleetOutcome<Value>] {
        guard Interruption.signal == nil, outcomes.contains(where: { $0.rotation != nil }) else { return outcomes }
        return WorkerPool.map(count: outcomes.count, jobs: jobs, { index in
            var outcome = outcomes[index]
            guard outcome.state == .finished, let rotation = outcome.rotation, let failure = rotation.lastLook() else { return outcome }
            outcome = FleetOutcome(path: outcome.path, state: .failed, value: outcome.value, failure: Self.naming(outcome.path, in: failure),
                                   duration: outcome.duration, backup: outcome.backup, keyState: rotation.state(), rotation: rotation)
            return outcome
        }, finished: { _ in }, stop: { false }, skipped: { outcomes[$0] })
    }

    /// Every line of the table and every `error` in --json names its database, whether
    /// or not the error itself did.
    private static func naming(_ path: String, in presented: ErrorPresentation) -> ErrorPresentation {
        presented.message.hasPrefix(path + ":") || presented.message.hasPrefix(path + " ") ? presented
            : presented.with(message: "\(path): \(presented.message)")
    }

    private final class FailureCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }
}

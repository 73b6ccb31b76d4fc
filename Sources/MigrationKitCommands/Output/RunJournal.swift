import Foundation
import MigrationKit
import MigrationKitFiles

/// What the running command has done so far, for the sentence a failed or stopped run
/// ends with: which database, which steps it committed, which one was in progress, and
/// the backup it wrote first. A run that fails after its backup names the file it
/// leaves; a run stopped by Ctrl-C or SIGTERM says what stays applied and what was
/// rolled back, instead of dying silently with a hot journal beside the database.
package final class RunJournal: @unchecked Sendable {
    private let lock = NSLock()
    /// The locks of the same command (or fleet database), whose change notes say what
    /// the step in progress is.
    private let locks: CommandLocks
    private var database: String?
    private var done: [String] = []
    private var current: String?
    private var rollingBack = false
    private var verifying = false
    private var allOrNothing = false
    private var backup: String?
    private var keys: (any KeyRotationRecord)?

    init(locks: CommandLocks) {
        self.locks = locks
    }

    /// The database the command works on, once it said so (`CommandWorld.announce`).
    var databasePath: String? { lock.withLock { database } }

    func started(on database: String) {
        lock.withLock { self.database = database }
    }

    /// `--atomic` and `--dry-run`: what ran is rolled back with the step that failed.
    func runsAllOrNothing() {
        lock.withLock { allOrNothing = true }
    }

    func wroteBackup(_ path: String) {
        lock.withLock { backup = path }
    }

    /// The backup this run wrote, if it wrote one.
    var backupWritten: String? { lock.withLock { backup } }

    /// What a key rotation knows of the database's keys, once it knows them: a change
    /// that is not all or nothing, whose state after a stop or a failure is read from it
    /// rather than said to be "as it was".
    package var rotation: (any KeyRotationRecord)? {
        get { lock.withLock { keys } }
        set { lock.withLock { keys = newValue } }
    }

    /// A runner's event; also what the change note says while the step runs.
    func record(_ event: MigrationEvent) {
        let activity: String? = lock.withLock {
            switch event {
            case .willApply(let identifier, let position, let total), .willRollback(let identifier, let position, let total):
                current = identifier
                if case .willRollback = event { rollingBack = true }
                return "\(rollingBack ? "rolling back" : "applying") \(identifier) (\(position) of \(total))"
            case .didApply(let identifier, _), .didRollback(let identifier, _):
                done.append(identifier)
                current = nil
                return nil
            case .willVerify:
                verifying = true
                return "verifying"
            case .didVerify:
                verifying = false
                return nil
            case .didFail:
                return nil
            }
        }
        if let activity { locks.describe(activity) }
    }

    /// How a run that was asked to stop ends (`CommandLineRunner.stopped`): what it left.
    func stop() -> ErrorPresentation? {
        guard let signal = Interruption.signal else { return nil }
        return ErrorPresentation(row: ExitCodeDecision.stopped(by: signal), message: stopped(by: signal))
    }

    /// The sentence for `presentation`, a failure of this run: any failure after a
    /// backup names it.
    func annotate(_ presentation: ErrorPresentation) -> ErrorPresentation {
        guard let backup = lock.withLock({ backup }), !presentation.message.contains(backup) else { return presentation }
        return presentation.with(message: presentation.message + " The backup written before the change is kept: \(backup).")
    }

    private func stopped(by signal: Int32) -> String {
        if let state = rotation?.state() {
            let target = lock.withLock { database }.map { " \($0)" } ?? ""
            return "Stopped by \(Interruption.name(of: signal)) during the key rotation: the database\(target) is \(state.clause). Run it again to finish."
        }
        return lock.withLock {
            let by = "Stopped by \(Interruption.name(of: signal))"
            let target = database.map { " \($0)" } ?? ""
            let verb = rollingBack ? "rolled back" : "applied"
            let kept = backup.map { " The backup written first is kept: \($0)." } ?? ""
            let again = database == nil ? "" : " Run it again to finish."
            if let current {
                let doing = "\(by) while \(rollingBack ? "rolling back" : "applying") \(current)\(database.map { " on \($0)" } ?? "")"
                if allOrNothing { return "\(doing): the whole run was rolled back, and the database is as it was.\(kept)" }
                let before = done.isEmpty ? "" : "; \(list(done)), \(verb) before it, \(done.count == 1 ? "stays" : "stay") \(verb)"
                let undone = rollingBack ? "\(current) stays applied (its rollback was undone)" : "\(current) was rolled back"
                return "\(doing): \(undone)\(before).\(kept)\(again)"
            }
            if verifying, !allOrNothing {
                // What was applied is committed; the rerun would find nothing to verify.
                let stays = done.isEmpty ? "" : "\(list(done)) \(done.count == 1 ? "stays" : "stay") \(verb), and "
                return "\(by) while verifying\(database.map { " \($0)" } ?? ""): \(stays)the verification did not finish; run `verify` to check the database.\(kept)"
            }
            if !done.isEmpty, !allOrNothing {
                return "\(by) after \(rollingBack ? "rolling back" : "applying") \(list(done))\(database.map { " on \($0)" } ?? ""): \(done.count == 1 ? "it stays" : "they stay") \(verb), and nothing else was started.\(kept)\(again)"
            }
            return database == nil ? "\(by) before the command finished." : "\(by) before the command finished; the database\(target) is as it was.\(kept)"
        }
    }

    private func list(_ identifiers: [String]) -> String {
        identifiers.count <= 1 ? identifiers.joined() : identifiers.dropLast().joined(separator: ", ") + " and " + identifiers[identifiers.count - 1]
    }
}

import Foundation

/// Running one step, and naming it (with the file and line of a failing statement)
/// in whatever it throws.
extension MigrationEngine {
    /// Applies a step; its ledger and history rows are the engine's to write (each step
    /// its own in one transaction, `RunHistory` for a run of many).
    ///
    /// - Parameters:
    ///   - recordingChanges: learn which tables the step writes, for a verification
    ///     limited to changes; otherwise nothing is returned.
    ///   - appliedMerged: for a merged step in GRDB's form, the steps it replaces that
    ///     are applied (`MigrationPlan.appliedMerged`).
    func apply(_ step: MigrationStep<Database>, in db: Database, recordingChanges: Bool, appliedMerged: Set<String>? = nil) throws -> ChangedTables {
        var changed = ChangedTables()
        if recordingChanges {
            let recorded = try db.recordingWrittenTables { try run(step, phase: .apply, in: db, appliedMerged: appliedMerged) }
            changed.add(recorded.tables, renamesTable: recorded.renamesTable)
        } else {
            try run(step, phase: .apply, in: db, appliedMerged: appliedMerged)
        }
        return changed
    }

    /// What a step's transaction threw, as the observer hears it and the caller throws
    /// it: foreign-key violations, found after the step's closure returned by the
    /// transaction around it, as that step's failure (`step`: nil for several steps at
    /// once, whose violations are the transaction's).
    func failure(_ error: any Error, of step: MigrationStep<Database>?, phase: MigrationStepError.Phase = .apply) -> any Error {
        var failure = error
        if let step, let error = error as? MigrationKitError {
            switch error {
            case .foreignKeyViolations, .foreignKeyViolationsAdded:
                failure = MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: step.sourceFile, line: step.sourceLine, underlying: error)
            default:
                break
            }
        }
        if let failure = failure as? MigrationStepError { observer?(.didFail(failure)) }
        return failure
    }

    /// Runs a step's closure, wrapping what it throws so the report names the step and,
    /// for SQL, the file and line of the failing statement.
    ///
    /// - Parameter appliedMerged: for a merged step in GRDB's form, what its closure is
    ///   given.
    func run(_ step: MigrationStep<Database>, phase: MigrationStepError.Phase, in db: Database,
                     appliedMerged: Set<String>? = nil) throws {
        do {
            try db.runningStep {
                switch phase {
                case .apply:
                    if let applyMerged = step.applyMerged { try applyMerged(db, appliedMerged ?? []) } else { try step.apply(db) }
                case .rollback:
                    try step.rollback?(db)
                }
            }
            if !db.isInsideTransaction { throw StepEndedTransaction() }
        } catch {
            throw Self.stepError(step, phase, error)
        }
    }

    /// What a step threw, as the step's failure (`MigrationStepError`): at the file and
    /// line of a migration file's failing statement, else where the step was declared;
    /// a COMMIT the layer refused is `StepEndedTransaction`.
    package static func stepError(_ step: MigrationStep<Database>, _ phase: MigrationStepError.Phase, _ error: any Error) -> MigrationStepError {
        switch error {
        case let error as StepEndedTransaction:
            return located(step, phase, error, file: nil, line: nil)
        case let error as any SourceLocatedError:
            // The file and line are the step error's; what failed is the database's own error.
            let failure = error.underlyingError ?? error
            return located(step, phase, Database.isRefusedCommit(failure) ? StepEndedTransaction() : failure,
                           file: error.sourcePath, line: error.sourceLine)
        default:
            // A Swift step: reported where it was declared, not at a line of the SQL
            // string it ran.
            return located(step, phase, Database.isRefusedCommit(error) ? StepEndedTransaction() : error, file: nil, line: nil)
        }
    }

    /// The step's failure, at `file` and `line` (a migration file's statement), else
    /// where the step was declared.
    private static func located(_ step: MigrationStep<Database>, _ phase: MigrationStepError.Phase, _ error: any Error,
                                file: String?, line: Int?) -> MigrationStepError {
        MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: file ?? step.sourceFile,
                           line: file == nil ? step.sourceLine : line, underlying: error)
    }
}

/// A step ran COMMIT, END or ROLLBACK itself, ending the transaction the runner gave it.
public struct StepEndedTransaction: LocalizedError, CustomStringConvertible {
    /// The failure of a step found outside the transaction it was given.
    package init() {}

    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }

    public var description: String {
        "it ended the runner's transaction (COMMIT, END or ROLLBACK inside a migration); remove that statement: "
            + "the runner runs every migration in its own transaction. Nothing of the step was kept and it was not recorded."
    }
}

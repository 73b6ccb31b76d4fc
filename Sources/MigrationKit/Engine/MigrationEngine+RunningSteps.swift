import Foundation

/// Running one step, and naming it (with the file and line of a failing statement)
/// in whatever it throws.
extension MigrationEngine {
    /// Applies a step; its ledger and history rows are the engine's to write (each step
    /// its own in one transaction, `RunHistory` for a run of many).
    ///
    /// - Parameter recordingChanges: learn which tables the step writes, for a
    ///   verification limited to changes; otherwise nothing is returned.
    func apply(_ step: MigrationStep<Database>, in db: Database, recordingChanges: Bool) throws -> ChangedTables {
        var changed = ChangedTables()
        if recordingChanges {
            let recorded = try db.recordingWrittenTables { try run(step, phase: .apply, in: db) }
            changed.add(recorded.tables, renamesTable: recorded.renamesTable)
        } else {
            try run(step, phase: .apply, in: db)
        }
        return changed
    }

    /// Foreign-key violations are found after a step's closure returns, by the
    /// transaction around it; report them as that step's failure.
    static func attributing(_ error: any Error, to step: MigrationStep<Database>?, phase: MigrationStepError.Phase = .apply) -> any Error {
        guard let step, let error = error as? MigrationKitError else { return error }
        switch error {
        case .foreignKeyViolations, .foreignKeyViolationsAdded:
            return MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: step.sourceFile, line: step.sourceLine, underlying: error)
        default:
            return error
        }
    }

    /// Runs a step's closure, wrapping what it throws so the report names the step and,
    /// for SQL, the file and line of the failing statement.
    package func run(_ step: MigrationStep<Database>, phase: MigrationStepError.Phase, in db: Database) throws {
        do {
            try db.refusingCommits {
                switch phase {
                case .apply: try step.apply(db)
                case .rollback: try step.rollback?(db)
                }
            }
            if !db.isInsideTransaction { throw StepEndedTransaction() }
        } catch let error as StepEndedTransaction {
            throw stepError(step, phase, error, file: nil, line: nil)
        } catch let error as any SourceLocatedError {
            // The file and line are the step error's; what failed is the database's own error.
            let failure = error.underlyingError ?? error
            if Database.isRefusedCommit(failure) {
                throw stepError(step, phase, StepEndedTransaction(), file: error.sourcePath, line: error.sourceLine)
            }
            throw stepError(step, phase, failure, file: error.sourcePath, line: error.sourceLine)
        } catch {
            // A Swift step: reported where it was declared, not at a line of the SQL
            // string it ran.
            throw stepError(step, phase, Database.isRefusedCommit(error) ? StepEndedTransaction() : error, file: nil, line: nil)
        }
    }

    /// The step's failure, at `file` and `line` (a migration file's statement), else
    /// where the step was declared.
    private func stepError(_ step: MigrationStep<Database>, _ phase: MigrationStepError.Phase, _ error: any Error,
                           file: String?, line: Int?) -> MigrationStepError {
        MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: file ?? step.sourceFile,
                           line: file == nil ? step.sourceLine : line, underlying: error)
    }
}

/// A step ran COMMIT, END or ROLLBACK itself, ending the transaction the runner gave it.
public struct StepEndedTransaction: LocalizedError, CustomStringConvertible {
    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }

    public var description: String {
        "it ended the runner's transaction (COMMIT, END or ROLLBACK inside a migration); remove that statement: "
            + "the runner runs every migration in its own transaction. Nothing of the step was kept and it was not recorded."
    }
}

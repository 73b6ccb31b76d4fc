import MigrationKit

/// Running one step, and naming it (with the file and line of a failing statement)
/// in whatever it throws.
extension SQLCipherMigrationRunner {
    /// Applies a step; its ledger and history rows are the engine's to write (each step
    /// its own in one transaction, `RunHistory` for a run of many).
    ///
    /// - Parameter recordingChanges: learn which tables the step writes, for a
    ///   verification limited to changes; otherwise nothing is returned.
    func apply(_ step: SQLCipherMigrationStep, in db: SQLCipherDatabase, recordingChanges: Bool) throws -> ChangedTables {
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
    static func attributing(_ error: any Error, to step: SQLCipherMigrationStep?, phase: MigrationStepError.Phase = .apply) -> any Error {
        guard let step, let error = error as? MigrationKitError else { return error }
        switch error {
        case .foreignKeyViolations, .foreignKeyViolationsAdded:
            return MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: step.sourceFile, line: nil, underlying: error)
        default:
            return error
        }
    }

    /// Runs a step's closure, wrapping what it throws so the report names the step and,
    /// for SQL, the file and line of the failing statement.
    func run(_ step: SQLCipherMigrationStep, phase: MigrationStepError.Phase, in db: SQLCipherDatabase) throws {
        do {
            try db.forbiddingCommits {
                switch phase {
                case .apply: try step.apply(db)
                case .rollback: try step.rollback?(db)
                }
            }
            if !db.isInsideTransaction { throw StepEndedTransaction() }
        } catch let error as SQLCipherError where error.resultCode == .SQLITE_CONSTRAINT_COMMITHOOK {
            throw stepError(step, phase, StepEndedTransaction(), location: SQLFileLocation(error))
        } catch let error as SQLFileStatementError where error.underlying.resultCode == .SQLITE_CONSTRAINT_COMMITHOOK {
            throw stepError(step, phase, StepEndedTransaction(), location: SQLFileLocation(file: error.sourcePath, line: error.sourceLine))
        } catch let error as StepEndedTransaction {
            throw stepError(step, phase, error, location: nil)
        } catch let error as any SourceLocatedError {
            throw stepError(step, phase, error, location: SQLFileLocation(file: error.sourcePath, line: error.sourceLine))
        } catch {
            throw stepError(step, phase, error, location: SQLFileLocation(error))
        }
    }

    private func stepError(_ step: SQLCipherMigrationStep, _ phase: MigrationStepError.Phase, _ error: any Error, location: SQLFileLocation?) -> MigrationStepError {
        MigrationStepError(
            identifier: step.identifier, phase: phase, sourceFile: location?.file ?? step.sourceFile,
            line: location?.line, underlying: error)
    }
}

/// Where a failing statement was, for `file:line` reports.
private struct SQLFileLocation {
    let file: String?
    let line: Int?

    init(file: String?, line: Int?) {
        self.file = file
        self.line = line
    }

    /// The line of an SQLCipher error inside a step's SQL (the step's own file).
    init?(_ error: any Error) {
        guard let line = (error as? SQLCipherError)?.location?.line else { return nil }
        self.init(file: nil, line: line)
    }
}

/// A step ran COMMIT, END or ROLLBACK itself, ending the transaction the runner gave it.
public struct StepEndedTransaction: Error, CustomStringConvertible {
    public var description: String {
        "it ended the runner's transaction (COMMIT, END or ROLLBACK inside a migration); remove that statement: "
            + "the runner runs every migration in its own transaction. Nothing of the step was kept and it was not recorded."
    }
}

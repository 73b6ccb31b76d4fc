/// A step's `apply` or `rollback` failed (or left foreign-key violations behind); the
/// step's transaction was rolled back and no later step ran.
public struct MigrationStepError: ExplainableError, CustomStringConvertible {
    /// When the step failed: while it was applied, or while it was rolled back.
    public enum Phase: String, Sendable {
        /// While the step was applied (by its `apply`, or its foreign-key check after it).
        case apply
        /// While the step was rolled back (by its `rollback`, or its foreign-key check after it).
        case rollback
    }

    /// The failing step's identifier, as recorded in grdb_migrations.
    public let identifier: String
    /// Whether the step failed while applying or while rolling back.
    public let phase: Phase
    /// The step's source file, when it came from one.
    public let sourceFile: String?
    /// 1-based line in `sourceFile` of the failing statement, when known.
    public let line: Int?
    /// What the step threw.
    public let underlying: any Error

    /// Wraps what a step threw with the step's identifier, the phase and, when known, the
    /// file and line of the failing statement.
    public init(identifier: String, phase: Phase, sourceFile: String?, line: Int?, underlying: any Error) {
        self.identifier = identifier
        self.phase = phase
        self.sourceFile = sourceFile
        self.line = line
        self.underlying = underlying
    }

    /// What the step's failure means, when what it threw knows (a full disk, an I/O
    /// error): the step is not to blame, the files are.
    public var explanation: FailureExplanation? { (underlying as? any ExplainableError)?.explanation }

    /// `file:line: message` when the location is known, as compilers report errors.
    public var description: String {
        let verb = phase == .apply ? "Migration" : "Rollback of"
        let place: String
        if let sourceFile {
            place = line.map { "\(sourceFile):\($0): " } ?? "\(sourceFile): "
        } else {
            place = ""
        }
        if let explanation {
            return "\(place)\(verb) \"\(identifier)\" failed because \(explanation.cause), and was rolled back; \(explanation.fix)"
        }
        return "\(place)\(verb) \"\(identifier)\" failed and was rolled back: \(underlying)"
    }
}

/// A host integration's own verification closure threw.
public struct HostVerificationError: Error, CustomStringConvertible {
    /// Which of the app's verification closures (`MigrationHostIntegration`) threw; its raw
    /// value names it in messages and check names.
    public enum Part: String, Sendable {
        /// `verifyIntegrity`, the app's check of the file itself.
        case integrity
        /// `verifyPostMigration`, the app's check of the schema after the steps.
        case postMigration = "post-migration"
    }

    /// Which closure threw.
    public let part: Part
    /// What the closure threw.
    public let underlying: any Error

    /// Wraps what the app's closure for `part` threw.
    public init(part: Part, underlying: any Error) {
        self.part = part
        self.underlying = underlying
    }

    public var description: String {
        "The app's \(part.rawValue) verification failed: \(underlying)"
    }
}

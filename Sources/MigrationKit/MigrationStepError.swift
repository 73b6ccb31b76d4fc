/// A step's `apply` or `rollback` failed (or left foreign-key violations behind); the
/// step's transaction was rolled back and no later step ran.
public struct MigrationStepError: ExplainableError, CustomStringConvertible {
    public enum Phase: String, Sendable {
        case apply
        case rollback
    }

    public let identifier: String
    public let phase: Phase
    /// The step's source file, when it came from one.
    public let sourceFile: String?
    /// 1-based line in `sourceFile` of the failing statement, when known.
    public let line: Int?
    /// What the step threw.
    public let underlying: any Error

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
    public enum Part: String, Sendable {
        case integrity
        case postMigration = "post-migration"
    }

    public let part: Part
    public let underlying: any Error

    public init(part: Part, underlying: any Error) {
        self.part = part
        self.underlying = underlying
    }

    public var description: String {
        "The app's \(part.rawValue) verification failed: \(underlying)"
    }
}

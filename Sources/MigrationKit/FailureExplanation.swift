/// What a failure means for the user, in words: what happened, and what to do.
///
/// The library's errors carry it themselves (an error about the file system rather
/// than the SQL: a full disk, an I/O error, a read-only folder), so an app that embeds
/// the library prints the same sentences as the `migrationkit` tool, which only adds
/// an exit code and formatting.
public struct FailureExplanation: Hashable, Sendable {
    /// A stable name of the problem ("diskFull"), for machine-readable output.
    public let name: String
    /// What happened, to follow "because": "the disk is full".
    public let cause: String
    /// What to do: "free some space …, then run the command again."
    public let fix: String

    /// An explanation from its stable name, its cause and its fix.
    public init(name: String, cause: String, fix: String) {
        self.name = name
        self.cause = cause
        self.fix = fix
    }
}

/// An error that may know its `FailureExplanation`.
public protocol ExplainableError: Error {
    /// The explanation, or nil when the error's own message is the best there is.
    var explanation: FailureExplanation? { get }
}

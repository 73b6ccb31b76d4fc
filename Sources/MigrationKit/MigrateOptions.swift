/// How `migrate` runs.
public struct MigrateOptions: Sendable {
    public enum Mode: Sendable {
        /// Each step in its own transaction (GRDB's behaviour): a failure keeps the
        /// steps before it.
        case perStep
        /// Every pending step and the verification in one transaction: a failure
        /// anywhere leaves the database exactly as before (Flyway's `group`).
        case atomic
        /// As `atomic`, then rolled back whatever happens: what would apply, how long
        /// it takes, and how the schema would change, with the file left unchanged.
        case dryRun
    }

    public var mode: Mode
    /// Edited steps whose new checksum is to be recorded instead of refused.
    public var acceptModified: Set<String>

    public init(mode: Mode = .perStep, acceptModified: Set<String> = []) {
        self.mode = mode
        self.acceptModified = acceptModified
    }
}

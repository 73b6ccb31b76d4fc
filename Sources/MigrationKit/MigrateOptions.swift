/// How `migrate` runs.
public struct MigrateOptions: Sendable {
    /// How the pending steps are grouped into transactions, and whether they are kept.
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

    /// What the verification after the steps looks at.
    public enum Verification: Sendable {
        /// What the steps changed, at the cost of what they changed: `quick_check` of
        /// each table they wrote (SQLite 3.33+; the whole file on older ones), and, in
        /// each transaction, `foreign_key_check` of those tables and of the tables whose
        /// foreign keys point at them. A small migration of a large database no longer
        /// reads the whole file.
        case changedTables
        /// The whole file, as `migrationkit verify` checks it: `cipher_integrity_check`
        /// (SQLCipher 4.2+), `quick_check` and `foreign_key_check` of every table.
        case wholeFile
    }

    /// How the steps run: each in its own transaction (the default), all in one, or as a
    /// dry run.
    public var mode: Mode
    /// Edited steps whose new checksum is to be recorded instead of refused.
    public var acceptModified: Set<String>
    /// Identifiers in the database's ledger that no registered step has, to migrate past
    /// instead of refusing the database as a newer version's (with `.strict` history
    /// checks; `.grdb` refuses none). For a migrator registered in passes, the first
    /// pass names the steps the later ones register; any other unknown identifier is
    /// still refused.
    public var acceptUnknown: Set<String>
    /// What the verification after the steps checks: by default, only what they changed.
    public var verification: Verification

    /// Options for one migrate call. The defaults run each step in its own transaction,
    /// refuse every edited step and every unknown identifier, and verify only what the
    /// steps changed.
    public init(mode: Mode = .perStep, acceptModified: Set<String> = [], verification: Verification = .changedTables,
                acceptUnknown: Set<String> = []) {
        self.mode = mode
        self.acceptModified = acceptModified
        self.verification = verification
        self.acceptUnknown = acceptUnknown
    }
}

import MigrationKit
/// How `SQLCipherWriter` opens a database.
public struct SQLCipherConfiguration: Sendable {
    /// Create the file when it does not exist (mode 0600). When false, a missing file
    /// is an error, which is what a command-line tool wants for a mistyped path.
    public var createIfMissing: Bool = true
    /// Open read-only: writes fail, and the file is never modified.
    public var readOnly: Bool = false
    /// How long to wait for another connection's lock before failing with `.busy`.
    public var busyTimeout: Duration = .seconds(5)
    /// For a reader (`status`, `verify`): when another process is changing the database
    /// (it holds the write lock and MigrationKit's change lock, as a long migration
    /// does), fail with `.busy` after a moment instead of waiting out `busyTimeout`, so
    /// the reader can say at once who is changing it. Off by default.
    package var givesWayToChanges: Bool = false
    /// Enforce foreign keys (`PRAGMA foreign_keys = ON`), as GRDB does by default.
    public var foreignKeysEnabled: Bool = true
    /// Cipher parameters applied right after the key, for databases not made with the
    /// linked SQLCipher's defaults. When every setting is nil, an existing database is
    /// opened in whichever known format its key decrypts (see `CipherFormat`).
    public var cipher: CipherSettings = CipherSettings()
    /// Turn on SQLCipher's memory security before keying (SQLCipher 4.x; see
    /// `SQLCipherLibrary.enableMemorySecurity()`). Process-wide and one-way, so off by
    /// default for a library inside an app; the `migrationkit` tool turns it on.
    public var memorySecurity: Bool = false
    /// Built-in collations registered under the names of collations only the app that
    /// made the database registers (`AppCollation`), by lower-cased name: for a command
    /// that reads and copies such a database (see `CollationStandIn` for what the copy's
    /// indexes then need). None by default.
    package var collationStandIns: [String: CollationStandIn] {
        get { app.collationStandIns }
        set { app.collationStandIns = newValue }
    }
    /// SQLite extensions loaded into every connection opened with this configuration,
    /// once it is keyed and proven (`--load-extension`; see `LoadableExtension`). None by
    /// default.
    package var extensions: [LoadableExtension] {
        get { app.extensions }
        set { app.extensions = newValue }
    }
    /// Runs on every connection opened with this configuration, once it is keyed and its
    /// key proven, before anything else reads the database: where an app registers what
    /// only it has and its schema needs — SQL functions its triggers and views call,
    /// collations, full-text tokenizers (through `SQLCipherDatabase.sqliteConnection`) —
    /// as GRDB's `Configuration.prepareDatabase` does. The copies, backups and checks a
    /// command makes open their connections with it too. Nil by default.
    public var prepareDatabase: (@Sendable (SQLCipherDatabase) throws -> Void)? {
        get { app.prepareDatabase }
        set { app.prepareDatabase = newValue }
    }
    /// All of the above, as the copying jobs take them (`AppRegistrations`).
    package var app = AppRegistrations()

    /// The default options: create a missing file, read and write, wait up to five
    /// seconds for a lock, enforce foreign keys, no cipher settings, memory security off.
    public init() {}
}

/// What went wrong with a database, in terms a user acts on: the kinds both
/// connections' errors share (`SQLCipherError.Kind` is this type), so one
/// `catch DatabaseErrorKind.wrongKey` matches a wrong key whichever layer opened the
/// file. A struct with static members so new kinds never break a caller's `switch`.
public struct DatabaseErrorKind: Hashable, Sendable, CustomStringConvertible {
    /// The kind's name, e.g. "wrongKey".
    public let rawValue: String
    /// The kind with this name.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A statement failed; see the error's result code and message.
    public static let sqlite = DatabaseErrorKind(rawValue: "sqlite")
    /// A key was given, but it does not decrypt the file (or the file is not a SQLCipher database).
    public static let wrongKey = DatabaseErrorKind(rawValue: "wrongKey")
    /// A key was given for a plaintext SQLite database.
    public static let notEncrypted = DatabaseErrorKind(rawValue: "notEncrypted")
    /// No key was given and the file is not a plaintext database: it is encrypted, or not a database.
    public static let keyRequired = DatabaseErrorKind(rawValue: "keyRequired")
    /// The file is not a database at all (with or without a key).
    public static let notADatabase = DatabaseErrorKind(rawValue: "notADatabase")
    /// The key opens the file, but a page or its schema does not read: the file is
    /// damaged (a copy cut short, a disk error). Trying again fails the same way.
    public static let damaged = DatabaseErrorKind(rawValue: "damaged")
    /// The file cannot be opened (missing, a directory, no permission).
    package static let cannotOpen = DatabaseErrorKind(rawValue: "cannotOpen")
    /// The key itself is unusable (empty passphrase, raw key of the wrong size).
    package static let invalidKey = DatabaseErrorKind(rawValue: "invalidKey")
    /// Another connection held the lock for longer than the busy timeout (or, for a
    /// connection that gives way to changes, another process is changing the database).
    public static let busy = DatabaseErrorKind(rawValue: "busy")
    /// Another process has the database open, and the operation needs it alone (a
    /// WAL database's cipher upgrade): waiting would not help; stopping that process would.
    package static let inUse = DatabaseErrorKind(rawValue: "inUse")
    /// The process was asked to stop: the work in progress stopped and its transaction
    /// was rolled back.
    package static let interrupted = DatabaseErrorKind(rawValue: "interrupted")
    /// A file operation failed (disk full, no permission, a failed rename).
    package static let fileSystem = DatabaseErrorKind(rawValue: "fileSystem")
    /// The operation does not apply to this database (e.g. rekeying a plaintext one).
    package static let wrongOperation = DatabaseErrorKind(rawValue: "wrongOperation")
    /// The database already fails a check the operation's result must pass (foreign
    /// keys a copy would keep): what `verify` reports, to be fixed before the operation.
    package static let failsItsChecks = DatabaseErrorKind(rawValue: "failsItsChecks")
    /// A cipher setting the linked SQLCipher cannot honour.
    package static let unsupportedCipherSetting = DatabaseErrorKind(rawValue: "unsupportedCipherSetting")
    /// The schema names a collation only the app that made the database registers
    /// (`AppCollation`), and nothing stands in for it.
    package static let unregisteredCollation = DatabaseErrorKind(rawValue: "unregisteredCollation")
    /// An extension given to load (`--load-extension`) could not be loaded: no such
    /// library, no such entry point, or its entry point failed.
    package static let extensionNotLoaded = DatabaseErrorKind(rawValue: "extensionNotLoaded")
    /// The API was used in a way it does not support (e.g. a re-entrant call).
    package static let misuse = DatabaseErrorKind(rawValue: "misuse")

    /// Every kind above, for the tables that must give each a row (the command lines'
    /// exit codes, checked against the README).
    package static let everyKind: [DatabaseErrorKind] = [
        .sqlite, .wrongKey, .notEncrypted, .keyRequired, .notADatabase, .damaged, .cannotOpen, .invalidKey, .busy, .inUse,
        .interrupted, .fileSystem, .wrongOperation, .failsItsChecks, .unsupportedCipherSetting, .unregisteredCollation,
        .extensionNotLoaded, .misuse,
    ]

    /// `catch DatabaseErrorKind.wrongKey` matches any error of that kind
    /// (`SQLCipherError`, `UnreadableDatabaseError`).
    public static func ~= (pattern: DatabaseErrorKind, error: any Error) -> Bool {
        (error as? any KindedDatabaseError)?.kind == pattern
    }
}

/// An error that says its `DatabaseErrorKind`.
package protocol KindedDatabaseError: Error {
    /// What went wrong, for a caller to act on.
    var kind: DatabaseErrorKind { get }
}

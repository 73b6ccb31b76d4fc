import CSQLCipher

/// An SQLite result code, primary or extended, as a matchable value.
///
/// A struct with static members, not an enum, so codes SQLite adds later never break
/// a caller's `switch`. Matching a primary code also matches its extended codes:
/// `case ResultCode.SQLITE_CONSTRAINT` matches `SQLITE_CONSTRAINT_FOREIGNKEY`.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code (the low 8 bits of an extended code).
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xff) }

    /// SQLite's English name for the code, e.g. "constraint failed".
    public var description: String {
        "\(rawValue) (\(SQLCipherDatabase.words(for: rawValue)))"
    }

    /// Success.
    public static let SQLITE_OK = ResultCode(rawValue: CSQLCipher.SQLITE_OK)
    /// A generic error, when no more specific code applies (a syntax error, a missing table).
    public static let SQLITE_ERROR = ResultCode(rawValue: CSQLCipher.SQLITE_ERROR)
    /// An internal malfunction in SQLite.
    public static let SQLITE_INTERNAL = ResultCode(rawValue: CSQLCipher.SQLITE_INTERNAL)
    /// The requested access mode for a newly created database could not be provided.
    public static let SQLITE_PERM = ResultCode(rawValue: CSQLCipher.SQLITE_PERM)
    /// An operation was aborted before it completed, for example by a `ROLLBACK`.
    public static let SQLITE_ABORT = ResultCode(rawValue: CSQLCipher.SQLITE_ABORT)
    /// The database file is locked by another connection (usually another process).
    public static let SQLITE_BUSY = ResultCode(rawValue: CSQLCipher.SQLITE_BUSY)
    /// A conflict inside one connection, or between connections sharing a cache, locked a table.
    public static let SQLITE_LOCKED = ResultCode(rawValue: CSQLCipher.SQLITE_LOCKED)
    /// SQLite could not allocate the memory it needed.
    public static let SQLITE_NOMEM = ResultCode(rawValue: CSQLCipher.SQLITE_NOMEM)
    /// A write was attempted on a database that cannot be written.
    public static let SQLITE_READONLY = ResultCode(rawValue: CSQLCipher.SQLITE_READONLY)
    /// The operation was interrupted (`sqlite3_interrupt`).
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: CSQLCipher.SQLITE_INTERRUPT)
    /// The operating system reported an I/O error; extended codes say which operation failed.
    public static let SQLITE_IOERR = ResultCode(rawValue: CSQLCipher.SQLITE_IOERR)
    /// The database file is malformed (damaged, or with SQLCipher, a page that fails its HMAC).
    public static let SQLITE_CORRUPT = ResultCode(rawValue: CSQLCipher.SQLITE_CORRUPT)
    /// A file-control opcode or system call name that SQLite does not know (internal use).
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: CSQLCipher.SQLITE_NOTFOUND)
    /// A write failed because the disk is full.
    public static let SQLITE_FULL = ResultCode(rawValue: CSQLCipher.SQLITE_FULL)
    /// SQLite could not open a file: the database, or a journal beside it.
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: CSQLCipher.SQLITE_CANTOPEN)
    /// A problem with SQLite's file-locking protocol (in WAL mode, when a transaction starts).
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: CSQLCipher.SQLITE_PROTOCOL)
    /// Not currently used by SQLite.
    public static let SQLITE_EMPTY = ResultCode(rawValue: CSQLCipher.SQLITE_EMPTY)
    /// The database schema changed since the statement was prepared.
    public static let SQLITE_SCHEMA = ResultCode(rawValue: CSQLCipher.SQLITE_SCHEMA)
    /// A string or blob is larger than SQLite's limit allows.
    public static let SQLITE_TOOBIG = ResultCode(rawValue: CSQLCipher.SQLITE_TOOBIG)
    /// A constraint was violated; the extended codes below say which kind.
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: CSQLCipher.SQLITE_CONSTRAINT)
    /// A datatype mismatch, such as a non-integer stored into an `INTEGER PRIMARY KEY`.
    public static let SQLITE_MISMATCH = ResultCode(rawValue: CSQLCipher.SQLITE_MISMATCH)
    /// The library was used in a way it does not support; this module also reports a
    /// re-entrant `SQLCipherWriter` call with it.
    public static let SQLITE_MISUSE = ResultCode(rawValue: CSQLCipher.SQLITE_MISUSE)
    /// SQLite needs large-file support that the host does not have.
    public static let SQLITE_NOLFS = ResultCode(rawValue: CSQLCipher.SQLITE_NOLFS)
    /// An authorizer callback denied the statement.
    public static let SQLITE_AUTH = ResultCode(rawValue: CSQLCipher.SQLITE_AUTH)
    /// Not currently used by SQLite.
    public static let SQLITE_FORMAT = ResultCode(rawValue: CSQLCipher.SQLITE_FORMAT)
    /// A parameter index passed to a bind function is out of range.
    public static let SQLITE_RANGE = ResultCode(rawValue: CSQLCipher.SQLITE_RANGE)
    /// The file is not a database; with SQLCipher, also what a wrong key gives.
    public static let SQLITE_NOTADB = ResultCode(rawValue: CSQLCipher.SQLITE_NOTADB)
    /// `sqlite3_step` produced a row: not an error.
    public static let SQLITE_ROW = ResultCode(rawValue: CSQLCipher.SQLITE_ROW)
    /// `sqlite3_step` finished the statement: not an error.
    public static let SQLITE_DONE = ResultCode(rawValue: CSQLCipher.SQLITE_DONE)

    // Extended codes callers commonly match on. SQLite defines each as its primary
    // code with a number in the second byte (`SQLITE_CONSTRAINT | (3<<8)`); Swift does
    // not import those macros, so they are built the same way here.
    /// A foreign-key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = extended(.SQLITE_CONSTRAINT, 3)
    /// A NOT NULL constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = extended(.SQLITE_CONSTRAINT, 5)
    /// A PRIMARY KEY constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = extended(.SQLITE_CONSTRAINT, 6)
    /// A UNIQUE constraint failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = extended(.SQLITE_CONSTRAINT, 8)
    /// A commit turned into a rollback by a commit hook.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = extended(.SQLITE_CONSTRAINT, 2)
    /// The database file was moved, renamed or deleted since it was opened, so it cannot be written.
    public static let SQLITE_READONLY_DBMOVED = extended(.SQLITE_READONLY, 4)
    /// SQLite 3.22+: the database's folder is read-only, so its journal cannot be created.
    public static let SQLITE_READONLY_DIRECTORY = extended(.SQLITE_READONLY, 6)
    /// An I/O error while writing to the file.
    public static let SQLITE_IOERR_WRITE = extended(.SQLITE_IOERR, 3)

    /// An extended code: `primary`, refined by `number` in the second byte.
    private static func extended(_ primary: ResultCode, _ number: Int32) -> ResultCode {
        ResultCode(rawValue: primary.rawValue | (number << 8))
    }

    /// `case ResultCode.SQLITE_CONSTRAINT:` matches any constraint code, primary or extended.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        if pattern.primaryResultCode == pattern {
            return pattern == code.primaryResultCode
        }
        return pattern == code
    }

    /// `catch ResultCode.SQLITE_BUSY` matches an `SQLCipherError` with that code.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLCipherError else { return false }
        return pattern ~= error.resultCode
    }
}

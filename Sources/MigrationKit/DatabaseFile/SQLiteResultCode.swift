import Foundation

/// An SQLite result code, primary or extended, as a matchable value: the one shape both
/// connections' errors leave their connection with (SQLCipher's `SQLCipherError`, and
/// GRDB's `DatabaseError`, whose code the GRDB connection maps into this one).
///
/// Named so that it never meets GRDB's own `ResultCode` in a GRDB app's file; the
/// SQLCipher connection's apps know it as `ResultCode` (`MigrationKitSQLCipher`).
///
/// A struct with static members, not an enum, so codes SQLite adds later never break
/// a caller's `switch`. Matching a primary code also matches its extended codes:
/// `case SQLiteResultCode.SQLITE_CONSTRAINT` matches `SQLITE_CONSTRAINT_FOREIGNKEY`.
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code (the low 8 bits of an extended code).
    public var primaryResultCode: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xff) }

    /// The code and SQLite's English name for it, e.g. "19 (constraint failed)", in the
    /// words of the SQLite this process linked; the number alone in a process without one.
    public var description: String {
        guard let words = Self.linkedLibraryWords(rawValue) else { return "\(rawValue)" }
        return "\(rawValue) (\(String(cString: words)))"
    }

    /// `sqlite3_errstr` of the SQLite this process linked. The core links none (a process
    /// has exactly one: SQLCipher, or GRDB's SQLite), so it is looked up, once, among the
    /// process's symbols: SQLite's words change between versions ("file is encrypted or
    /// is not a database" before 3.16), so they are never a copy here.
    private static let linkedLibraryWords: @convention(c) (Int32) -> UnsafePointer<CChar>? = {
        typealias ErrorString = @convention(c) (Int32) -> UnsafePointer<CChar>?
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sqlite3_errstr") else { return { _ in nil } }
        return unsafeBitCast(symbol, to: ErrorString.self)
    }()

    // The primary codes (sqlite3.h's numbers, which never change).
    /// Success.
    static let SQLITE_OK = SQLiteResultCode(rawValue: 0)
    /// A generic error, when no more specific code applies (a syntax error, a missing table).
    public static let SQLITE_ERROR = SQLiteResultCode(rawValue: 1)
    /// An internal malfunction in SQLite.
    public static let SQLITE_INTERNAL = SQLiteResultCode(rawValue: 2)
    /// The requested access mode for a newly created database could not be provided.
    public static let SQLITE_PERM = SQLiteResultCode(rawValue: 3)
    /// An operation was aborted before it completed, for example by a `ROLLBACK`.
    public static let SQLITE_ABORT = SQLiteResultCode(rawValue: 4)
    /// The database file is locked by another connection (usually another process).
    public static let SQLITE_BUSY = SQLiteResultCode(rawValue: 5)
    /// A conflict inside one connection, or between connections sharing a cache, locked a table.
    public static let SQLITE_LOCKED = SQLiteResultCode(rawValue: 6)
    /// SQLite could not allocate the memory it needed.
    public static let SQLITE_NOMEM = SQLiteResultCode(rawValue: 7)
    /// A write was attempted on a database that cannot be written.
    public static let SQLITE_READONLY = SQLiteResultCode(rawValue: 8)
    /// The operation was interrupted (`sqlite3_interrupt`).
    public static let SQLITE_INTERRUPT = SQLiteResultCode(rawValue: 9)
    /// The operating system reported an I/O error; extended codes say which operation failed.
    public static let SQLITE_IOERR = SQLiteResultCode(rawValue: 10)
    /// The database file is malformed (damaged, or with SQLCipher, a page that fails its HMAC).
    public static let SQLITE_CORRUPT = SQLiteResultCode(rawValue: 11)
    /// A file-control opcode or system call name that SQLite does not know (internal use).
    static let SQLITE_NOTFOUND = SQLiteResultCode(rawValue: 12)
    /// A write failed because the disk is full.
    public static let SQLITE_FULL = SQLiteResultCode(rawValue: 13)
    /// SQLite could not open a file: the database, or a journal beside it.
    public static let SQLITE_CANTOPEN = SQLiteResultCode(rawValue: 14)
    /// A problem with SQLite's file-locking protocol (in WAL mode, when a transaction starts).
    public static let SQLITE_PROTOCOL = SQLiteResultCode(rawValue: 15)
    /// Not currently used by SQLite.
    static let SQLITE_EMPTY = SQLiteResultCode(rawValue: 16)
    /// The database schema changed since the statement was prepared.
    public static let SQLITE_SCHEMA = SQLiteResultCode(rawValue: 17)
    /// A string or blob is larger than SQLite's limit allows.
    public static let SQLITE_TOOBIG = SQLiteResultCode(rawValue: 18)
    /// A constraint was violated; the extended codes below say which kind.
    public static let SQLITE_CONSTRAINT = SQLiteResultCode(rawValue: 19)
    /// A datatype mismatch, such as a non-integer stored into an `INTEGER PRIMARY KEY`.
    public static let SQLITE_MISMATCH = SQLiteResultCode(rawValue: 20)
    /// The library was used in a way it does not support; the SQLCipher connection also
    /// reports a re-entrant `SQLCipherWriter` call with it.
    public static let SQLITE_MISUSE = SQLiteResultCode(rawValue: 21)
    /// SQLite needs large-file support that the host does not have.
    public static let SQLITE_NOLFS = SQLiteResultCode(rawValue: 22)
    /// An authorizer callback denied the statement.
    public static let SQLITE_AUTH = SQLiteResultCode(rawValue: 23)
    /// Not currently used by SQLite.
    static let SQLITE_FORMAT = SQLiteResultCode(rawValue: 24)
    /// A parameter index passed to a bind function is out of range.
    public static let SQLITE_RANGE = SQLiteResultCode(rawValue: 25)
    /// The file is not a database; with SQLCipher, also what a wrong key gives.
    public static let SQLITE_NOTADB = SQLiteResultCode(rawValue: 26)
    /// `sqlite3_step` produced a row: not an error.
    static let SQLITE_ROW = SQLiteResultCode(rawValue: 100)
    /// `sqlite3_step` finished the statement: not an error.
    static let SQLITE_DONE = SQLiteResultCode(rawValue: 101)

    // Extended codes the project and its callers match on. SQLite defines each as its
    // primary code with a number in the second byte (`SQLITE_CONSTRAINT | (3<<8)`).
    /// A foreign-key constraint failed.
    package static let SQLITE_CONSTRAINT_FOREIGNKEY = extended(.SQLITE_CONSTRAINT, 3)
    /// A NOT NULL constraint failed.
    static let SQLITE_CONSTRAINT_NOTNULL = extended(.SQLITE_CONSTRAINT, 5)
    /// A PRIMARY KEY constraint failed.
    static let SQLITE_CONSTRAINT_PRIMARYKEY = extended(.SQLITE_CONSTRAINT, 6)
    /// A UNIQUE constraint failed.
    static let SQLITE_CONSTRAINT_UNIQUE = extended(.SQLITE_CONSTRAINT, 8)
    /// A commit turned into a rollback by a commit hook.
    package static let SQLITE_CONSTRAINT_COMMITHOOK = extended(.SQLITE_CONSTRAINT, 2)
    /// The database file was moved, renamed or deleted since it was opened, so it cannot be written.
    static let SQLITE_READONLY_DBMOVED = extended(.SQLITE_READONLY, 4)
    /// SQLite 3.22+: the database's folder is read-only, so its journal cannot be created.
    static let SQLITE_READONLY_DIRECTORY = extended(.SQLITE_READONLY, 6)
    /// An I/O error while reading: the file is shorter than the page read.
    static let SQLITE_IOERR_SHORT_READ = extended(.SQLITE_IOERR, 2)
    /// An I/O error while writing to the file.
    static let SQLITE_IOERR_WRITE = extended(.SQLITE_IOERR, 3)

    /// An extended code: `primary`, refined by `number` in the second byte.
    private static func extended(_ primary: SQLiteResultCode, _ number: Int32) -> SQLiteResultCode {
        SQLiteResultCode(rawValue: primary.rawValue | (number << 8))
    }

    /// `case SQLiteResultCode.SQLITE_CONSTRAINT:` matches any constraint code, primary or extended.
    public static func ~= (pattern: SQLiteResultCode, code: SQLiteResultCode) -> Bool {
        if pattern.primaryResultCode == pattern {
            return pattern == code.primaryResultCode
        }
        return pattern == code
    }
}

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
        "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))"
    }

    public static let SQLITE_OK = ResultCode(rawValue: CSQLCipher.SQLITE_OK)
    public static let SQLITE_ERROR = ResultCode(rawValue: CSQLCipher.SQLITE_ERROR)
    public static let SQLITE_INTERNAL = ResultCode(rawValue: CSQLCipher.SQLITE_INTERNAL)
    public static let SQLITE_PERM = ResultCode(rawValue: CSQLCipher.SQLITE_PERM)
    public static let SQLITE_ABORT = ResultCode(rawValue: CSQLCipher.SQLITE_ABORT)
    public static let SQLITE_BUSY = ResultCode(rawValue: CSQLCipher.SQLITE_BUSY)
    public static let SQLITE_LOCKED = ResultCode(rawValue: CSQLCipher.SQLITE_LOCKED)
    public static let SQLITE_NOMEM = ResultCode(rawValue: CSQLCipher.SQLITE_NOMEM)
    public static let SQLITE_READONLY = ResultCode(rawValue: CSQLCipher.SQLITE_READONLY)
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: CSQLCipher.SQLITE_INTERRUPT)
    public static let SQLITE_IOERR = ResultCode(rawValue: CSQLCipher.SQLITE_IOERR)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: CSQLCipher.SQLITE_CORRUPT)
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: CSQLCipher.SQLITE_NOTFOUND)
    public static let SQLITE_FULL = ResultCode(rawValue: CSQLCipher.SQLITE_FULL)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: CSQLCipher.SQLITE_CANTOPEN)
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: CSQLCipher.SQLITE_PROTOCOL)
    public static let SQLITE_EMPTY = ResultCode(rawValue: CSQLCipher.SQLITE_EMPTY)
    public static let SQLITE_SCHEMA = ResultCode(rawValue: CSQLCipher.SQLITE_SCHEMA)
    public static let SQLITE_TOOBIG = ResultCode(rawValue: CSQLCipher.SQLITE_TOOBIG)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: CSQLCipher.SQLITE_CONSTRAINT)
    public static let SQLITE_MISMATCH = ResultCode(rawValue: CSQLCipher.SQLITE_MISMATCH)
    public static let SQLITE_MISUSE = ResultCode(rawValue: CSQLCipher.SQLITE_MISUSE)
    public static let SQLITE_NOLFS = ResultCode(rawValue: CSQLCipher.SQLITE_NOLFS)
    public static let SQLITE_AUTH = ResultCode(rawValue: CSQLCipher.SQLITE_AUTH)
    public static let SQLITE_FORMAT = ResultCode(rawValue: CSQLCipher.SQLITE_FORMAT)
    public static let SQLITE_RANGE = ResultCode(rawValue: CSQLCipher.SQLITE_RANGE)
    public static let SQLITE_NOTADB = ResultCode(rawValue: CSQLCipher.SQLITE_NOTADB)
    public static let SQLITE_ROW = ResultCode(rawValue: CSQLCipher.SQLITE_ROW)
    public static let SQLITE_DONE = ResultCode(rawValue: CSQLCipher.SQLITE_DONE)

    // Extended codes callers commonly match on. Spelled as numbers because the
    // C macros are expressions Swift does not import.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: 787)
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: 1299)
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: 1555)
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: 2067)
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: 1032)
    /// SQLite 3.22+: the database's folder is read-only, so its journal cannot be created.
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: 1544)
    /// A commit turned into a rollback by a commit hook.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode(rawValue: 531)
    public static let SQLITE_IOERR_WRITE = ResultCode(rawValue: 778)

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

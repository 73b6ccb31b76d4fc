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

    // Extended codes callers commonly match on. SQLite defines each as its primary
    // code with a number in the second byte (`SQLITE_CONSTRAINT | (3<<8)`); Swift does
    // not import those macros, so they are built the same way here.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = extended(.SQLITE_CONSTRAINT, 3)
    public static let SQLITE_CONSTRAINT_NOTNULL = extended(.SQLITE_CONSTRAINT, 5)
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = extended(.SQLITE_CONSTRAINT, 6)
    public static let SQLITE_CONSTRAINT_UNIQUE = extended(.SQLITE_CONSTRAINT, 8)
    /// A commit turned into a rollback by a commit hook.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = extended(.SQLITE_CONSTRAINT, 2)
    public static let SQLITE_READONLY_DBMOVED = extended(.SQLITE_READONLY, 4)
    /// SQLite 3.22+: the database's folder is read-only, so its journal cannot be created.
    public static let SQLITE_READONLY_DIRECTORY = extended(.SQLITE_READONLY, 6)
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

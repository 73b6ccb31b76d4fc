import CSQLCipher
import MigrationKit

/// Where in a multi-statement SQL text a statement starts.
public struct SQLLocation: Hashable, Sendable, CustomStringConvertible {
    /// 1-based index of the statement in the text.
    public let statementIndex: Int
    /// 1-based line SQLite points at: the token where it stopped parsing, for an error
    /// it locates (a syntax error); otherwise the statement's first token.
    public let line: Int
    /// 0-based UTF-8 offset of the statement's first token.
    public let offset: Int

    /// A location from its three parts, each counted as its property says.
    public init(statementIndex: Int, line: Int, offset: Int) {
        self.statementIndex = statementIndex
        self.line = line
        self.offset = offset
    }

    public var description: String { "line \(line), statement \(statementIndex)" }
}

/// An error from the SQLCipher layer.
///
/// Carries SQLite's result code (matchable with `catch ResultCode.SQLITE_BUSY` or
/// `catch SQLCipherError.Kind.wrongKey`), a message and the failing SQL. It never
/// carries bound values or key material: messages come from SQLite (which does not
/// echo bound values) or from MigrationKit's own sentences, and keys are only ever
/// passed through `sqlite3_key`, never as SQL text.
public struct SQLCipherError: ExplainableError, RemediableError, Sendable {
    /// What went wrong, in terms a user acts on. A struct with static members so new
    /// kinds never break a caller's `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name, e.g. "wrongKey".
        public let rawValue: String
        /// The kind with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A statement failed; see `resultCode` and `message`.
        public static let sqlite = Kind(rawValue: "sqlite")
        /// A key was given, but it does not decrypt the file (or the file is not a SQLCipher database).
        public static let wrongKey = Kind(rawValue: "wrongKey")
        /// A key was given for a plaintext SQLite database.
        public static let notEncrypted = Kind(rawValue: "notEncrypted")
        /// No key was given and the file is not a plaintext database: it is encrypted, or not a database.
        public static let keyRequired = Kind(rawValue: "keyRequired")
        /// The file is not a database at all (with or without a key).
        public static let notADatabase = Kind(rawValue: "notADatabase")
        /// The file cannot be opened (missing, a directory, no permission).
        public static let cannotOpen = Kind(rawValue: "cannotOpen")
        /// The key itself is unusable (empty passphrase, raw key of the wrong size).
        public static let invalidKey = Kind(rawValue: "invalidKey")
        /// Another connection held the lock for longer than the busy timeout (or, for a
        /// connection that gives way to changes, another process is changing the database).
        public static let busy = Kind(rawValue: "busy")
        /// Another process has the database open, and the operation needs it alone (a
        /// WAL database's cipher upgrade): waiting would not help; stopping that process would.
        public static let inUse = Kind(rawValue: "inUse")
        /// The process was asked to stop (`Interruption`): the work in progress stopped and
        /// its transaction was rolled back.
        public static let interrupted = Kind(rawValue: "interrupted")
        /// A file operation failed (disk full, no permission, a failed rename).
        public static let fileSystem = Kind(rawValue: "fileSystem")
        /// The operation does not apply to this database (e.g. rekeying a plaintext one).
        public static let wrongOperation = Kind(rawValue: "wrongOperation")
        /// A cipher setting the linked SQLCipher cannot honour.
        public static let unsupportedCipherSetting = Kind(rawValue: "unsupportedCipherSetting")
        /// The API was used in a way it does not support (e.g. a re-entrant call).
        public static let misuse = Kind(rawValue: "misuse")

        /// `catch SQLCipherError.Kind.wrongKey` matches an `SQLCipherError` of that kind.
        public static func ~= (pattern: Kind, error: any Error) -> Bool {
            (error as? SQLCipherError)?.kind == pattern
        }
    }

    /// What went wrong, for a caller to act on.
    public let kind: Kind
    /// SQLite's result code; for a failure MigrationKit finds itself, the code closest
    /// to it (`.SQLITE_ERROR` when none is given).
    public let resultCode: ResultCode
    /// A sentence a user can act on (for `.sqlite`, SQLite's own message).
    public let message: String
    /// The failing statement, when there is one.
    public let sql: String?
    /// Where the failing statement starts in the text passed to `execute(sql:)`.
    public let location: SQLLocation?
    /// The database file concerned, when known.
    public let path: String?
    /// The message's parts, when what to do includes a remedy a command line words
    /// itself (`--plaintext`, `--force`); `message` is the sentence in the library's words.
    public let advice: Advice?

    /// An error worded by `message`: SQLite's own for `.sqlite`, otherwise a sentence
    /// a user can act on.
    public init(
        kind: Kind,
        resultCode: ResultCode = .SQLITE_ERROR,
        message: String,
        sql: String? = nil,
        location: SQLLocation? = nil,
        path: String? = nil
    ) {
        self.init(kind: kind, resultCode: resultCode, message: message, advice: nil, sql: sql, location: location, path: path)
    }

    /// An error whose remedy a command line may word itself; `message` is `advice`'s
    /// sentence in the library's words.
    public init(kind: Kind, resultCode: ResultCode = .SQLITE_ERROR, advice: Advice, path: String? = nil) {
        self.init(kind: kind, resultCode: resultCode, message: advice.sentence(), advice: advice, sql: nil, location: nil, path: path)
    }

    private init(kind: Kind, resultCode: ResultCode, message: String, advice: Advice?, sql: String?, location: SQLLocation?, path: String?) {
        self.kind = kind
        self.resultCode = resultCode
        self.message = message
        self.advice = advice
        self.sql = sql
        self.location = location
        self.path = path
    }

    public var remedy: Remedy? { advice?.remedy }

    /// SQL functions that run statements of their own (`sqlcipher_export`) report an
    /// inner failure as SQLITE_ERROR carrying the inner error's text, which for I/O
    /// failures is SQLite's own wording for the code (`sqlite3_errstr`). This recovers
    /// that code, so a full disk during an export is reported as one. The text is
    /// compared with what the linked library itself says, never with a fixed string.
    func recoveringInnerResultCode() -> SQLCipherError {
        guard resultCode.primaryResultCode == .SQLITE_ERROR else { return self }
        for code in [ResultCode.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_CORRUPT]
        where message == SQLCipherDatabase.words(for: code.rawValue) {
            return SQLCipherError(kind: kind, resultCode: code, message: message, advice: advice, sql: sql, location: location, path: path)
        }
        return self
    }

    /// The same error, naming the database file.
    func at(path: String) -> SQLCipherError {
        SQLCipherError(kind: kind, resultCode: resultCode, message: message, advice: advice, sql: sql, location: location, path: path)
    }

    /// For a statement that failed because of the file system rather than its SQL (a
    /// full disk, an I/O error, a journal that cannot be created, a read-only file):
    /// what happened to the files and what to do. SQLite's own words ("database or
    /// disk is full in `COMMIT`") blame a statement.
    public var explanation: FailureExplanation? {
        guard kind == .sqlite else { return nil }
        // SQLite 3.22+ says when the journal could not be made because the folder is
        // read-only (an extended READONLY code); older ones say CANTOPEN.
        let folderIsReadOnly = resultCode == .SQLITE_READONLY_DIRECTORY
        switch folderIsReadOnly ? .SQLITE_CANTOPEN : resultCode.primaryResultCode {
        case .SQLITE_FULL:
            return FailureExplanation(
                name: "diskFull", cause: "the disk is full",
                fix: "free some space (SQLite also needs room for a journal beside the file it writes), then run the command again.")
        case .SQLITE_IOERR:
            return FailureExplanation(
                name: "ioError", cause: "the disk reported an I/O error (\(resultCode))",
                fix: "check the disk and the file system holding the database, then run the command again.")
        case .SQLITE_CANTOPEN:
            return FailureExplanation(
                name: "cannotOpenJournal",
                cause: "SQLite could not create a file it needs beside the database (its journal)" + (folderIsReadOnly ? ": the folder is read-only" : ""),
                fix: "make the folder writable by this user, then run the command again.")
        case .SQLITE_READONLY:
            return FailureExplanation(
                name: "readOnly", cause: "the database (or its folder) is read-only",
                fix: "make it writable by this user, then run the command again.")
        default:
            return nil
        }
    }

    public func sentence(_ wording: RemedyWording) -> String {
        var text = ""
        if let path { text += "\(path): " }
        if let explanation { return text + "Stopped because \(explanation.cause); \(explanation.fix)" }
        text += advice?.sentence(wording) ?? message
        if kind == .sqlite {
            if let location { text += " (at \(location))" }
            if let statementExcerpt { text += " in " + statementExcerpt }
        }
        return text
    }

    /// The failing statement for a one-line message: on one line, at most 200
    /// characters, in backquotes. Nil when there is no statement.
    public var statementExcerpt: String? {
        guard let sql else { return nil }
        let oneLine = sql.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "`" + (oneLine.count > 200 ? oneLine.prefix(200) + "…" : Substring(oneLine)) + "`"
    }
}

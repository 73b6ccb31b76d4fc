import CSQLCipher
import MigrationKit

/// Where in a multi-statement SQL text a statement starts.
package struct SQLLocation: Hashable, Sendable, CustomStringConvertible {
    /// 1-based index of the statement in the text.
    let statementIndex: Int
    /// 1-based line SQLite points at: the token where it stopped parsing, for an error
    /// it locates (a syntax error); otherwise the statement's first token.
    package let line: Int
    /// 0-based UTF-8 offset of the statement's first token.
    package let offset: Int

    /// A location from its three parts, each counted as its property says.
    package init(statementIndex: Int, line: Int, offset: Int) {
        self.statementIndex = statementIndex
        self.line = line
        self.offset = offset
    }

    package var description: String { "line \(line), statement \(statementIndex)" }
}

/// An error from the SQLCipher layer.
///
/// Carries SQLite's result code (matchable with `catch ResultCode.SQLITE_BUSY` or
/// `catch SQLCipherError.Kind.wrongKey`), a message and the failing SQL. It never
/// carries bound values or key material: messages come from SQLite (which does not
/// echo bound values) or from MigrationKit's own sentences, and keys are only ever
/// passed through `sqlite3_key`, never as SQL text.
public struct SQLCipherError: ExplainableError, RemediableError, KindedDatabaseError, Sendable {
    /// What went wrong, in terms a user acts on: the kinds every connection's errors
    /// share (`catch SQLCipherError.Kind.wrongKey` and `catch DatabaseErrorKind.wrongKey`
    /// are the same pattern).
    public typealias Kind = DatabaseErrorKind

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
    let location: SQLLocation?
    /// The database file concerned, when known.
    public let path: String?
    /// The message's parts, when what to do includes a remedy a command line words
    /// itself (`--plaintext`, `--force`); `message` is the sentence in the library's words.
    package let advice: Advice?

    /// An error worded by `message`: SQLite's own for `.sqlite`, otherwise a sentence
    /// a user can act on.
    package init(
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
    package init(kind: Kind, resultCode: ResultCode = .SQLITE_ERROR, advice: Advice, path: String? = nil) {
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

    /// The same error with `what` said in place of the statement that failed, for a
    /// statement of MigrationKit's own (a copy and its proof), whose text would tell a
    /// user nothing they can act on: "<what> failed (<SQLite's words>); <outcome>". An
    /// error with no statement, or one the file system explains, is kept as it is.
    func withoutInternalStatement(_ what: String, outcome: String) -> SQLCipherError {
        guard kind == .sqlite, sql != nil, explanation == nil else { return self }
        return SQLCipherError(kind: kind, resultCode: resultCode, message: "\(what) failed (\(message)); \(outcome)", advice: nil, sql: nil,
                              location: nil, path: path)
    }

    /// The same error, naming the database file.
    func at(path: String) -> SQLCipherError {
        SQLCipherError(kind: kind, resultCode: resultCode, message: message, advice: advice, sql: sql, location: location, path: path)
    }

    /// For a statement that failed because of the file system rather than its SQL (a
    /// full disk, an I/O error, a journal that cannot be created, a read-only file):
    /// what happened to the files and what to do. SQLite's own words ("database or
    /// disk is full in `COMMIT`") blame a statement.
    package var explanation: FailureExplanation? {
        guard kind == .sqlite else { return nil }
        return FailureExplanation.forSQLite(resultCode: resultCode)
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
    var statementExcerpt: String? {
        guard let sql else { return nil }
        let oneLine = sql.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "`" + (oneLine.count > 200 ? oneLine.prefix(200) + "…" : Substring(oneLine)) + "`"
    }
}

import ArgumentParser
import MigrationKit
import MigrationKitFiles

/// Turns any error a command can raise into one sentence, with the documented exit code
/// and `--json` kind `ExitCodeDecision`'s table gives it.
///
/// Every message comes from MigrationKit's own error types, whose sentences name the
/// file concerned and say what to do, with the remedies the libraries offer put in the
/// command line's own words (`RemedyWording`); none carries a key. The core's
/// errors are worded here; a database layer's own (SQLCipher's, GRDB's, the key
/// sources') by the function its command line passes. Errors that ArgumentParser raised
/// itself (usage, --help) are left to ArgumentParser.
package struct ErrorPresentation {
    package let exitCode: CLIExitCode
    /// A stable machine-readable name, for `--json`.
    package let kind: String
    package let message: String
    /// The sentences of the same failure's other problems, one line each after the
    /// first (a migrations folder's other broken files, each named).
    private(set) var furtherMessages: [String] = []
    /// What only `--verbose` adds to the sentence: the identity of a library's error
    /// behind it (GLib's domain and code behind a Secret Service failure), for a bug
    /// report, never for the person to act on.
    let diagnosis: String?

    /// - Parameters:
    ///   - root: the command line's root command, which knows ArgumentParser's errors.
    ///   - layer: presents the database layer's errors, with remedies in the command
    ///     line's words; nil for any other.
    ///   - wording: how this command line names the remedies library errors offer (its
    ///     flags and commands; nil for one it does not have).
    package init?(_ error: any Error, root: any ParsableCommand.Type, layer: (any Error, RemedyWording) -> ErrorPresentation?,
                  wording: RemedyWording) {
        if let presented = layer(error, wording) {
            self = presented
            return
        }
        let message: String
        switch error {
        case let error as CLIError:
            message = error.message
        case let error as MigrationStepError:
            // A statement that needs what only the app registers: how to bring it.
            let need = error.appExtensionNeed.map { need in
                "; it needs \(need), which only the app registers: \(AppExtensionAdvice().howToBringIt), and run the command again."
            }
            message = error.description + (need ?? "")
        case let error as HostVerificationError:
            message = error.description
        case let error as FullTextIndexDifference:
            message = error.description
        case let error as SQLMigrationFileError:
            let sentences = error.problemSentences(wording)
            self.init(of: error, message: sentences[0])
            furtherMessages = sentences.dropFirst().map(Self.oneLine)
            return
        case let error as FileOperationError where error.kind == .busy:
            self = .locked(error.sentence(wording), path: error.path, row: ExitCodeDecision.row(for: error))
            return
        case let error as MigrationKitError:
            message = error.sentence(wording)
        case let error as FileOperationError:
            message = error.sentence(wording)
        case let error as UnreadableDatabaseError:
            message = error.sentence(wording)
        default:
            let code = root.exitCode(for: error)
            if code == .success || code == .validationFailure { return nil }  // ArgumentParser's own
            message = "Unexpected failure: \(error)"
        }
        self.init(of: error, message: message)
    }

    /// A database another process kept locked past the timeout, whichever connection
    /// waited: the library's sentence, the process holding the change lock named when it
    /// can be (`LockHolder`), and the one piece of advice, which is the command line's.
    /// `row` is the table's for the error (a busy database is `.locked`, "locked").
    package static func locked(_ sentence: String, path: String?, row: FailureRow) -> ErrorPresentation {
        let who = path.flatMap(LockHolder.describeChange(of:)).map { " It is \($0)." } ?? ""
        return ErrorPresentation(row: row, message: sentence + who + " Try again when it is done, or \(waitLongerWords).")
    }

    /// `Remedy.waitLonger` in every command line's words: each has `--lock-timeout`.
    static let waitLongerWords = "wait for it with --lock-timeout SECONDS"

    /// An error's presentation with the sentence a presentation chose and the exit code
    /// and `--json` kind `ExitCodeDecision` gives `error`.
    package init(of error: any Error, message: String, diagnosis: String? = nil) {
        self.init(row: ExitCodeDecision.row(for: error), message: message, diagnosis: diagnosis)
    }

    /// A database error's presentation, as its layer describes it (`DatabaseFailure`)
    /// and words it: the code and kind are the table's.
    package init(of failure: DatabaseFailure, message: String) {
        self.init(row: ExitCodeDecision.row(for: failure), message: message)
    }

    /// A presentation of a row of `ExitCodeDecision`'s table: a verdict a command
    /// reached (pending migrations, drift), a usage error ArgumentParser found, a stop.
    package init(row: FailureRow, message: String, diagnosis: String? = nil) {
        self.init(row.exitCode, row.kind, message, diagnosis)
    }

    /// The same failure's code and kind with a sentence said again (naming its
    /// database, adding the backup kept), alone.
    func with(message: String) -> ErrorPresentation {
        ErrorPresentation(exitCode, kind, message)
    }

    private init(_ exitCode: CLIExitCode, _ kind: String, _ message: String, _ diagnosis: String? = nil) {
        self.exitCode = exitCode
        self.kind = kind
        self.message = Self.oneLine(message)
        self.diagnosis = diagnosis.map(Self.oneLine)
    }

    /// This presentation as a run with `--verbose` shows it (the diagnosis after the
    /// sentence, in brackets), or as is.
    func verbose(_ verbose: Bool) -> ErrorPresentation {
        guard verbose, let diagnosis else { return self }
        return ErrorPresentation(exitCode, kind, "\(message) [\(diagnosis)]")
    }

    /// The message on one line: a newline or other control character (in a file name,
    /// or inside a token SQLite quotes, such as an unterminated string) is shown
    /// escaped, so an error can never break into a second line that looks like
    /// another message or a status line.
    static func oneLine(_ message: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(message.unicodeScalars.count)
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Prints the error on `console`: its sentences on standard error, and with `json`
    /// its document on standard output.
    func print(commandName: String, json: Bool, on console: Console) {
        for line in [message] + furtherMessages { console.error("\(commandName): error: \(line)") }
        if json {
            if let text = try? JSONOutput.encode(ErrorDocument(error: jsonBody)) { console.out(text) }
        }
    }

    /// The error as `--json` shows it: `{kind, message, exitCode}`, alone (a failed
    /// command) or per database (a fleet).
    struct JSONBody: Encodable {
        package let kind: String
        package let message: String
        package let exitCode: Int32
    }

    /// The message, the other problems' sentences after it.
    var jsonBody: JSONBody {
        JSONBody(kind: kind, message: ([message] + furtherMessages).joined(separator: " "), exitCode: exitCode.rawValue)
    }

    private struct ErrorDocument: Encodable {
        let error: JSONBody
    }
}

extension CLIExitCode {
    /// The case's name ("fileError"): the `--json` kind of a command's own refusal
    /// (`CLIError`). Deliberately not `CustomStringConvertible`: Swift describes a case of
    /// an enum that does not describe itself by its name, which this is.
    public var description: String { String(describing: self) }
}

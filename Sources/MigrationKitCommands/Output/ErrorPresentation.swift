import ArgumentParser
import MigrationKit
import MigrationKitFiles

/// Turns any error a command can raise into one sentence and a documented exit code.
///
/// Every message comes from MigrationKit's own error types, whose sentences name the
/// file concerned and say what to do, with the remedies the libraries offer put in the
/// command line's own words (`RemedyWording`); none carries a key. The core's
/// errors are presented here; a database layer's own (SQLCipher's, GRDB's, the key
/// sources') by the function its command line passes. Errors that ArgumentParser raised
/// itself (usage, --help) are left to ArgumentParser.
package struct ErrorPresentation {
    package let exitCode: CLIExitCode
    /// A stable machine-readable name, for `--json`.
    package let kind: String
    package let message: String
    /// The sentences of the same failure's other problems, one line each after the
    /// first (a migrations folder's other broken files, each named).
    package private(set) var furtherMessages: [String] = []
    /// What only `--verbose` adds to the sentence: the identity of a library's error
    /// behind it (GLib's domain and code behind a Secret Service failure), for a bug
    /// report, never for the person to act on.
    package let diagnosis: String?

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
        let kind: String
        let message: String
        switch error {
        case let error as CLIError:
            (kind, message) = ("\(error.exitCode)", error.message)
        case let error as MigrationStepError:
            // A statement that needs what only the app registers: how to bring it.
            let need = error.appExtensionNeed.map { need in
                "; it needs \(need), which only the app registers: \(AppExtensionAdvice().howToBringIt), and run the command again."
            }
            (kind, message) = (error.explanation.map { "migrationFailed.\($0.name)" } ?? "migrationFailed", error.description + (need ?? ""))
        case let error as HostVerificationError:
            (kind, message) = ("verificationFailed", error.description)
        case let error as FullTextIndexDifference:
            (kind, message) = ("verificationFailed", error.description)
        case let error as MigrationKitError:
            (kind, message) = (error.name, error.sentence(wording))
        case let error as SQLMigrationFileError:
            let sentences = error.problemSentences(wording)
            self.init(of: error, kind: "migrationFile.\(error.code.rawValue)", message: sentences[0])
            furtherMessages = sentences.dropFirst().map(Self.oneLine)
            return
        case let error as FileOperationError where error.kind == .busy:
            self = .locked(error.sentence(wording), path: error.path, of: error)
            return
        case let error as FileOperationError:
            (kind, message) = (DatabaseFailure(error).jsonKind, error.sentence(wording))
        case let error as UnreadableDatabaseError:
            (kind, message) = (DatabaseFailure(error).jsonKind, error.sentence(wording))
        default:
            let code = root.exitCode(for: error)
            if code == .success || code == .validationFailure { return nil }  // ArgumentParser's own
            (kind, message) = ("unexpected", "Unexpected failure: \(error)")
        }
        self.init(of: error, kind: kind, message: message)
    }

    /// A database another process kept locked past the timeout, whichever connection
    /// waited: the library's sentence, the process holding the change lock named when it
    /// can be (`LockHolder`), and the one piece of advice, which is the command line's.
    /// The exit code is `error`'s (`ExitCodeDecision`: a busy database is `.locked`).
    package static func locked(_ sentence: String, path: String?, of error: any Error) -> ErrorPresentation {
        let who = path.flatMap(LockHolder.describeChange(of:)).map { " It is \($0)." } ?? ""
        return ErrorPresentation(of: error, kind: "locked", message: sentence + who + " Try again when it is done, or \(waitLongerWords).")
    }

    /// `Remedy.waitLonger` in every command line's words: each has `--lock-timeout`.
    package static let waitLongerWords = "wait for it with --lock-timeout SECONDS"

    /// An error's presentation with the sentences a presentation chose (`kind` for
    /// `--json`, `message`) and the exit code `ExitCodeDecision` gives `error`: how a
    /// database layer presents its own errors (described by a `DatabaseFailure`
    /// when the core does not know their type).
    package init(of error: any Error, kind: String, message: String, diagnosis: String? = nil) {
        self.init(ExitCodeDecision.exitCode(for: error), kind, message, diagnosis)
    }

    /// A presentation built by a command line itself for what is not an error (a usage
    /// error ArgumentParser found, an outcome such as pending migrations or drift).
    package init(kind: String, message: String, exitCode: CLIExitCode) {
        self.init(exitCode, kind, message)
    }

    private init(_ exitCode: CLIExitCode, _ kind: String, _ message: String, _ diagnosis: String? = nil) {
        self.exitCode = exitCode
        self.kind = kind
        self.message = Self.oneLine(message)
        self.diagnosis = diagnosis.map(Self.oneLine)
    }

    /// This presentation as a run with `--verbose` shows it (the diagnosis after the
    /// sentence, in brackets), or as is.
    package func verbose(_ verbose: Bool) -> ErrorPresentation {
        guard verbose, let diagnosis else { return self }
        return ErrorPresentation(exitCode, kind, "\(message) [\(diagnosis)]")
    }

    /// The message on one line: a newline or other control character (in a file name,
    /// or inside a token SQLite quotes, such as an unterminated string) is shown
    /// escaped, so an error can never break into a second line that looks like
    /// another message or a status line.
    package static func oneLine(_ message: String) -> String {
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
    package func print(commandName: String, json: Bool, on console: Console) {
        for line in [message] + furtherMessages { console.error("\(commandName): error: \(line)") }
        if json {
            if let text = try? JSONOutput.encode(ErrorDocument(error: jsonBody)) { console.out(text) }
        }
    }

    /// The error as `--json` shows it: `{kind, message, exitCode}`, alone (a failed
    /// command) or per database (a fleet).
    package struct JSONBody: Encodable {
        package let kind: String
        package let message: String
        package let exitCode: Int32
    }

    /// The message, the other problems' sentences after it.
    package var jsonBody: JSONBody {
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

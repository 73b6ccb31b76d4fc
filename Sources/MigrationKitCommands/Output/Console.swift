import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Standard output and error, written unbuffered line by line so progress and results
/// interleave correctly, and never a control character when not on a terminal.
package enum Console {
    private static let lock = NSLock()

    /// Where a command run inside a process that is not its own writes instead of the
    /// process's standard output and error (a test running many commands at once, each
    /// reading back its own output). Never a terminal.
    @TaskLocal package static var capture: ConsoleCapture?

    /// Whether standard error is a terminal, where a progress line may redraw itself.
    package static var standardErrorIsTerminal: Bool { capture == nil && isatty(STDERR_FILENO) == 1 }

    package static func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    package static func error(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes raw text (no newline added) to standard error, for the progress line.
    package static func errorRaw(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        if let capture {
            capture.append(text, standardError: descriptor == STDERR_FILENO)
            return
        }
        lock.lock()
        defer { lock.unlock() }
        // writeAll retries short writes and EINTR; a closed pipe (EPIPE) fails it, and
        // then nothing more can be said.
        _ = try? FileDescriptor(rawValue: descriptor).writeAll(text.utf8)
    }
}

/// What a command wrote while `Console.capture` named this: its standard output and
/// standard error, each in the order written.
package final class ConsoleCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var output = ""
    private var errors = ""

    package init() {}

    fileprivate func append(_ text: String, standardError: Bool) {
        lock.withLock {
            if standardError { errors += text } else { output += text }
        }
    }

    /// What another program wrote to its standard error in the command's place (a key
    /// command's prompts and complaints), as text.
    package func appendError(_ bytes: UnsafeRawBufferPointer) {
        append(String(decoding: bytes, as: UTF8.self), standardError: true)
    }

    package var standardOutput: String { lock.withLock { output } }
    package var standardError: String { lock.withLock { errors } }
}

/// Prints according to `--quiet`/`--json`: human lines go to standard output unless
/// quiet or JSON; warnings go to standard error unless quiet.
package struct Reporter: Sendable {
    package let quiet: Bool
    package let json: Bool
    package let verbose: Bool
    /// The database a fleet's reporter speaks for: its lines are left to the fleet's
    /// table, its warnings name it (`forDatabase(_:)`).
    private var database: String?

    package init(_ options: OutputOptions) {
        self.init(quiet: options.quiet, json: options.json, verbose: options.verbose)
    }

    /// `quiet: true` says nothing at all: for work whose results are reported
    /// elsewhere (each database of a fleet).
    package init(quiet: Bool, json: Bool = false, verbose: Bool = false) {
        self.quiet = quiet
        self.json = json
        self.verbose = verbose
    }

    /// This reporter for one database of a fleet: no lines, notes or document (the
    /// fleet's table and document say each database's result once), and each warning
    /// (a key file others can read) prefixed with the database, as a fleet's warnings
    /// would otherwise be lost or nameless.
    package func forDatabase(_ path: String) -> Reporter {
        var reporter = self
        reporter.database = path
        return reporter
    }

    /// A line of the human report; not even made with --quiet or --json (a run of
    /// many small steps formats one per step).
    package func line(_ text: @autoclosure () -> String) {
        if !quiet && !json && database == nil { Console.out(text()) }
    }

    /// A warning, on standard error (still shown with --json, whose stdout stays clean).
    package func warning(_ text: String) {
        if !quiet { Console.error("warning: \(database.map { "\($0): " } ?? "")\(text)") }
    }

    /// A note for --verbose, on standard error (so --json's stdout stays one document).
    package func note(_ text: String) {
        if verbose && !quiet && database == nil { Console.error("note: \(text)") }
    }

    /// The JSON document, when --json.
    package func document<T: Encodable>(_ value: T) throws {
        guard json, database == nil else { return }
        Console.out(try JSONOutput.encode(value))
    }
}

package enum JSONOutput {
    /// Pretty, key-sorted JSON: stable to diff and to read.
    package static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension Duration {
    /// Milliseconds with one decimal, for reports: "12.3 ms".
    package var humanReadable: String {
        let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        if milliseconds >= 10_000 { return String(format: "%.1f s", milliseconds / 1000) }
        return String(format: "%.1f ms", milliseconds)
    }
}

/// A JSON field that is always present: `null` when there is no value, rather than
/// left out as Swift's synthesized `Encodable` does with optionals. The README lists
/// every field of every command's document, and scripts read them by name.
@propertyWrapper
package struct AlwaysPresent<Value: Encodable & Sendable>: Encodable, Sendable {
    package var wrappedValue: Value?

    package init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Standard output and error, written unbuffered line by line so progress and results
/// interleave correctly, and never a control character when not on a terminal: the
/// process's own descriptors (`process`), or a capture for a command run inside a process
/// that is not its own. A value of the command's surroundings (`ProcessSurroundings`),
/// handed down from where its command line starts.
package struct Console: Sendable {
    /// One writer at a time on the process's descriptors.
    private static let lock = NSLock()

    /// Where a command run inside a process that is not its own writes instead of the
    /// process's standard output and error (a test running many commands at once, each
    /// reading back its own output); nil: the process's. Never a terminal.
    let capture: ConsoleCapture?

    /// The process's standard output and error.
    package static let process = Console(capture: nil)

    /// A console writing to `capture`, or to the process's descriptors when nil.
    package init(capture: ConsoleCapture?) {
        self.capture = capture
    }

    /// Whether standard error is a terminal, where a progress line may redraw itself.
    var standardErrorIsTerminal: Bool { capture == nil && isatty(STDERR_FILENO) == 1 }

    package func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    package func error(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes raw text (no newline added) to standard error, for the progress line.
    func errorRaw(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private func write(_ text: String, to descriptor: Int32) {
        if let capture {
            capture.append(text, standardError: descriptor == STDERR_FILENO)
            return
        }
        Self.lock.lock()
        defer { Self.lock.unlock() }
        // writeAll retries short writes and EINTR; a closed pipe (EPIPE) fails it, and
        // then nothing more can be said.
        _ = try? FileDescriptor(rawValue: descriptor).writeAll(text.utf8)
    }
}

/// What a command wrote while its `Console` captured into this: its standard output and
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
    func appendError(_ bytes: UnsafeRawBufferPointer) {
        append(String(decoding: bytes, as: UTF8.self), standardError: true)
    }

    var standardOutput: String { lock.withLock { output } }
    var standardError: String { lock.withLock { errors } }
}

/// Prints according to `--quiet`/`--json`: human lines go to standard output unless
/// quiet or JSON; warnings go to standard error unless quiet.
package struct Reporter: Sendable {
    let quiet: Bool
    package let json: Bool
    let verbose: Bool
    /// Where it prints: the running command's console.
    package let console: Console
    /// The database a fleet's reporter speaks for: its lines are left to the fleet's
    /// table, its warnings name it (`forDatabase(_:)`).
    private var database: String?

    /// A reporter as `options` say, printing on `console`.
    package init(_ options: OutputOptions, on console: Console) {
        self.init(quiet: options.quiet, json: options.json, verbose: options.verbose, on: console)
    }

    /// `quiet: true` says nothing at all: for work whose results are reported
    /// elsewhere (each database of a fleet).
    package init(quiet: Bool, json: Bool = false, verbose: Bool = false, on console: Console) {
        self.quiet = quiet
        self.json = json
        self.verbose = verbose
        self.console = console
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
        if !quiet && !json && database == nil { console.out(text()) }
    }

    /// A warning, on standard error (still shown with --json, whose stdout stays clean).
    package func warning(_ text: String) {
        if !quiet { console.error("warning: \(database.map { "\($0): " } ?? "")\(text)") }
    }

    /// A note for --verbose, on standard error (so --json's stdout stays one document).
    func note(_ text: String) {
        if verbose && !quiet && database == nil { console.error("note: \(text)") }
    }

    /// The JSON document, when --json.
    package func document<T: Encodable>(_ value: T) throws {
        guard json, database == nil else { return }
        console.out(try JSONOutput.encode(value))
    }
}

enum JSONOutput {
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import MigrationKit
import MigrationKitSecrets

/// Asks for a key on the terminal without echoing it, like `getpass`/`readpassphrase`.
///
/// Input comes from the command's standard input (`read(from:)`), which must be a
/// terminal; the prompt goes to the controlling terminal (`/dev/tty`), or to standard
/// error when there is none, so it is seen even when standard output is redirected. Echo
/// is switched off with termios for the entries and restored on every path: on return,
/// on a thrown error, and on a signal. Signals are handled the way OpenBSD's
/// `readpassphrase` does: while the prompt is up, SIGINT, SIGTERM, SIGHUP, SIGQUIT,
/// SIGTSTP, SIGTTIN and SIGTTOU are only recorded; the prompt stops, restores the
/// terminal and the previous handlers, and then re-raises the signal, so the process
/// dies of SIGINT (or stops on Ctrl-Z) exactly as it would have, with echo back on. After a stop, the prompt starts over when the process continues.
struct TerminalPrompt {
    let message: String
    /// Whether to ask a second time and insist both entries match (for a new key).
    var confirm: Bool = false

    static let confirmMessage = "Enter the same key again: "

    /// Reads the key typed on `standardInput`, the running command's.
    func read(from standardInput: StandardInput) throws -> SecretBytes {
        let input = standardInput.descriptor
        guard isatty(input) == 1 else {
            throw KeyError(
                code: .notATerminal,
                advice: Advice(situation: "Cannot prompt for the key because standard input is not a terminal", remedy: .keyFromAnotherSource))
        }
        // One prompt at a time: the record of received signals is global.
        return try Self.lock.withLock {
            let output = TerminalOutput()
            return try NoEchoSession.run(fd: input) { session in
                let first = try readEntry(from: input, message: message, output: output, session: session)
                guard confirm else { return first }
                let second = try readEntry(from: input, message: Self.confirmMessage, output: output, session: session)
                guard first.isEqual(to: second) else {
                    throw KeyError(code: .promptMismatch, message: "The two entries did not match; nothing was changed, run the command again.")
                }
                return first
            }
        }
    }

    private static let lock = NSLock()

    /// Shows `message` and reads one line (without its newline) into wiped storage.
    private func readEntry(from fd: Int32, message: String, output: TerminalOutput, session: NoEchoSession) throws -> SecretBytes {
        output.write(message)
        // Echo is off, so the user's Enter did not move the cursor: do it for them.
        defer { output.write("\n") }

        let limit = KeySource.maximumKeyLength
        var total = 0
        var sawNewline = false
        var failure: Int32?
        var interrupted = false
        let scratch = SecretBytes(count: limit + 2) { buffer in
            guard let base = buffer.baseAddress else { return }
            while total < buffer.count, !sawNewline {
                // Wait in short slices so a signal recorded on another thread, which does
                // not interrupt this one's read, is still noticed.
                guard session.waitUntilReadable() else {
                    interrupted = true
                    return
                }
                // In canonical mode each read returns at most one line.
                let count = systemRead(fd, base + total, buffer.count - total)
                if count > 0 {
                    total += count
                    sawNewline = buffer[total - 1] == UInt8(ascii: "\n")
                } else if count == 0 {
                    return  // end of input (Ctrl-D)
                } else if errno != EINTR && errno != EAGAIN {
                    failure = errno
                    return
                }
            }
        }
        if interrupted { throw CancellationError() }
        if let failure {
            throw KeyError(code: .terminalFailed, message: "Cannot read the key from the terminal (\(errnoDescription(failure))).")
        }
        if total == 0 {
            throw KeyError(code: .promptCancelled, message: "No key was entered (end of input); run the command again and type the key, then Enter.")
        }
        let entry = scratch.withUnsafeBytes { KeyText.trimmed(SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<total]))) }
        if entry.count > limit || (!sawNewline && total == scratch.count) {
            throw KeyError(code: .promptTooLong, message: "The key entered is longer than \(limit) bytes; use a key file for a key that long.")
        }
        if entry.isEmpty {
            throw KeyError(code: .promptEmpty, message: "An empty key was entered; type the key, then Enter.")
        }
        return entry
    }
}

/// Where the prompt text goes: the controlling terminal, else standard error.
private final class TerminalOutput {
    private let fd: Int32
    private let ownsDescriptor: Bool

    init() {
        let tty = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        fd = tty >= 0 ? tty : STDERR_FILENO
        ownsDescriptor = tty >= 0
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return systemWrite(fd, base + offset, buffer.count - offset)
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return  // the prompt text is a courtesy; failing to show it is not fatal
            }
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }
}

/// Which signals arrived while a prompt was up, one flag per signal number. Written by
/// the handler (a plain store through a pointer: async-signal-safe), read by the prompt.
/// Global because a signal handler cannot capture context; `TerminalPrompt.lock` keeps it
/// to one prompt at a time.
nonisolated(unsafe) private let receivedSignals: UnsafeMutablePointer<sig_atomic_t> = {
    let flags = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: Int(NoEchoSession.signalLimit))
    flags.initialize(repeating: 0, count: Int(NoEchoSession.signalLimit))
    return flags
}()

private func recordSignal(_ number: Int32) {
    if number > 0, number < NoEchoSession.signalLimit { receivedSignals[Int(number)] = 1 }
}

/// Echo off for the duration of a prompt, restored on every way out.
private struct NoEchoSession {
    static let signalLimit: Int32 = 65
    /// Signals that end the process by default.
    static let terminating = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// Signals that stop it; the prompt starts over after them.
    static let stopping = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// Polls the terminal in short slices; false once a signal has been recorded.
    func waitUntilReadable() -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            if Self.anyRecorded() { return false }
            let ready = poll(&descriptor, 1, 200)
            if ready > 0 { return !Self.anyRecorded() }
            if ready < 0, errno != EINTR { return true }  // let read report the error
        }
    }

    let fd: Int32

    /// The terminal would not turn echo off (read `errno` at once): the key can come
    /// another way.
    private static func noEchoFailure() -> Advice {
        Advice(situation: "Cannot switch the terminal to no-echo mode (\(errnoDescription(errno)))", remedy: .keyFromFile)
    }

    static func run<T>(fd: Int32, _ body: (NoEchoSession) throws -> T) throws -> T {
        while true {
            for number in terminating + stopping { receivedSignals[Int(number)] = 0 }
            var saved = termios()
            guard tcgetattr(fd, &saved) == 0 else {
                throw KeyError(code: .terminalFailed, advice: noEchoFailure())
            }
            var noEcho = saved
            noEcho.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
            noEcho.c_lflag |= tcflag_t(ICANON)

            // Handlers first, so no signal can come between "echo off" and "handled".
            let previous = installRecordingHandlers()
            let outcome: Result<T, any Error>
            // TCSAFLUSH drops type-ahead typed (and echoed) before the prompt appeared.
            if tcsetattr(fd, TCSAFLUSH, &noEcho) == 0 {
                outcome = Result { try body(NoEchoSession(fd: fd)) }
            } else if errno == EINTR, anyRecorded() {
                // A background job touching the terminal gets SIGTTOU: stop, then retry.
                outcome = .failure(CancellationError())
            } else {
                outcome = .failure(KeyError(code: .terminalFailed, advice: noEchoFailure()))
            }
            // Terminal first, then handlers; TCSAFLUSH drops anything typed beyond the
            // entry, which must not reach the shell.
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            restore(previous)

            // Deliver what arrived, now that the terminal echoes again: by default SIGINT
            // ends the process right here, and Ctrl-Z stops it until `fg`.
            let received = (terminating + stopping).filter { receivedSignals[Int($0)] != 0 }
            for number in received { _ = raise(number) }
            // `CancellationError`: the prompt's body, or the terminal's setting, stopped
            // because a signal was recorded.
            guard case .failure(let error) = outcome, error is CancellationError else {
                return try outcome.get()  // the entry was complete before the signal
            }
            if received.allSatisfy(stopping.contains) { continue }  // back from a stop: ask again
            // The process's own handler let it live on (a command line that stops
            // gracefully): the prompt was still interrupted, and the error says by what.
            throw KeyError(code: .promptCancelled, message: "The prompt was interrupted by a signal before a key was entered; run the command again.",
                           signal: received.first(where: terminating.contains))
        }
    }

    private static func installRecordingHandlers() -> [(Int32, sigaction)] {
        var previous: [(Int32, sigaction)] = []
        for number in terminating + stopping {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = recordSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0  // no SA_RESTART: a blocked read or poll returns EINTR
            var old = sigaction()
            guard sigaction(number, &action, &old) == 0 else { continue }
            previous.append((number, old))
            // A signal the process ignores (e.g. SIGHUP under nohup) stays ignored.
            if isIgnored(old) { _ = sigaction(number, &old, nil) }
        }
        return previous
    }

    private static func restore(_ previous: [(Int32, sigaction)]) {
        for (number, action) in previous.reversed() {
            var action = action
            _ = sigaction(number, &action, nil)
        }
    }

    private static func anyRecorded() -> Bool {
        (terminating + stopping).contains { receivedSignals[Int($0)] != 0 }
    }

    /// Whether a disposition is `SIG_IGN` (the C constant `(void (*)(int))1`, which Swift
    /// cannot compare as a function).
    private static func isIgnored(_ action: sigaction) -> Bool {
        action.sa_flags & SA_SIGINFO == 0
            && unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import MigrationKitSQLCipher

/// Asks for a key on the terminal without echoing it, like `getpass`/`readpassphrase`.
///
/// Input comes from standard input, which must be a terminal; the prompt goes to the
/// controlling terminal (`/dev/tty`), or to standard error when there is none, so it is
/// seen even when standard output is redirected. Echo is switched off with termios for
/// the entries and restored on every path: on return, on a thrown error, and on
/// SIGINT/SIGTERM/SIGHUP/SIGQUIT (restored, then the signal is re-raised so the process
/// still dies of it) and SIGTSTP (restored while stopped, re-applied on SIGCONT).
struct TerminalPrompt {
    let message: String
    /// Whether to ask a second time and insist both entries match (for a new key).
    var confirm: Bool = false

    static let confirmMessage = "Enter the same key again: "

    func read() throws -> SecretBytes {
        let input = STDIN_FILENO
        guard isatty(input) == 1 else {
            throw KeyError(
                code: .notATerminal,
                message: "Cannot prompt for the key because standard input is not a terminal; pass it with --password-file, the \(KeySource.passwordEnvironmentVariable) environment variable, or --keychain-service and --keychain-account.")
        }
        // One prompt at a time: the saved terminal state and signal handlers are global.
        return try Self.lock.withLock {
            let output = TerminalOutput()
            return try NoEchoSession.run(fd: input) {
                let first = try readEntry(from: input, message: message, output: output)
                guard confirm else { return first }
                let second = try readEntry(from: input, message: Self.confirmMessage, output: output)
                guard first.isEqual(to: second) else {
                    throw KeyError(code: .promptMismatch, message: "The two entries did not match; nothing was changed, run the command again.")
                }
                return first
            }
        }
    }

    private static let lock = NSLock()

    /// Shows `message` and reads one line (without its newline) into wiped storage.
    private func readEntry(from fd: Int32, message: String, output: TerminalOutput) throws -> SecretBytes {
        output.write(message)
        // Echo is off, so the user's Enter did not move the cursor: do it for them.
        defer { output.write("\n") }

        let limit = KeySource.maximumKeyLength
        var total = 0
        var sawNewline = false
        var failure: Int32?
        let scratch = SecretBytes(count: limit + 2) { buffer in
            guard let base = buffer.baseAddress else { return }
            // In canonical mode each read returns at most one line.
            while total < buffer.count, !sawNewline {
                let count = systemRead(fd, base + total, buffer.count - total)
                if count > 0 {
                    total += count
                    sawNewline = buffer[total - 1] == UInt8(ascii: "\n")
                } else if count == 0 {
                    return  // end of input (Ctrl-D)
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        if let failure {
            throw KeyError(code: .terminalFailed, message: "Cannot read the key from the terminal (\(errnoDescription(failure))).")
        }
        if total == 0 {
            throw KeyError(code: .promptCancelled, message: "No key was entered (end of input); run the command again and type the key, then Enter.")
        }
        let entry = scratch.withUnsafeBytes { KeyText.strippingOneNewline(UnsafeRawBufferPointer(rebasing: $0[0..<total])) }
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

// The terminal state a signal handler must restore. Signal handlers cannot capture
// context, so this is global; `TerminalPrompt.lock` makes sure only one prompt uses it.
nonisolated(unsafe) private var signalTerminalFD: Int32 = -1
nonisolated(unsafe) private var signalSavedState = termios()
nonisolated(unsafe) private var signalNoEchoState = termios()

/// Signals that end the process by default: restore the terminal, then die of the signal.
private func restoreTerminalAndReraise(_ signalNumber: Int32) {
    // Only async-signal-safe calls here: tcsetattr, signal, raise.
    _ = tcsetattr(signalTerminalFD, TCSANOW, &signalSavedState)
    _ = signal(signalNumber, SIG_DFL)
    // Delivered when this handler returns (the signal is blocked while it runs).
    _ = raise(signalNumber)
}

/// Ctrl-Z: restore echo while stopped, so the shell the user returns to echoes.
private func restoreTerminalAndStop(_ signalNumber: Int32) {
    _ = tcsetattr(signalTerminalFD, TCSANOW, &signalSavedState)
    _ = signal(SIGTSTP, SIG_DFL)
    _ = raise(SIGTSTP)
}

/// `fg`: switch echo off again and re-arm the Ctrl-Z handler.
private func reapplyNoEchoOnContinue(_ signalNumber: Int32) {
    _ = tcsetattr(signalTerminalFD, TCSANOW, &signalNoEchoState)
    _ = signal(SIGTSTP, restoreTerminalAndStop)
}

/// Whether a disposition returned by `signal` is `SIG_IGN` (the C constant `(void (*)(int))1`,
/// which Swift cannot compare as a function).
private func isIgnored(_ handler: sighandler_t?) -> Bool {
    unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
}

/// Echo off for the duration of `body`, restored on every way out.
private enum NoEchoSession {
    static let terminatingSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func run<T>(fd: Int32, _ body: () throws -> T) throws -> T {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            throw KeyError(code: .terminalFailed, message: "Cannot switch the terminal to no-echo mode (\(errnoDescription(errno))); pass the key with --password-file instead.")
        }
        var noEcho = saved
        noEcho.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        noEcho.c_lflag |= tcflag_t(ICANON)

        signalTerminalFD = fd
        signalSavedState = saved
        signalNoEchoState = noEcho
        // Handlers go in before echo goes off, so there is no moment when a signal could
        // leave the terminal silent.
        var previous: [(Int32, sighandler_t?)] = []
        func install(_ number: Int32, _ handler: sighandler_t) {
            let old = signal(number, handler)
            previous.append((number, old))
            // A signal the caller ignores (e.g. SIGHUP under nohup) stays ignored.
            if isIgnored(old) { _ = signal(number, old) }
        }
        for number in terminatingSignals {
            install(number, restoreTerminalAndReraise)
        }
        install(SIGTSTP, restoreTerminalAndStop)
        install(SIGCONT, reapplyNoEchoOnContinue)
        defer {
            // Restore the terminal first, then the handlers, mirroring the set-up order.
            // TCSAFLUSH drops anything typed beyond the entry, which must not reach the shell.
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            for (number, handler) in previous.reversed() {
                _ = signal(number, handler)
            }
            signalTerminalFD = -1
        }
        // TCSAFLUSH also drops type-ahead typed before the prompt appeared (with echo on).
        guard tcsetattr(fd, TCSAFLUSH, &noEcho) == 0 else {
            throw KeyError(code: .terminalFailed, message: "Cannot switch the terminal to no-echo mode (\(errnoDescription(errno))); pass the key with --password-file instead.")
        }
        return try body()
    }
}

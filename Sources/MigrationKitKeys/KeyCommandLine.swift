import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CProcessControl
import MigrationKit
import MigrationKitSecrets

/// A command that a secret store answers through (`pass show db`, `vault kv get
/// -field=key secret/db`), as restic's `--password-command` and git's credential helpers
/// run theirs: `KeySource.command` reads the key from its standard output, and a key
/// rotation hands a new key to one on its standard input (`store(_:)`).
///
/// The line is split into words as a shell would split it, without a shell and without
/// expanding anything: spaces and tabs separate words; inside single quotes every
/// character is itself; inside double quotes a backslash keeps only `"` and `\` (and
/// `$` and `` ` ``, which are never expanded anyway) literal; outside quotes a backslash
/// keeps the next character. The first word is the program, looked for in `PATH` when it
/// has no `/`. A line that starts with `!` is given whole (without the `!`) to `/bin/sh
/// -c` instead, as git runs such a credential helper: for a pipeline, a fallback
/// (`||`), a redirection or a variable.
///
/// The command's standard error and the terminal stay its own, for its prompts (a
/// passphrase for `gpg`, a master password for `keepassxc-cli`): its process group is
/// made the terminal's foreground group while it runs. It runs in a process group of its
/// own, with this process's environment but `MIGRATIONKIT_PASSWORD`, no other descriptor
/// of this process, and every signal at its default. It must end within its time bound
/// (`KeyReading.keyCommandTimeout`, 60 seconds unless a command line sets it): then it and its
/// process group are killed. Its output is read into wiped storage (`SecretBytes`), at
/// most `KeySource.maximumKeyLength` bytes, and never shown: errors name the command
/// line only.
package struct KeyCommandLine: Sendable, CustomStringConvertible {
    /// The line as given (placeholders already replaced).
    package let line: String

    /// 60 seconds: time to type a passphrase at a store's own prompt.
    static let defaultTimeout: Duration = .seconds(60)

    /// What asks a running key command to stop (`KeyReading.stopRequest`): the stop's
    /// signal, or nil.
    package final class StopRequest: Sendable {
        package let signal: @Sendable () -> Int32?

        package init(_ signal: @escaping @Sendable () -> Int32?) {
            self.signal = signal
        }
    }

    /// Where a key command's standard error goes instead of the process's
    /// (`KeyReading.standardErrorRelay`).
    package final class StandardErrorRelay: Sendable {
        package let write: @Sendable (UnsafeRawBufferPointer) -> Void

        package init(_ write: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
            self.write = write
        }
    }

    package init(_ line: String) {
        self.line = line
    }

    /// "`pass show db`": how every sentence names it.
    package var description: String { "`\(line)`" }

    /// Whether the line asks for `/bin/sh -c` (it starts with `!`).
    var usesShell: Bool { line.hasPrefix("!") }

    /// The program and its arguments; nil with a sentence's reason when the line is
    /// empty or a quote is not closed.
    package func words() -> Result<[String], KeyError> {
        if usesShell {
            let script = String(line.dropFirst())
            guard !script.allSatisfy(\.isWhitespace) else { return .failure(invalid("it has nothing after the !")) }
            return .success(["/bin/sh", "-c", script])
        }
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                if quote == "\"", !["\"", "\\", "$", "`"].contains(character) { word.append("\\") }
                word.append(character)
                escaped = false
            } else if character == "\\", quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" || character == "\n" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if escaped || quote != nil { return .failure(invalid("a quote or a backslash at its end is not closed")) }
        if inWord { words.append(word) }
        guard !words.isEmpty else { return .failure(invalid("it is empty")) }
        return .success(words)
    }

    /// `value` as one word of a key command line, as a placeholder (`{name}`) is
    /// replaced: itself when it holds only letters, digits and `@%+=:,./_-`, otherwise
    /// in single quotes (a `'` in it as `'\''`), which both the splitting here and
    /// `/bin/sh` read back as the value, whatever it holds.
    package static func quoted(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "@%+=:,./_-".unicodeScalars.contains(scalar)
        }
        return plain ? value : "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The key text the command prints on its standard output, to its end, run as
    /// `reading` says.
    func readKeyText(_ reading: KeyReading) throws -> SecretBytes {
        guard let output = try run(input: nil, reading) else { throw empty() }
        return output
    }

    /// Hands `key` (its text form, `DatabaseKey.withKeyText`, then a line break) to the
    /// command on its standard input, its standard output discarded; it must exit with
    /// status 0 within the time bound, run as `reading` says.
    ///
    /// One store command runs at a time in a process (a fleet's rotation runs several
    /// databases at once): stores such as `pass` commit each write to one git
    /// repository, and two writes at once collide on its lock, the key stored but not
    /// committed while the command still exits 0. Reads run side by side.
    package func store(_ key: DatabaseKey, _ reading: KeyReading) throws {
        let input = key.withKeyText { text in
            SecretBytes(count: text.count + 1) { buffer in
                _ = buffer.initializeMemory(as: UInt8.self, from: text)
                buffer[text.count] = 0x0A
            }
        }
        guard Self.storeTurn.take(unless: reading.stopRequest?.signal) else {
            throw KeyError(code: .keyCommandFailed, message: "The key command \(self) was not started, as the run was asked to stop.",
                           signal: reading.stopRequest?.signal())
        }
        defer { Self.storeTurn.give() }
        _ = try run(input: input, reading)
    }

    /// Whose turn it is to run a store command in this process.
    private static let storeTurn = Turn()

    /// A turn taken by one thread at a time, waited for in short slices so that a stop
    /// asked meanwhile ends the wait.
    private final class Turn: @unchecked Sendable {
        private let condition = NSCondition()
        private var taken = false

        /// Waits for the turn and takes it: false, without it, once `stop` says a stop
        /// was asked.
        func take(unless stop: (@Sendable () -> Int32?)?) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while taken {
                if stop?() != nil { return false }
                _ = condition.wait(until: Date().addingTimeInterval(0.05))
            }
            taken = true
            return true
        }

        func give() {
            condition.lock()
            taken = false
            condition.signal()
            condition.unlock()
        }
    }

    // MARK: - Running it

    /// Runs the command; with `input`, writes it to its standard input and discards its
    /// output (a store); without, returns its output (nil when it printed nothing).
    private func run(input: SecretBytes?, _ reading: KeyReading) throws -> SecretBytes? {
        let arguments = try words().get()
        let program = try Self.programPath(arguments[0], in: reading.environment).get()
        let capturing = input == nil

        // Standard input: the key to store, or the command line's own.
        var inputDescriptor = reading.standardInput.descriptor
        var inputPipe: [Int32] = [-1, -1]
        if let input {
            guard migrationkit_pipe(&inputPipe) == 0 else { throw notStarted(errno) }
            // Shorter than a pipe's buffer (at most `maximumKeyLength` bytes and a line
            // break), so it is written whole before the command starts.
            let written = input.withUnsafeBytes { write(inputPipe[1], $0.baseAddress, $0.count) }
            close(inputPipe[1])
            guard written == input.count else {
                close(inputPipe[0])
                throw notStarted(errno)
            }
            inputDescriptor = inputPipe[0]
        }
        defer { if inputPipe[0] >= 0 { close(inputPipe[0]) } }

        // Standard output: read here, or discarded.
        var outputPipe: [Int32] = [-1, -1]
        if capturing {
            guard migrationkit_pipe(&outputPipe) == 0 else { throw notStarted(errno) }
        } else {
            outputPipe[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)
            guard outputPipe[1] >= 0 else { throw notStarted(errno) }
        }
        defer { if outputPipe[0] >= 0 { close(outputPipe[0]) } }

        // Standard error: the process's, or relayed to where a command run in-process writes.
        let relay = reading.standardErrorRelay?.write
        var errorPipe: [Int32] = [-1, -1]
        if relay != nil {
            guard migrationkit_pipe(&errorPipe) == 0 else {
                close(outputPipe[1])
                throw notStarted(errno)
            }
        }
        defer { if errorPipe[0] >= 0 { close(errorPipe[0]) } }

        // The terminal, for the command's prompts, when this process holds it.
        var terminal: Int32 = -1
        if relay == nil {
            terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            if terminal >= 0, tcgetpgrp(terminal) != getpgrp() {
                close(terminal)
                terminal = -1
            }
        }
        defer { if terminal >= 0 { close(terminal) } }

        var pid: Int32 = 0
        let started = Self.withEnvironment(reading.environment) { environment in
            Self.withCStrings([program] + arguments.dropFirst()) { argv in
                migrationkit_spawn(program, argv, environment, inputDescriptor, outputPipe[1],
                                   relay != nil ? errorPipe[1] : STDERR_FILENO, terminal, nil, &pid)
            }
        }
        close(outputPipe[1])
        if errorPipe[1] >= 0 { close(errorPipe[1]) }
        guard started == 0 else { throw notStarted(started) }

        let outcome = Self.wait(for: pid, output: capturing ? outputPipe[0] : -1, error: errorPipe[0], relay: relay,
                                deadline: .now + reading.keyCommandTimeout, stopRequest: reading.stopRequest?.signal)
        if terminal >= 0 { _ = migrationkit_take_terminal(terminal) }

        // A command that stores a key has no other way to pass one.
        let otherwise = capturing ? ", or pass the key another way" : ""
        func failure(_ code: KeyError.Code, _ cause: String, _ advice: String, signal: Int32? = nil) -> KeyError {
            var error = KeyError(code: code, message: "The key command \(self) \(cause)\(advice)", signal: signal)
            error.commandCause = "the command \(cause)"
            return error
        }
        switch outcome.end {
        case .stopped(let number):
            throw failure(.keyCommandFailed, "was stopped by signal \(number)", ", as the run was asked to stop.", signal: number)
        case .timedOut:
            var error = KeyError(code: .keyCommandTimedOut, advice: Advice(
                situation: "The key command \(self) did not finish within \(Self.seconds(reading.keyCommandTimeout)) and was stopped",
                otherwise: "check that it runs by itself without waiting for input", remedy: .allowKeyCommandMoreTime))
            error.commandCause = "the command did not finish within \(Self.seconds(reading.keyCommandTimeout))"
            throw error
        case .tooLarge:
            throw failure(.keyCommandTooLarge, "printed more than \(KeySource.maximumKeyLength) bytes", ", so what it printed is not a key; make it print only the key.")
        case .exited(0):
            break
        case .exited(let status):
            throw failure(.keyCommandFailed, "failed with exit status \(status)", "; run it by itself to see why\(otherwise).")
        case .signaled(let number):
            // Ctrl-C at the command's own prompt reached its process group only: the
            // command line stops as it would on Ctrl-C at its own prompt.
            let fromTerminal = terminal >= 0 && (number == SIGINT || number == SIGQUIT)
            throw failure(.keyCommandFailed, "was ended by signal \(number)", "; run it by itself to see why\(otherwise).", signal: fromTerminal ? number : nil)
        case .failed(let code):
            throw failure(.keyCommandFailed, "could not be waited for (\(errnoDescription(code)))", ".")
        }
        return outcome.output
    }

    private func invalid(_ reason: String) -> KeyError {
        KeyError(code: .keyCommandInvalid, message: "The key command \(self) cannot be run: \(reason); write it as words (quote a word with spaces), or start it with ! to run it with /bin/sh -c.")
    }

    private func notStarted(_ code: Int32) -> KeyError {
        KeyError(code: .keyCommandFailed, message: "The key command \(self) could not be started (\(errnoDescription(code))).")
    }

    private func empty() -> KeyError {
        var error = KeyError(code: .keyCommandEmpty, message: "The key command \(self) printed nothing; make it print the key on its standard output.")
        error.commandCause = "the command printed nothing"
        return error
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let text = value == value.rounded() ? String(Int(value)) : String(value)
        return text + (value == 1 ? " second" : " seconds")
    }

    /// The program's path: `name` itself when it has a `/`, otherwise the first
    /// executable regular file of that name in the `PATH` of `environment`.
    private static func programPath(_ name: String, in environment: ProcessEnvironment) -> Result<String, KeyError> {
        func isProgram(_ path: String) -> Bool {
            var status = stat()
            return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
        }
        if name.contains("/") {
            if isProgram(name) { return .success(name) }
        } else {
            let path = environment.string("PATH").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
            for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
                let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
                if isProgram(candidate) { return .success(candidate) }
            }
        }
        return .failure(KeyError(code: .keyCommandNotFound,
                                 message: "The key command's program \(name) is not an executable file\(name.contains("/") ? "" : " in PATH"); install it, or give its full path."))
    }

    /// The command's environment: the command line's `environment` (a command run inside
    /// another process has its own), without `MIGRATIONKIT_PASSWORD`, whose value is a key.
    private static func withEnvironment<T>(_ environment: ProcessEnvironment, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let hidden = KeySource.passwordEnvironmentVariable + "="
        if let variables = environment.variables {
            let entries = variables.filter { $0.key != KeySource.passwordEnvironmentVariable }.map { "\($0.key)=\($0.value)" }
            return withCStrings(entries) { body(UnsafePointer($0)) }
        }
        var pointers: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let variable = entry.pointee {
            if strncmp(variable, hidden, hidden.utf8.count) != 0 { pointers.append(variable) }
            entry += 1
        }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// A NULL-terminated array of C strings, for `argv` and `envp`.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    // MARK: - Waiting for it

    private enum End {
        case stopped(Int32)
        case exited(Int32)
        case signaled(Int32)
        case timedOut
        case tooLarge
        case failed(Int32)
    }

    private struct Outcome {
        var end: End
        var output: SecretBytes?
    }

    /// What one read of a pipe found.
    private enum Read {
        /// Bytes, which were kept.
        case data
        /// Nothing yet: the pipe is open and empty for now.
        case nothingYet
        /// Its end (every writer closed it), an error, or more than a key's length.
        case end
    }

    /// Reads `output` (when >= 0) and relays `error` (when >= 0) until the process ends,
    /// then what they hold at that moment; kills its process group when it overstays
    /// `deadline` or prints more than a key's length.
    ///
    /// The process's end is the command's end, not the end of its pipes: a process it
    /// left behind (`sleep 20 &`, a `setsid` daemon) may hold them open for as long as it
    /// runs, so they are read without waiting once the process ended, and then abandoned.
    /// Every wait is a `poll` with the time left to the deadline (in short slices while a
    /// stop may be asked), never a loop that spins.
    private static func wait(for pid: Int32, output: Int32, error: Int32, relay: (@Sendable (UnsafeRawBufferPointer) -> Void)?,
                             deadline: ContinuousClock.Instant, stopRequest: (@Sendable () -> Int32?)?) -> Outcome {
        let limit = KeySource.maximumKeyLength
        var total = 0
        var end: End = .failed(0)
        let process = migrationkit_pidfd_open(pid)
        let scratch = SecretBytes(count: limit + 1) { buffer in
            guard let base = buffer.baseAddress else { return }
            var outputOpen = output >= 0
            var errorOpen = error >= 0
            var errorBuffer = [UInt8](repeating: 0, count: 4096)

            func readOutput() -> Read {
                var count: Int
                repeat { count = read(output, base + total, buffer.count - total) } while count < 0 && errno == EINTR
                if count > 0 {
                    total += count
                    return total <= limit ? .data : .end
                }
                return count < 0 && errno == EAGAIN ? .nothingYet : .end
            }
            func relayError() -> Read {
                var count: Int
                repeat { count = errorBuffer.withUnsafeMutableBytes { read(error, $0.baseAddress, $0.count) } } while count < 0 && errno == EINTR
                if count > 0 {
                    errorBuffer.withUnsafeBytes { relay?(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                    return .data
                }
                return count < 0 && errno == EAGAIN ? .nothingYet : .end
            }
            func kill() {
                _ = Glibc.kill(-pid, SIGKILL)
                _ = Glibc.kill(pid, SIGKILL)
            }

            while true {
                let now = ContinuousClock.now
                guard now < deadline else {
                    kill()
                    end = .timedOut
                    break
                }
                var descriptors = [
                    pollfd(fd: process, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: outputOpen ? output : -1, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: errorOpen ? error : -1, events: Int16(POLLIN), revents: 0),
                ]
                let remaining = deadline - now
                let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
                // Without a process descriptor (a kernel before 5.3), a short slice: the
                // end is then seen by waitpid below; a stop asked is looked for as often.
                let slice = process < 0 || stopRequest != nil ? min(milliseconds, 50) : milliseconds
                let ready = poll(&descriptors, nfds_t(descriptors.count), slice)
                if let number = stopRequest?() {
                    kill()
                    end = .stopped(number)
                    break
                }
                if ready < 0 && errno != EINTR {
                    kill()
                    end = .failed(errno)
                    break
                }
                if outputOpen, descriptors[1].revents != 0, readOutput() == .end {
                    outputOpen = false
                    if total > limit {
                        kill()
                        end = .tooLarge
                        break
                    }
                }
                if errorOpen, descriptors[2].revents != 0, relayError() == .end { errorOpen = false }
                var status: Int32 = 0
                if (process < 0 || descriptors[0].revents != 0), waitpid(pid, &status, WNOHANG) == pid {
                    // Ended: what it wrote is in the pipes already. Read what they hold now,
                    // without waiting for an end a process it left behind may never give.
                    if output >= 0 { _ = fcntl(output, F_SETFL, O_NONBLOCK) }
                    if error >= 0 { _ = fcntl(error, F_SETFL, O_NONBLOCK) }
                    // At most what a pipe holds (1 MiB, Linux's largest by default): a
                    // process left behind that keeps writing cannot hold the run here.
                    while outputOpen, readOutput() == .data {}
                    var relayed = 0
                    while errorOpen, relayed < 1 << 20, relayError() == .data { relayed += errorBuffer.count }
                    if total > limit {
                        end = .tooLarge
                    } else if (status & 0x7f) == 0 {
                        end = .exited((status >> 8) & 0xff)
                    } else {
                        end = .signaled(status & 0x7f)
                    }
                    return
                }
            }
            // Killed: reaped at once.
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        if process >= 0 { close(process) }
        guard output >= 0, total > 0, total <= limit else { return Outcome(end: end, output: nil) }
        let text = scratch.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<total])) }
        return Outcome(end: end, output: text)
    }
}

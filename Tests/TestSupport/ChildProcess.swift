import CProcessControl
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a child process did.
public struct ChildProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// The child was still running at the time limit and was killed.
    public let timedOut: Bool
    public let seconds: Double
    /// The child ended on a signal (a Swift trap is SIGILL or SIGTRAP); `status` is then
    /// the signal's number, which must never pass for an exit code.
    public let signaled: Bool

    public var output: String { stdout + stderr }

    public init(status: Int32, stdout: String, stderr: String, timedOut: Bool = false, seconds: Double = 0, signaled: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
        self.seconds = seconds
        self.signaled = signaled
    }
}

/// A real program the tests started, the way a user's shell would: arguments,
/// environment, working folder, and where its standard input, output and error go.
///
/// Not Foundation's `Process`, which on Linux closes a child's other descriptors from a
/// list taken before the spawn, so a pipe another test opens meanwhile leaks into the
/// child and keeps that test's child from ever seeing the end of its input; and which
/// learns that a child ended through one shared thread that waits for each child in
/// turn. Tests start hundreds of children at once. This spawns with
/// `migrationkit_spawn` (every descriptor but 0, 1 and 2 closed in the child, signals at
/// their defaults and none blocked, a process group of its own), makes its pipes
/// close-on-exec, and waits for its own child on a pidfd, each wait with a time limit.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe to this process: `input` for its standard input, `output` and
        /// `errors` for the others.
        case pipe
        /// A file, created or emptied, mode 0600.
        case file(String)
        /// A descriptor of this process (a terminal's), given as it is.
        case descriptor(Int32)
        /// For standard error: where standard output goes, interleaved as written.
        case sameAsOutput
    }

    public let processIdentifier: Int32
    /// The writing end of its standard input, with `.pipe`.
    public let input: FileHandle?
    /// The reading ends of its standard output and error, with `.pipe`.
    public let output: FileHandle?
    public let errors: FileHandle?

    private let exitDescriptor: Int32
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var usage = rusage()

    /// Starts `command` (its first element an absolute path, or one from this process's
    /// folder). `environment` nil passes this process's.
    public init(_ command: [String], environment: [String: String]? = nil, directory: String? = nil,
                input: Stream = .null, output: Stream = .null, errors: Stream = .null) throws {
        let program = command[0].hasPrefix("/") ? command[0] : FileManager.default.currentDirectoryPath + "/" + command[0]
        var opened: [Int32] = []
        defer { opened.forEach { _ = close($0) } }
        func childEnd(_ stream: Stream, forInput: Bool) throws -> (child: Int32, ours: FileHandle?) {
            switch stream {
            case .null:
                let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
                guard descriptor >= 0 else { throw SpawnFailure(program: program, errno: errno) }
                opened.append(descriptor)
                return (descriptor, nil)
            case .file(let path):
                let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw SpawnFailure(program: program, errno: errno) }
                opened.append(descriptor)
                return (descriptor, nil)
            case .descriptor(let descriptor):
                return (descriptor, nil)
            case .sameAsOutput:
                preconditionFailure("only standard error can go where standard output goes")
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard migrationkit_pipe(&ends) == 0 else { throw SpawnFailure(program: program, errno: errno) }
                let (childEnd, ourEnd) = forInput ? (ends[0], ends[1]) : (ends[1], ends[0])
                opened.append(childEnd)
                return (childEnd, FileHandle(fileDescriptor: ourEnd, closeOnDealloc: true))
            }
        }
        let stdin = try childEnd(input, forInput: true)
        let stdout = try childEnd(output, forInput: false)
        let stderr = if case .sameAsOutput = errors { (child: stdout.child, ours: FileHandle?.none) } else { try childEnd(errors, forInput: false) }
        self.input = stdin.ours
        self.output = stdout.ours
        self.errors = stderr.ours
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: Int32 = 0
        let result = Self.withCStrings(command) { argv in
            Self.withCStrings(variables) { envp in
                directory.withOptionalCString { folder in
                    migrationkit_spawn(program, argv, envp, stdin.child, stdout.child, stderr.child, -1, folder, &pid)
                }
            }
        }
        guard result == 0 else { throw SpawnFailure(program: program, errno: result) }
        processIdentifier = pid
        // Only this process waits for (reaps) its children, so the pid names this child
        // until then.
        exitDescriptor = migrationkit_pidfd_open(pid)
        guard exitDescriptor >= 0 else {
            let error = errno
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            throw SpawnFailure(program: program, errno: error)
        }
    }

    deinit {
        // A child that ended is reaped, as Foundation's Process reaps it, so a test that
        // never asked leaves no zombie behind; one still running is left to run.
        _ = reaped()
        close(exitDescriptor)
    }

    /// Waits at most `timeout` seconds for the child to end: true once it has.
    @discardableResult
    public func wait(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let _ = reaped() { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var ready = pollfd(fd: exitDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, Int32(min(left, 1) * 1000) + 1)
        }
    }

    /// Waits for the child to end, at most `timeout` seconds; past that, records an
    /// issue, kills it and waits for that. No test waits forever for a child.
    public func waitUntilExit(timeout: TimeInterval = 120, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !wait(timeout: timeout) else { return }
        Issue.record("process \(processIdentifier) had not ended after \(Int(timeout)) s; it is killed.", sourceLocation: sourceLocation)
        kill(processIdentifier, SIGKILL)
        wait(timeout: 30)
    }

    /// Sends `signal` to the child, while it runs.
    public func send(_ signal: Int32) {
        lock.withLock {
            if exitStatus == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// SIGTERM, as Foundation's `terminate()`.
    public func terminate() { send(SIGTERM) }

    public var isRunning: Bool { reaped() == nil }

    /// The exit code, or the signal's number when it ended on one; -1 while it runs.
    public var terminationStatus: Int32 {
        guard let status = reaped() else { return -1 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    public var terminationReason: Process.TerminationReason {
        guard let status = reaped() else { return .exit }
        return status & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// The processor time (user and system) it used, once it has ended; nil while it
    /// runs: whether a process that waited did so without spinning.
    public var processorSeconds: Double? {
        guard reaped() != nil else { return nil }
        return lock.withLock {
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
    }

    /// Its wait status once it has ended, reaping it then; nil while it runs.
    private func reaped() -> Int32? {
        lock.withLock {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            let result = wait4(processIdentifier, &status, WNOHANG, &usage)
            guard result == processIdentifier else { return nil }
            exitStatus = status
            return status
        }
    }

    /// Why a child could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        public let program: String
        public let errno: Int32
        public var description: String { "cannot start \(program): \(String(cString: strerror(errno)))" }
    }

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

private extension Optional where Wrapped == String {
    func withOptionalCString<T>(_ body: (UnsafePointer<CChar>?) -> T) -> T {
        switch self {
        case .some(let string): return string.withCString { body($0) }
        case .none: return body(nil)
        }
    }
}

extension ChildProcess {
    /// Runs `command` to its end, as a user's shell would: standard input from `stdin`,
    /// both outputs collected; killed at `timeout` seconds, so a hang fails the test
    /// instead of hanging the suite.
    @discardableResult
    public static func run(
        _ command: [String],
        stdin: Data? = nil,
        environment: [String: String]? = nil,
        directory: String? = nil,
        timeout: TimeInterval = 120
    ) throws -> ChildProcessResult {
        ignoreBrokenPipes
        let started = Date()
        let child = try ChildProcess(command, environment: environment, directory: directory, input: .pipe, output: .pipe, errors: .pipe)
        // From another thread: a child that never reads its input must not block us.
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) { [input = child.input!] in
            if let stdin { try? input.write(contentsOf: stdin) }
            try? input.close()
        }
        // Both pipes drained concurrently, so a chatty child cannot fill one and block.
        let readers = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: readers) { [output = child.output!] in outData = output.readDataToEndOfFile() }
        DispatchQueue.global().async(group: readers) { [errors = child.errors!] in errData = errors.readDataToEndOfFile() }
        var timedOut = false
        if !child.wait(timeout: timeout) {
            timedOut = true
            kill(child.processIdentifier, SIGKILL)
            guard child.wait(timeout: 30) else { throw NeverEnded(command: command[0], pid: child.processIdentifier) }
        }
        // Daemons a child started may keep the pipes open; do not wait for them forever.
        _ = readers.wait(timeout: .now() + 10)
        _ = writer.wait(timeout: .now() + 1)
        return ChildProcessResult(
            status: child.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            timedOut: timedOut,
            seconds: Date().timeIntervalSince(started),
            signaled: child.terminationReason == .uncaughtSignal)
    }

    /// A child that SIGKILL did not end within 30 s (stuck in the kernel).
    public struct NeverEnded: Error, CustomStringConvertible {
        public let command: String
        public let pid: Int32
        public var description: String { "\(command) (pid \(pid)) did not end within 30 s of SIGKILL" }
    }
}

extension FileHandle {
    /// Reads until what was read holds `text`: false when the stream ends first or
    /// `timeout` seconds pass. For a child's answer that a test waits for.
    public func read(until text: String, timeout: TimeInterval) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var read = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: read, as: UTF8.self).contains(text) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var ready = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(min(left, 1) * 1000) + 1) > 0 else { continue }
            let count = Glibc.read(fileDescriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            read.append(contentsOf: buffer[0..<count])
        }
        return true
    }
}

/// A child that stops reading must not kill the test process with SIGPIPE: the write
/// just fails with EPIPE.
private let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// This process's soft `RLIMIT_MEMLOCK` in bytes from /proc/self/limits (nil for
/// unlimited): whether key pages can be locked here at all.
public func memoryLockLimit() -> Int? {
    guard let limits = try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8),
          let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max locked memory") })
    else { return nil }
    let soft = line.dropFirst("Max locked memory".count).split(separator: " ", omittingEmptySubsequences: true).first
    return soft.flatMap { Int($0) }
}

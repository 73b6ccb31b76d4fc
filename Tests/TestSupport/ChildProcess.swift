import Foundation

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

/// Runs real programs the way a user's shell would, for tests: arguments, environment,
/// working directory, standard input; both outputs collected; killed at a time limit so
/// a hang fails the test instead of hanging the suite.
public enum ChildProcess {
    @discardableResult
    public static func run(
        _ command: [String],
        stdin: Data? = nil,
        environment: [String: String]? = nil,
        directory: String? = nil,
        timeout: TimeInterval = 120
    ) throws -> ChildProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        ignoreBrokenPipes
        let started = Date()
        try withUnblockedSignals { try process.run() }
        // From another thread: a child that never reads its input must not block us.
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) {
            if let stdin { try? input.fileHandleForWriting.write(contentsOf: stdin) }
            try? input.fileHandleForWriting.close()
        }
        // Both pipes drained concurrently, so a chatty child cannot fill one and block.
        let readers = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: readers) { outData = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: readers) { errData = errors.fileHandleForReading.readDataToEndOfFile() }
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        // Daemons a child started may keep the pipes open; do not wait for them forever.
        let drained = readers.wait(timeout: .now() + 10) == .success
        _ = writer.wait(timeout: .now() + 1)
        // Foundation never closes a Pipe's read end by itself here, so a long suite would
        // run out of descriptors (and Process.run misbehaves long before). Close them once
        // drained; a reader still blocked on one must not have it closed under it.
        if drained {
            try? output.fileHandleForReading.close()
            try? errors.fileHandleForReading.close()
        }
        return ChildProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            timedOut: timedOut,
            seconds: Date().timeIntervalSince(started),
            signaled: process.terminationReason == .uncaughtSignal)
    }
}

/// A child that stops reading must not kill the test process with SIGPIPE: the write
/// just fails with EPIPE.
private let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// Runs `body` (a spawn) with no signal blocked on this thread.
///
/// Tests run on libdispatch worker threads, which block nearly every signal, and a child
/// inherits its parent thread's mask: without this, a `dbus-daemon` started by
/// `dbus-run-session` ignores the SIGTERM meant to end it and lingers, and Ctrl-C on a
/// pseudo-terminal never reaches the child.
public func withUnblockedSignals<T>(_ body: () throws -> T) rethrows -> T {
    var none = sigset_t()
    var saved = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    return try body()
}

/// This process's soft `RLIMIT_MEMLOCK` in bytes from /proc/self/limits (nil for
/// unlimited): whether key pages can be locked here at all.
public func memoryLockLimit() -> Int? {
    guard let limits = try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8),
          let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max locked memory") })
    else { return nil }
    let soft = line.dropFirst("Max locked memory".count).split(separator: " ", omittingEmptySubsequences: true).first
    return soft.flatMap { Int($0) }
}

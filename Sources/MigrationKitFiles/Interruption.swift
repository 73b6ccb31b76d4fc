import MigrationKit
import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP while MigrationKit works.
///
/// By default a library leaves the signal its course: the process ends as it would
/// have, after removing the scratch folders that hold copies of the user's data
/// (`ScratchFolder`). A command line turns on the graceful stop (`stopGracefully()`) for
/// the time it runs a command: the first signal then stops the work in progress instead
/// of the process. Every statement running on any connection stops at its next step
/// (SQLite's progress handler, which no new statement can miss, unlike
/// `sqlite3_interrupt`), no new statement starts but a rollback, waits for a lock and
/// backup copies give up, so the command unwinds through its own rollbacks: the open
/// transaction is rolled back (SQLite removes its journal), and the command says what
/// it left. A second signal ends the process at once, as the first would have.
///
/// What must not be cut short runs as `unstoppable`: the cleanups after a change (a
/// journal mode put back, a created file removed) and whatever follows a point of no
/// return (`PRAGMA rekey` cannot be interrupted, so its proof must run too).
///
/// The signal handler only writes the signal's number into a pipe (all a handler may
/// safely do); a dispatch source reading the pipe does the rest. (A dispatch signal
/// source alone needs the signal ignored first, and an ignored signal that arrives while
/// no thread blocks it is discarded by the kernel.) A signal the process was started
/// with ignored (a `nohup` job's SIGHUP, a background job's SIGINT) stays ignored.
package enum Interruption {
    /// The signal that asked this process to stop, once one has under the graceful stop.
    package static var signal: Int32? { SignalWatcher.shared.stopSignal }

    /// Turns the graceful stop on, until `endGracefulStop()`.
    package static func stopGracefully() {
        SignalWatcher.shared.setGraceful(true)
    }

    /// Turns the graceful stop off and forgets the signal that stopped the work, so
    /// the process (an app that ran the commands) handles the next one as before.
    ///
    /// - Parameter reraising: end the process by the signal that stopped the work, as
    ///   a process ends on it, now that the work is rolled back and reported: a shell
    ///   running the command in a loop then stops too, where an exit status of 130
    ///   would let it go on to the next one.
    package static func endGracefulStop(reraising: Bool = false) {
        endGracefulStop(reraising: reraising, orElse: nil)
    }

    /// `endGracefulStop(reraising:)`, ending the process by `fallback` when no stop was
    /// recorded: the signal reached another handler first (the key prompt's, which
    /// passes it on to this one, whose watcher may not have read it yet).
    package static func endGracefulStop(reraising: Bool, orElse fallback: Int32?) {
        guard let number = SignalWatcher.shared.setGraceful(false) ?? fallback else { return }
        if reraising { SignalWatcher.shared.endProcess(by: number) }
    }

    /// Whether work on this thread is to stop now: a stop was asked, and the work is not
    /// `unstoppable`. Asked by every running statement every 1,000 steps, so the common
    /// answer (no stop) is one atomic load, not a lock.
    package static var isStopping: Bool {
        SignalWatcher.stopAsked.load(ordering: .acquiring) && !inUnstoppableSection
    }

    /// Throws `FileOperationError` of kind `.interrupted` when work here is to stop
    /// (`isStopping`): for work that waits (a lock) or starts something new.
    package static func check() throws {
        guard isStopping, let message = stoppedMessage else { return }
        throw FileOperationError(kind: .interrupted, resultCode: .SQLITE_INTERRUPT, message: message)
    }

    /// "Stopped by SIGINT (Ctrl-C) before this could finish.", once a stop was asked:
    /// what a connection's own interrupted error says.
    package static var stoppedMessage: String? {
        signal.map { "Stopped by \(name(of: $0)) before this could finish." }
    }

    /// Runs `body` to its end even when a stop is asked meanwhile: a cleanup, or the
    /// rest of a change past its point of no return.
    package static func unstoppable<T>(_ body: () throws -> T) rethrows -> T {
        try $inUnstoppableSection.withValue(true, operation: body)
    }

    @TaskLocal private static var inUnstoppableSection = false

    /// "SIGINT (Ctrl-C)" for 2.
    package static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT (Ctrl-C)"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(number)"
        }
    }

    /// A folder removed before the process ends on a signal (`ScratchFolder`).
    static func removeOnSignal(_ folder: String) { SignalWatcher.shared.watch(folder) }
    static func forget(_ folder: String) { SignalWatcher.shared.forget(folder) }
}

/// The one owner of the process's handlers for terminating signals (see `Interruption`).
private final class SignalWatcher: @unchecked Sendable {
    static let shared = SignalWatcher()

    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// Whether `stopped` holds a signal, readable without the lock.
    static let stopAsked = Atomic<Bool>(false)
    private let lock = NSLock()
    private var folders: Set<String> = []
    private var previous: [Int32: sigaction] = [:]
    private var installed = false
    private var graceful = false
    private var stopped: Int32?
    private var reader: DispatchSourceRead?
    private let queue = DispatchQueue(label: "org.migrationkit.signals")

    var stopSignal: Int32? { lock.withLock { stopped } }

    /// Returns the signal that stopped the work, when turning the stop off.
    @discardableResult
    func setGraceful(_ on: Bool) -> Int32? {
        lock.withLock {
            graceful = on
            if on { installIfNeeded() }
            defer {
                if !on {
                    stopped = nil
                    Self.stopAsked.store(false, ordering: .releasing)
                }
            }
            return stopped
        }
    }

    func watch(_ folder: String) {
        lock.withLock {
            folders.insert(folder)
            installIfNeeded()
        }
    }

    func forget(_ folder: String) {
        lock.withLock { _ = folders.remove(folder) }
    }

    /// Called with the lock held.
    private func installIfNeeded() {
        guard !installed else { return }
        installed = true
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        signalPipeWriteEnd = ends[1]
        let reader = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: queue)
        reader.setEventHandler { [weak self] in
            var number: UInt8 = 0
            while read(ends[0], &number, 1) == 1 { self?.received(Int32(number)) }
        }
        reader.resume()
        self.reader = reader
        for number in Self.signals {
            var current = sigaction()
            guard sigaction(number, nil, &current) == 0 else { continue }
            // Ignored already (a job started with the signal ignored): it stops nothing.
            if let handler = current.__sigaction_handler.sa_handler,
               unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var before = sigaction()
            if sigaction(number, &action, &before) == 0 { previous[number] = before }
        }
    }

    private func received(_ number: Int32) {
        let stopsGracefully = lock.withLock { () -> Bool in
            guard graceful, stopped == nil else { return false }
            stopped = number
            Self.stopAsked.store(true, ordering: .releasing)
            return true
        }
        if !stopsGracefully { endProcess(by: number) }
    }

    /// The library's default, or a second signal: end as the signal would have, its
    /// scratch folders removed first.
    func endProcess(by number: Int32) {
        let (doomed, before) = lock.withLock { (folders, previous[number]) }
        for folder in doomed { try? FileManager.default.removeItem(atPath: folder) }
        if var before {
            sigaction(number, &before, nil)
        } else {
            signal(number, SIG_DFL)
        }
        // To the process, not this thread: dispatch's threads block signals, and a
        // signal raised on one would wait there forever.
        kill(getpid(), number)
        // A handler the process had before may not end it: then it goes on, as it would have.
    }
}

/// The pipe's write end, for the handler, which can reach no object.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The signal handler: writes the signal's number into the pipe, nothing else
/// (`write` is async-signal-safe), keeping the interrupted code's `errno`.
private func forwardSignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}

import Dispatch
import Foundation

/// A private temporary folder (mode 0700) for scratch databases, removed when released,
/// and also when the process is interrupted (SIGINT, SIGTERM, SIGHUP) while it exists:
/// a `check` stopped with Ctrl-C must not leave a copy of the user's data in /tmp.
///
/// The folder is removed on a dispatch queue, not in a signal handler (where removing
/// files is not safe); the signal is then sent again with its previous disposition, so
/// the process ends exactly as it would have without the folder.
package final class ScratchFolder: @unchecked Sendable {
    package let path: String

    /// - Parameter purpose: part of the folder's name ("check", "replay", "dry-run").
    package init(purpose: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-\(purpose)-\(UUID().uuidString)").path
        // Watched before it exists, so no signal can come between the two.
        InterruptCleanup.shared.register(path)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            InterruptCleanup.shared.unregister(path)
            throw error
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        InterruptCleanup.shared.unregister(path)
    }
}

/// Removes registered folders when a terminating signal arrives, then lets the signal
/// take its course.
///
/// A real handler (`sigaction`) catches the signal and only writes its number into a
/// pipe, which is all a handler may safely do; a dispatch source reading the pipe removes
/// the folders, puts the previous action back and sends the signal again. (A dispatch
/// signal source alone needs the signal ignored first, and an ignored signal that
/// arrives while no thread blocks it is discarded by the kernel: `check` then ran on
/// after a SIGTERM.) Installed with the first folder and kept for the life of the
/// process, so no signal falls into a gap between two folders; with no folder
/// registered, a signal just takes its course.
private final class InterruptCleanup: @unchecked Sendable {
    static let shared = InterruptCleanup()

    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private let lock = NSLock()
    private var folders: Set<String> = []
    private var previous: [Int32: sigaction] = [:]
    private var installed = false
    private var reader: DispatchSourceRead?
    private let queue = DispatchQueue(label: "org.migrationkit.interrupt-cleanup")

    func register(_ folder: String) {
        lock.withLock {
            folders.insert(folder)
            if !installed { install() }
        }
    }

    func unregister(_ folder: String) {
        lock.withLock { _ = folders.remove(folder) }
    }

    /// Called with the lock held.
    private func install() {
        installed = true
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        interruptPipeWriteEnd = ends[1]
        let reader = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: queue)
        reader.setEventHandler { [weak self] in
            var number: UInt8 = 0
            while read(ends[0], &number, 1) == 1 { self?.interrupted(by: Int32(number)) }
        }
        reader.resume()
        self.reader = reader
        for number in Self.signals {
            var current = sigaction()
            guard sigaction(number, nil, &current) == 0 else { continue }
            // Ignored already (a job started with the signal ignored): it ends nothing,
            // so there is nothing to clean up after.
            if let handler = current.__sigaction_handler.sa_handler,
               unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardInterrupt
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var before = sigaction()
            if sigaction(number, &action, &before) == 0 { previous[number] = before }
        }
    }

    private func interrupted(by number: Int32) {
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
    }
}

/// The pipe's write end, for the handler, which can reach no object.
nonisolated(unsafe) private var interruptPipeWriteEnd: Int32 = -1

/// The signal handler: writes the signal's number into the pipe, nothing else
/// (`write` is async-signal-safe), keeping the interrupted code's `errno`.
private func forwardInterrupt(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(interruptPipeWriteEnd, &byte, 1)
    errno = saved
}

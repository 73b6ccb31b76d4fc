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
/// take its course. Installed only while a folder is registered.
private final class InterruptCleanup: @unchecked Sendable {
    static let shared = InterruptCleanup()

    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private let lock = NSLock()
    private var folders: Set<String> = []
    private var sources: [DispatchSourceSignal] = []
    private var previous: [Int32: sighandler_t?] = [:]
    private let queue = DispatchQueue(label: "org.migrationkit.interrupt-cleanup")

    func register(_ folder: String) {
        lock.withLock {
            folders.insert(folder)
            guard sources.isEmpty else { return }
            for number in Self.signals {
                // A dispatch source sees the signal only once its default action (ending
                // the process) is off; the handler below restores it and sends it again.
                let before = signal(number, SIG_IGN)
                if let before, unsafeBitCast(before, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                    // Ignored already (a job started with the signal ignored): it ends
                    // nothing, so there is nothing to clean up after.
                    continue
                }
                previous[number] = before
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [weak self] in self?.interrupted(by: number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    func unregister(_ folder: String) {
        lock.withLock {
            folders.remove(folder)
            guard folders.isEmpty else { return }
            for source in sources { source.cancel() }
            sources = []
            for (number, handler) in previous { signal(number, handler ?? SIG_DFL) }
            previous = [:]
        }
    }

    private func interrupted(by number: Int32) {
        let (doomed, handler) = lock.withLock { (folders, previous[number] ?? nil) }
        for folder in doomed { try? FileManager.default.removeItem(atPath: folder) }
        signal(number, handler ?? SIG_DFL)
        // To the process, not this thread: dispatch's threads block signals, and a
        // signal raised on one would wait there forever.
        kill(getpid(), number)
    }
}

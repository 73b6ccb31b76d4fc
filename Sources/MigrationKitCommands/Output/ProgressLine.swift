import Foundation
import MigrationKit

/// "[2/5] 0002_add_genre  3.4s ⠹" on standard error while a step runs, redrawn in
/// place ten times a second. Only on a terminal, and never with --quiet or --json:
/// logs and pipes get no control characters.
final class ProgressLine: @unchecked Sendable {
    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    private let lock = NSLock()
    private var current: (label: String, started: ContinuousClock.Instant)?
    private var frame = 0
    private var timer: DispatchSourceTimer?
    private let enabled: Bool
    /// Where it is drawn: the running command's console.
    private let console: Console

    init(enabled: Bool, on console: Console) {
        self.enabled = enabled
        self.console = console
    }

    /// Starts showing `label` (and elapsed time) until `stop()`.
    func start(_ label: @autoclosure () -> String) {
        guard enabled else { return }
        let label = label()
        lock.withLock {
            current = (label, ContinuousClock.now)
            if timer == nil {
                let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
                timer.schedule(deadline: .now(), repeating: .milliseconds(100))
                timer.setEventHandler { [weak self] in self?.draw() }
                timer.resume()
                self.timer = timer
            }
        }
    }

    /// Shows `label` instead, keeping the elapsed time of the `start` before (or
    /// starting, if nothing is shown): a fleet's count of databases done.
    func update(_ label: String) {
        guard enabled else { return }
        let shown = lock.withLock { () -> Bool in
            guard let started = current?.started else { return false }
            current = (label, started)
            return true
        }
        if !shown { start(label) }
    }

    /// Clears the line, so the next printed line starts clean.
    func stop() {
        guard enabled else { return }
        lock.withLock {
            timer?.cancel()
            timer = nil
            current = nil
            console.errorRaw("\r\u{1B}[2K")
        }
    }

    private func draw() {
        lock.withLock {
            guard let current else { return }
            let elapsed = ContinuousClock.now - current.started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            frame = (frame + 1) % Self.frames.count
            console.errorRaw("\r\u{1B}[2K\(current.label)  \(String(format: "%.1fs", seconds)) \(Self.frames[frame])")
        }
    }
}

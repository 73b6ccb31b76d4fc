import Foundation
import MigrationKitFiles

/// Runs one job per item on a fixed number of threads, each taking the next item when
/// it is free, and returns the results in the items' order; or one job beside the
/// caller (`start`).
///
/// Threads rather than Swift concurrency or `DispatchQueue.concurrentPerform`: each job
/// blocks (key derivation, file I/O, SQLite's locks), which the cooperative pool must
/// not be given, and `concurrentPerform` never runs more jobs at once than there are
/// cores, while `--jobs` may ask for more when the disk rather than the CPU is the limit.
enum WorkerPool {
    /// - Parameters:
    ///   - body: called for each index, from several threads at once; it must be safe
    ///     to call concurrently.
    ///   - finished: called after each job with the number of jobs finished so far,
    ///     one call at a time.
    ///   - stop: asked before each item is taken: once true, no further item starts
    ///     (the process was asked to stop), and `skipped` stands for each one left.
    static func map<Result: Sendable>(count: Int, jobs: Int, _ body: @escaping (Int) -> Result,
                                      finished: @escaping (Int) -> Void = { _ in },
                                      stop: @escaping () -> Bool, skipped: (Int) -> Result) -> [Result] {
        let state = State<Result>(count: count, body: body, finished: finished, stop: stop)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            group.enter()
            spawn { [state] in
                state.work()
                group.leave()
            }
        }
        group.wait()
        return state.results.enumerated().map { index, result in result ?? skipped(index) }
    }

    /// Starts `body` on a thread of its own and returns at once: for work that can
    /// overlap the caller's (lint while the key is derived). `Pending.wait()` gives the
    /// result.
    static func start<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Pending<Result> {
        let pending = Pending(body)
        spawn { [pending] in pending.run() }
        return pending
    }

    /// The result of `start`'s work, once it is done.
    final class Pending<Result: Sendable>: @unchecked Sendable {
        private let body: @Sendable () -> Result
        private let done = DispatchSemaphore(value: 0)
        private var result: Result?

        fileprivate init(_ body: @escaping @Sendable () -> Result) {
            self.body = body
        }

        fileprivate func run() {
            result = body()
            done.signal()
        }

        /// Blocks until the work is done. Call it once.
        func wait() -> Result {
            done.wait()
            // Set before the signal; the work again, not a trap, should that ever fail.
            return result ?? body()
        }
    }

    private static func spawn(_ work: @escaping @Sendable () -> Void) {
        // The command's world, its surroundings included, goes along in `work`'s capture.
        let thread = Thread(block: work)
        // SQLite and deep SQL need more than a secondary thread's default stack.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The queue of indexes and the results, behind one lock.
    private final class State<Result: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private let count: Int
        private let body: (Int) -> Result
        private let finished: (Int) -> Void
        private let stop: () -> Bool
        private var next = 0
        private var done = 0
        private(set) var results: [Result?]

        init(count: Int, body: @escaping (Int) -> Result, finished: @escaping (Int) -> Void, stop: @escaping () -> Bool) {
            self.count = count
            self.body = body
            self.finished = finished
            self.stop = stop
            results = Array(repeating: nil, count: count)
        }

        func work() {
            while let index = claim() {
                let result = body(index)
                lock.withLock {
                    results[index] = result
                    done += 1
                    finished(done)
                }
            }
        }

        private func claim() -> Int? {
            lock.withLock {
                guard next < count, !stop() else { return nil }
                defer { next += 1 }
                return next
            }
        }
    }
}

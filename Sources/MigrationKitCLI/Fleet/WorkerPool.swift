import Foundation

/// Runs one job per item on a fixed number of threads, each taking the next item when
/// it is free, and returns the results in the items' order.
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
    static func map<Result: Sendable>(count: Int, jobs: Int, _ body: @escaping (Int) -> Result,
                                      finished: @escaping (Int) -> Void = { _ in }) -> [Result] {
        let state = State<Result>(count: count, body: body, finished: finished)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            group.enter()
            let thread = Thread { [state] in
                state.work()
                group.leave()
            }
            // SQLite and deep SQL need more than a secondary thread's default stack.
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        return state.results.map { $0! }
    }

    /// The queue of indexes and the results, behind one lock.
    private final class State<Result: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private let count: Int
        private let body: (Int) -> Result
        private let finished: (Int) -> Void
        private var next = 0
        private var done = 0
        private(set) var results: [Result?]

        init(count: Int, body: @escaping (Int) -> Result, finished: @escaping (Int) -> Void) {
            self.count = count
            self.body = body
            self.finished = finished
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
                guard next < count else { return nil }
                defer { next += 1 }
                return next
            }
        }
    }
}

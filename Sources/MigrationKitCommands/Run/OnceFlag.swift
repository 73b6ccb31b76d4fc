import Foundation

/// True the first time `claim()` is called, false after: something said once.
package final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    package init() {}

    package func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A fixed-size buffer for key material that is wiped when released.
///
/// Swift's `String` and `Array` may copy their storage at will and never wipe it, so
/// secrets travel through MigrationKit in this type instead: the bytes live in one
/// allocation that is never copied implicitly and is overwritten with `explicit_bzero`
/// (which the compiler may not optimise away) on `deinit`.
///
/// The allocation is whole pages of its own (`mmap`), so that, as `gpg-agent` and
/// `ssh-agent` do with theirs, they can be kept out of the two places a process's memory
/// leaks to files: they are locked in RAM (`mlock`: never written to swap) and left out
/// of core dumps (`MADV_DONTDUMP`). Locking is best effort: an unprivileged user's
/// `RLIMIT_MEMLOCK` can be small, and a key that cannot be locked is still better used
/// than refused; `SecretBytes.memoryLockFailures` counts the misses for verbose output.
/// Immutable after initialisation, hence safe to share between threads.
public final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    /// The whole page-rounded allocation, which `storage` is the start of.
    private let allocation: SecretMemory.Allocation

    /// Allocates `count` bytes and lets `initialize` fill them in place.
    public init(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        allocation = SecretMemory.allocate(byteCount: count)
        storage = UnsafeMutableRawBufferPointer(rebasing: allocation.pages[0..<count])
        do {
            try initialize(storage)
        } catch {
            SecretMemory.release(allocation)
            throw error
        }
        self.count = count
    }

    /// Copies `bytes`. The caller remains responsible for wiping its own copy.
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// The number of secret bytes.
    public let count: Int

    /// Whether there are no secret bytes (an empty key is refused before it is used).
    public var isEmpty: Bool { count == 0 }

    /// Whether these bytes are locked in RAM (see the type's discussion).
    package var isLockedInMemory: Bool { allocation.isLocked }

    /// How many secret buffers this process could not lock in RAM so far (their pages
    /// may reach swap). Core dumps still leave them out.
    package static var memoryLockFailures: Int { SecretMemory.lockFailures.load(ordering: .relaxed) }

    /// Lends the bytes for the duration of `body`. Do not let them escape.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Compares in constant time with respect to content (only the lengths may leak).
    package func isEqual(to other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { lhs in
            other.withUnsafeBytes { rhs in
                var difference: UInt8 = 0
                for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
                return difference == 0
            }
        }
    }

    deinit {
        SecretMemory.release(allocation)
    }

    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }
}

/// Pages for secrets: mapped privately, locked, excluded from core dumps, and wiped,
/// unlocked and unmapped when released.
enum SecretMemory {
    struct Allocation {
        let pages: UnsafeMutableRawBufferPointer
        /// False only for the heap fallback when no mapping could be made.
        let isMapped: Bool
        let isLocked: Bool
    }

    static let lockFailures = Atomic<Int>(0)

    static let pageSize: Int = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    static func allocate(byteCount: Int) -> Allocation {
        let length = (max(byteCount, 1) + pageSize - 1) / pageSize * pageSize
        guard let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              base != MAP_FAILED
        else {
            // No address space left for a mapping: the heap is the last resort, still
            // wiped on release but neither locked nor kept out of dumps.
            let fallback = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
            fallback.initializeMemory(as: UInt8.self, repeating: 0)
            lockFailures.add(1, ordering: .relaxed)
            return Allocation(pages: fallback, isMapped: false, isLocked: false)
        }
        // Anonymous mappings start zeroed. Out of dumps before any secret is written.
        _ = madvise(base, length, MADV_DONTDUMP)
        let locked = mlock(base, length) == 0
        if !locked { lockFailures.add(1, ordering: .relaxed) }
        return Allocation(pages: UnsafeMutableRawBufferPointer(start: base, count: length), isMapped: true, isLocked: locked)
    }

    static func release(_ allocation: Allocation) {
        SecretBytes.wipe(allocation.pages)
        guard allocation.isMapped, let base = allocation.pages.baseAddress else {
            allocation.pages.deallocate()
            return
        }
        if allocation.isLocked { _ = munlock(base, allocation.pages.count) }
        _ = munmap(base, allocation.pages.count)
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["count": count]) }
}

/// Overwrites a byte array's current storage. Use it on transient arrays that held
/// secret material before they go out of scope.
public func wipeBytes(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) }
}

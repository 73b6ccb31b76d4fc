#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed-size buffer for key material that is wiped when released.
///
/// Swift's `String` and `Array` may copy their storage at will and never wipe it, so
/// secrets travel through MigrationKit in this type instead: the bytes live in one
/// heap allocation that is never copied implicitly and is overwritten with
/// `explicit_bzero` (which the compiler may not optimise away) on `deinit`.
/// Immutable after initialisation, hence safe to share between threads.
public final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Allocates `count` bytes and lets `initialize` fill them in place.
    public init(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = .allocate(byteCount: max(count, 1), alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try initialize(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
        } catch {
            Self.wipe(storage)
            storage.deallocate()
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

    public var isEmpty: Bool { count == 0 }

    /// Lends the bytes for the duration of `body`. Do not let them escape.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Compares in constant time with respect to content (only the lengths may leak).
    public func isEqual(to other: SecretBytes) -> Bool {
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
        Self.wipe(storage)
        storage.deallocate()
    }

    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
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

import Foundation
@testable import MigrationKitSecrets
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `SecretBytes` pages as the kernel sees them: `/proc/self/smaps` lists each mapping's
/// flags, `lo` for locked (never swapped) and `dd` for left out of core dumps.
@Suite(.serialized) struct SecretMemoryTests {
    /// The `VmFlags` of the mapping that contains `address`, nil when none does.
    private func mappingFlags(containing address: UInt) throws -> Set<String>? {
        // Read to the end: procfs reports a size of 0, and this file is long.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, fields.first == "VmFlags:" {
                return Set(fields.dropFirst().map(String.init))
            }
        }
        return nil
    }

    private func address(of secret: SecretBytes) -> UInt {
        secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func secretPagesAreLockedAndLeftOutOfCoreDumpsWhileTheyLive() throws {
        let limit = memoryLockLimit()
        let failuresBefore = SecretBytes.memoryLockFailures
        let secret = SecretBytes(copying: Array("a passphrase that must not reach swap".utf8))
        let flags = try #require(try mappingFlags(containing: address(of: secret)), "no mapping holds the secret")
        #expect(flags.contains("dd"), "the secret's pages are in core dumps: \(flags.sorted())")
        if limit ?? 1 > 0 {
            #expect(secret.isLockedInMemory)
            #expect(flags.contains("lo"), "the secret's pages are not locked: \(flags.sorted())")
            #expect(SecretBytes.memoryLockFailures == failuresBefore)
        } else {
            // RLIMIT_MEMLOCK 0: nothing can be locked; the miss is counted, not thrown.
            #expect(!secret.isLockedInMemory)
            #expect(SecretBytes.memoryLockFailures > failuresBefore)
        }
        #expect(secret.withUnsafeBytes { Array($0) } == Array("a passphrase that must not reach swap".utf8))
    }

    @Test func anEmptySecretStillHasItsOwnPage() throws {
        let empty = SecretBytes(copying: [UInt8]())
        #expect(empty.isEmpty)
        #expect(try mappingFlags(containing: address(of: empty))?.contains("dd") == true)
    }
}

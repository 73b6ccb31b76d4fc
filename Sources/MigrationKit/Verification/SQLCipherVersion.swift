import Foundation

/// A parsed SQLCipher version ("4.6.1 community" → 4.6.1). In the core, beside the checks,
/// because every layer over SQLCipher asks it: the SQLCipher connection of its library,
/// a GRDB built on SQLCipher of its connection (`DatabaseChecks.cipherPageChecking`).
public struct SQLCipherVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The major version: 4 in 4.6.1.
    package let major: Int
    /// The minor version: 6 in 4.6.1.
    let minor: Int
    /// The patch version: 1 in 4.6.1 (0 when parsed text has none).
    public let patch: Int

    /// The version `major.minor.patch`.
    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses the leading `X.Y.Z` of `PRAGMA cipher_version`'s answer.
    public init?(parsing text: String) {
        let numbers = text.split(separator: " ").first?.split(separator: ".").map { Int($0) } ?? []
        guard numbers.count >= 2, let major = numbers[0], let minor = numbers[1] else { return nil }
        self.init(major: major, minor: minor, patch: numbers.count > 2 ? (numbers[2] ?? 0) : 0)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}

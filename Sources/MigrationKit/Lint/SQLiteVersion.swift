/// A SQLite library version such as 3.15.2, ordered so features can be gated on it.
public struct SQLiteVersion: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The first number: 3 in 3.15.2.
    package let major: Int
    /// The second number: 15 in 3.15.2.
    let minor: Int
    /// The third number: 2 in 3.15.2 (0 when the version has none).
    let patch: Int

    /// The version `major.minor.patch`, e.g. `SQLiteVersion(3, 15, 2)`.
    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `sqlite3_libversion()` text: "3.15.2", "3.45" (patch 0), or an old
    /// four-part "3.7.16.1" (the fourth part, a patch of a patch, adds no SQL feature
    /// and is dropped). Nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...4).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        self.init(numbers[0], numbers[1], numbers.count > 2 ? numbers[2] : 0)
    }

    public static func < (lhs: SQLiteVersion, rhs: SQLiteVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}

extension SQLiteVersion {
    /// The release that added the pragma table functions (`pragma_foreign_key_check()`,
    /// `pragma_foreign_key_list()`), which take a table's name as a bound argument.
    static var pragmaFunctions: SQLiteVersion { SQLFeature.pragmaFunctions.addedIn }
    /// The release from which `PRAGMA quick_check(TABLE)` checks one table and its
    /// indexes.
    package static let tableQuickCheck = SQLiteVersion(3, 33, 0)
    /// The release from which `PRAGMA optimize=0x10000` judges every table, not only the
    /// ones the asking connection queried.
    package static let optimizeJudgesEveryTable = SQLiteVersion(3, 46, 0)
}

/// The order a migrations folder's files apply in, and the one check that it is the
/// order they are numbered in: what loading a folder refuses and what `new` numbers by.
///
/// MigrationKit's own layout applies files in byte-wise order of their identifiers
/// (`MigrationIdentifierOrder`: as `ls` lists them and SQLite compares text). Numbers of
/// different widths break that order: `V10__b` sorts before `V9__a` (and before `V1__a`),
/// `10_b` before `9_a`, so a database would apply them, and `baseline --to` record them,
/// in an order nobody wrote. A folder where that happens is refused (`misnumbered(_:)`),
/// never run or recorded. A layout that orders by number (Flyway's, golang-migrate's)
/// is an order of its own here, with nothing of the kind to refuse.
package struct MigrationFileOrder: Sendable {
    /// MigrationKit's own layout (`NAME.sql` with sections, or `.up.sql`/`.down.sql`
    /// pairs): byte-wise.
    package static let byteWise = MigrationFileOrder()

    private init() {}

    /// Whether the migration `lhs` applies before `rhs`.
    package func precedes(_ lhs: String, _ rhs: String) -> Bool {
        MigrationIdentifierOrder.precedes(lhs, rhs)
    }

    /// Two identifiers this order applies one way while their numbers say the other.
    package struct Misnumbered: Hashable, Sendable {
        /// The one that applies first, though its number is the larger.
        package let first: String
        /// The one that applies after it, though its number is the smaller.
        package let second: String
    }

    /// The first two of `identifiers` (in the order they apply) that this order applies
    /// in another order than their numbers say, or nil. An identifier's number is its
    /// leading digits after any ASCII letters (`V10__x` → `V` 10, `10_x` → 10,
    /// `20240101_x`); only identifiers with the same letters before their number are
    /// compared, and equal numbers say nothing (`1_a`, `01_b`).
    package func misnumbered(_ identifiers: [String]) -> Misnumbered? {
        // For each letter prefix, the identifier with the largest number applied so far.
        var largest: [Substring: (identifier: String, digits: Substring)] = [:]
        for identifier in identifiers.sorted(by: precedes) {
            guard let number = Self.number(of: identifier) else { continue }
            if let before = largest[number.prefix], Self.isLarger(before.digits, than: number.digits) {
                return Misnumbered(first: before.identifier, second: identifier)
            }
            largest[number.prefix] = (identifier, number.digits)
        }
        return nil
    }

    /// The identifier's leading ASCII letters and the digits right after them, or nil
    /// when no digit follows them.
    package static func number(of identifier: String) -> (prefix: Substring, digits: Substring)? {
        // Bytes, not Characters: every identifier of a folder passes here at every load,
        // and ASCII bytes always end on a Character's boundary.
        let bytes = identifier.utf8
        let letters = bytes.prefix { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }
        let digits = bytes[letters.endIndex...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard !digits.isEmpty else { return nil }
        return (identifier[letters.startIndex..<letters.endIndex], identifier[digits.startIndex..<digits.endIndex])
    }

    /// `identifier` with its number zero-padded to as many digits as `other`'s number
    /// has (`V9__a` beside `V10__b` gives `V09__a`): the name that puts it in order.
    package static func padded(_ identifier: String, toTheWidthOf other: String) -> String {
        guard let number = number(of: identifier), let width = Self.number(of: other)?.digits.count, width > number.digits.count else {
            return identifier
        }
        return String(number.prefix) + String(repeating: "0", count: width - number.digits.count) + identifier[number.digits.startIndex...]
    }

    /// Whether the number `lhs` is larger than `rhs`, whatever their lengths and leading
    /// zeros (a number need not fit in 64 bits).
    private static func isLarger(_ lhs: Substring, than rhs: Substring) -> Bool {
        let lhs = lhs.drop { $0 == "0" }, rhs = rhs.drop { $0 == "0" }
        return lhs.count != rhs.count ? lhs.count > rhs.count : rhs.utf8.lexicographicallyPrecedes(lhs.utf8)
    }
}

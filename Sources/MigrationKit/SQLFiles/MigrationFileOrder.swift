/// The order a migrations folder's files apply in, and the one check that it is the
/// order they are numbered in: what loading a folder sorts by and refuses, and what
/// `new` numbers by. Each layout (`MigrationFolderLayout`) has one.
///
/// MigrationKit's own layout applies files in byte-wise order of their identifiers
/// (`MigrationIdentifierOrder`: as `ls` lists them and SQLite compares text); diesel's in
/// byte-wise order of their versions, as diesel compares them. Numbers of different
/// widths break a byte-wise order: `V10__b` sorts before `V9__a` (and before `V1__a`),
/// `10_b` before `9_a`, so a database would apply them, and `baseline --to` record them,
/// in an order nobody wrote. A folder where that happens is refused (`misnumbered(_:)`),
/// never run or recorded. The numbered layouts (sqlx, golang-migrate, goose, Flyway)
/// apply files in order of their version numbers, part by part (`1.2.10` after `1.2.9`),
/// with nothing of the kind to refuse; two files of one version take one place, which
/// the folder refuses (`takeOnePlace(_:_:)`).
package struct MigrationFileOrder: Sendable {
    fileprivate enum Rule: Sendable {
        /// Byte-wise by identifier.
        case identifier
        /// Byte-wise by version text (diesel), then by identifier.
        case versionText
        /// By version number, part by part.
        case versionNumber
        /// As the layout's reader lists them (a Liquibase folder's changesets, by file
        /// and place in it; yoyo's migrations, by their dependencies), which
        /// `MigrationFolderReading` keeps; compared here by
        /// identifier only where something needs a total order.
        case asRead
    }

    private let rule: Rule

    /// MigrationKit's own layout (`NAME.sql` with sections, or `.up.sql`/`.down.sql`
    /// pairs): byte-wise.
    static let byteWise = MigrationFileOrder(rule: .identifier)

    private init(rule: Rule) {
        self.rule = rule
    }

    /// The order `layout`'s files apply in.
    package static func of(_ layout: MigrationFolderLayout) -> MigrationFileOrder {
        switch layout {
        case .migrationKit, .prisma, .atlas: return .byteWise
        case .diesel: return MigrationFileOrder(rule: .versionText)
        case .liquibase, .yoyo: return MigrationFileOrder(rule: .asRead)
        default: return MigrationFileOrder(rule: .versionNumber)
        }
    }

    /// Whether this order compares names as text, so that numbers of different widths
    /// can apply out of their numbered order (`misnumbered(_:)`).
    var comparesText: Bool { rule == .identifier || rule == .versionText }

    /// A migration as the order sees it: its identifier and its version.
    package struct Key: Hashable, Sendable {
        package let identifier: String
        package let version: MigrationVersion?

        init(identifier: String, version: MigrationVersion?) {
            self.identifier = identifier
            self.version = version
        }

        /// What a text order compares: the identifier, or diesel's version.
        fileprivate func text(_ rule: Rule) -> String {
            rule == .versionText ? version?.text ?? identifier : identifier
        }
    }

    /// Whether the migration `lhs` applies before `rhs` (identifiers, in a layout that
    /// orders by them).
    package func precedes(_ lhs: String, _ rhs: String) -> Bool {
        MigrationIdentifierOrder.precedes(lhs, rhs)
    }

    /// Whether the migration `lhs` applies before `rhs`. Two of one place (one version)
    /// go by identifier, so that the order is total.
    package func precedes(_ lhs: Key, _ rhs: Key) -> Bool {
        switch rule {
        case .identifier, .asRead:
            return MigrationIdentifierOrder.precedes(lhs.identifier, rhs.identifier)
        case .versionText:
            let left = lhs.text(rule), right = rhs.text(rule)
            return left == right ? MigrationIdentifierOrder.precedes(lhs.identifier, rhs.identifier)
                : MigrationIdentifierOrder.precedes(left, right)
        case .versionNumber:
            // A name without a number (sql-migrate's `init.sql`) after every numbered one.
            if (lhs.version == nil) != (rhs.version == nil) { return lhs.version != nil }
            let compared = Self.compare(lhs.version?.parts ?? [], rhs.version?.parts ?? [])
            return compared == 0 ? MigrationIdentifierOrder.precedes(lhs.identifier, rhs.identifier) : compared < 0
        }
    }

    /// Whether two migrations take one place in this order, which no folder may hold:
    /// one version (number, or diesel's text) in a layout that orders by it.
    func takeOnePlace(_ lhs: Key, _ rhs: Key) -> Bool {
        switch rule {
        case .identifier, .asRead: return false
        case .versionText: return lhs.version != nil && lhs.version?.text == rhs.version?.text
        case .versionNumber:
            guard let left = lhs.version?.parts, let right = rhs.version?.parts, !left.isEmpty, !right.isEmpty else { return false }
            return Self.compare(left, right) == 0
        }
    }

    /// Two numbers' parts compared as numbers, part by part, a missing part as zero:
    /// negative, zero or positive.
    private static func compare(_ lhs: [String], _ rhs: [String]) -> Int {
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : "0", right = index < rhs.count ? rhs[index] : "0"
            if left == right { continue }
            return isLarger(Substring(left), than: Substring(right)) ? 1 : -1
        }
        return 0
    }

    /// Two identifiers this order applies one way while their numbers say the other.
    package struct Misnumbered: Hashable, Sendable {
        /// The one that applies first, though its number is the larger.
        let first: String
        /// The one that applies after it, though its number is the smaller.
        let second: String
    }

    /// The first two of `identifiers` (in the order they apply) that this order applies
    /// in another order than their numbers say, or nil. An identifier's number is its
    /// leading digits after any ASCII letters (`V10__x` → `V` 10, `10_x` → 10,
    /// `20240101_x`); only identifiers with the same letters before their number are
    /// compared, and equal numbers say nothing (`1_a`, `01_b`).
    package func misnumbered(_ identifiers: [String]) -> Misnumbered? {
        misnumbered(identifiers.map { Key(identifier: $0, version: nil) })
    }

    /// The same for migrations with their versions. Nil for an order by version number,
    /// which has nothing of the kind, and for diesel's order by version as text: that is
    /// diesel's own rule, which every database diesel migrated ran its folder in
    /// (vaultwarden's `2024-03-13_170000_x`, version `20240313`, after
    /// `2024-03-06-170000_y`, `20240306170000`), so it is the order, not a mistake.
    package func misnumbered(_ keys: [Key]) -> Misnumbered? {
        guard rule == .identifier else { return nil }
        // For each letter prefix, the migration with the largest number applied so far.
        var largest: [Substring: (identifier: String, digits: Substring)] = [:]
        for key in keys.sorted(by: precedes) {
            let text = key.text(rule)
            guard let number = Self.number(of: text) else { continue }
            if let before = largest[number.prefix], Self.isLarger(before.digits, than: number.digits) {
                return Misnumbered(first: before.identifier, second: key.identifier)
            }
            largest[number.prefix] = (key.identifier, number.digits)
        }
        return nil
    }

    /// The identifier's leading ASCII letters and the digits right after them, or nil
    /// when no digit follows them.
    static func number(of identifier: String) -> (prefix: Substring, digits: Substring)? {
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
    static func padded(_ identifier: String, toTheWidthOf other: String) -> String {
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

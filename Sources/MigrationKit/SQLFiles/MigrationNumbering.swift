/// Names the next migration file of a folder the way the folder already numbers its
/// files, so that the new identifier sorts after every existing one.
///
/// Migrations apply in the folder's order (`MigrationFileOrder`). In a layout that
/// orders by name (MigrationKit's own) the number alone is not enough: after `9999_x`,
/// `10000_y` sorts first; after `9_x`, `10_y` does; in a folder holding `1_a` and
/// `10_b`, `10_b` already sorts before `1_a`, and loading the folder refuses it. A new
/// file that sorts before an applied one is refused by every existing database and runs
/// first on every fresh one. So the numbering follows the folder's own style, and when
/// that style cannot give a name that sorts last, it refuses and says why. A layout that
/// orders by version number takes the next number whatever its width.
package enum MigrationNumbering {
    /// How a folder numbers its files, read from the identifiers' leading digits.
    enum Style: Equatable, Sendable {
        /// No numbered file yet: `0001_…`.
        case empty
        /// Timestamps, as dbmate, sqlx, goose and Rails write them: `YYYYMMDDHHMMSS_…`.
        case timestamp
        /// Every number has this many digits, zero-padded: `0001_…`, `000042_…`.
        case padded(width: Int)
        /// Numbers without padding, as golang-migrate writes them: `1_…`, `2_…`, `10_…`.
        case unpadded
    }

    /// The width of a timestamp prefix (`20261122093000`).
    static let timestampWidth = 14

    static func style(of identifiers: [String]) -> Style {
        let prefixes = identifiers.map(numberPrefix).filter { !$0.isEmpty }
        guard let widest = prefixes.map(\.count).max() else { return .empty }
        if prefixes.allSatisfy({ $0.count == timestampWidth && ($0.hasPrefix("19") || $0.hasPrefix("20")) }) {
            return .timestamp
        }
        // One width with more than one digit (or a leading zero) is padding; a single
        // digit, or several widths, is golang-migrate's plain counting.
        if Set(prefixes.map(\.count)).count == 1, widest > 1 || prefixes.contains(where: { $0.hasPrefix("0") }) {
            return .padded(width: widest)
        }
        return .unpadded
    }

    /// The identifier for a new migration named `slug`, after `existing`.
    ///
    /// - Parameters:
    ///   - now: the current UTC time as `YYYYMMDDHHMMSS`, for timestamp folders.
    ///   - order: the folder's order; one by version number has no width to keep.
    ///   - folder: the migrations folder, which a refusal names.
    /// - Throws: `SQLMigrationFileError` (`.noNextName`) when no name can be given.
    package static func next(after existing: [String], slug: String, now: String, order: MigrationFileOrder = .byteWise,
                             in folder: String) throws -> String {
        let style = style(of: existing)
        let numbers = existing.map(numberPrefix).filter { !$0.isEmpty }
        let highest = try numbers.map { text -> UInt64 in
            guard let value = UInt64(text) else {
                throw refusal(in: folder, "A migration's number (\(text)) is too large to count on from; name the new file by hand so that it sorts after every other.")
            }
            return value
        }.max() ?? 0
        let (following, overflow) = highest.addingReportingOverflow(1)
        guard !overflow else {
            throw refusal(in: folder, "A migration's number is too large to count on from; name the new file by hand so that it sorts after every other.")
        }
        let number: String
        switch style {
        case .empty:
            number = "0001"
        case .timestamp:
            number = now > String(highest) ? now : String(following)
        case .padded(let width):
            let digits = String(following)
            guard digits.count <= width || !order.comparesText else {
                throw refusal(in: folder, "The folder numbers its migrations with \(width) digits, and the next number, \(digits), has more, so it would sort before the others (migrations apply in byte-wise order of their names); rename the files with more digits, or name the new file by hand so that it sorts after every other.")
            }
            number = String(repeating: "0", count: max(0, width - digits.count)) + digits
        case .unpadded:
            number = String(following)
        }
        let identifier = number + "_" + slug
        guard order.comparesText else { return identifier }
        if let misnumbered = order.misnumbered(existing) {
            throw refusal(in: folder, "\"\(misnumbered.first)\" sorts before \"\(misnumbered.second)\" though its number is larger (migrations apply in byte-wise order of their names), so the folder is refused until its numbers have one width; rename \"\(misnumbered.second)\" to \"\(MigrationFileOrder.padded(misnumbered.second, toTheWidthOf: misnumbered.first))\", and the others alike, then add the new file.")
        }
        if let last = existing.max(by: order.precedes), !order.precedes(last, identifier) {
            throw refusal(in: folder, "The next number, \(number), would sort before \(last) (migrations apply in byte-wise order of their names, where \(number)_ comes before it), so new and existing databases would run it out of order; rename the files with zero-padded numbers (0001_…), or name the new file by hand so that it sorts after every other.")
        }
        return identifier
    }

    /// The identifier for a new Flyway migration named `slug`: the highest version of
    /// `existing` (Flyway's `V` files' identifiers) with its last part one larger, its
    /// separators and zero-padding as written (`V1_2_09__x` gives `V1_2_10__slug`);
    /// `V1__slug` in a folder without one.
    /// - Throws: `SQLMigrationFileError` (`.noNextName`, naming `folder`) when no name can be given.
    package static func nextFlyway(after existing: [String], slug: String, in folder: String) throws -> String {
        let order = MigrationFileOrder.of(.flyway)
        let highest = existing.compactMap { MigrationFileName($0 + ".sql", isFolder: false, layout: .flyway) }
            .filter { $0.role == .up }.map(\.key).max { order.precedes($0, $1) }
        guard let highest else { return "V1__" + slug }
        // As written: between the V and the first `__`.
        let characters = Array(highest.identifier.dropFirst())
        let end = characters.indices.first { $0 + 1 < characters.count && characters[$0] == "_" && characters[$0 + 1] == "_" } ?? characters.count
        let versionText = String(characters[..<end])
        let lastDigits = versionText.reversed().prefix { $0.isASCII && $0.isNumber }
        let head = versionText.dropLast(lastDigits.count)
        guard let value = UInt64(String(lastDigits.reversed())) else {
            throw refusal(in: folder, "The highest version, \(versionText), is too large to count on from; name the new file by hand (V<version>__\(slug).sql) with a larger version.")
        }
        let next = String(value + 1)
        let padded = String(repeating: "0", count: max(0, lastDigits.count - next.count)) + next
        return "V" + head + padded + "__" + slug
    }

    /// A diesel folder's next name: the time as diesel's `migration generate` writes it
    /// (`2026-11-28-093000_slug`), whose version (the digits) must sort after every other
    /// version, as diesel compares them.
    /// - Throws: `SQLMigrationFileError` (`.noNextName`, naming `folder`) when no name can be given.
    package static func nextDiesel(after existing: [String], slug: String, now: String, in folder: String) throws -> String {
        let stamp = Array(now)
        let dashed = String(stamp[0..<4]) + "-" + String(stamp[4..<6]) + "-" + String(stamp[6..<8]) + "-" + String(stamp[8...])
        let identifier = dashed + "_" + slug
        let order = MigrationFileOrder.of(.diesel)
        let version = { (name: String) in MigrationVersion(text: String(name.prefix { $0 != "_" }.filter { $0 != "-" })) }
        let key = MigrationFileOrder.Key(identifier: identifier, version: version(identifier))
        if let last = existing.map({ MigrationFileOrder.Key(identifier: $0, version: version($0)) }).max(by: order.precedes),
           !order.precedes(last, key) {
            throw refusal(in: folder, "The next version, \(now), would not sort after \(last.identifier)'s (diesel applies migrations in byte-wise order of their versions), so databases would run it out of order; name the new folder by hand so that its version sorts after every other.")
        }
        return identifier
    }

    /// Why no name can be given in `folder`: a problem of the folder, worded in `sentence`.
    private static func refusal(in folder: String, _ sentence: String) -> SQLMigrationFileError {
        SQLMigrationFileError(code: .noNextName, path: folder, message: sentence)
    }

    /// The next of a SQLDelight folder's files (`names`, as listed), without `.sqm`: the
    /// largest version a `.sqm` file's name gives, plus one (`1` in a folder with none).
    package static func nextSQLDelight(after names: [String], in folder: String) throws -> String {
        let versions = names.filter { $0.hasSuffix(".sqm") }.compactMap { Int64(MigrationFileName.sqlDelightVersion(of: $0)) }
        let (following, overflow) = (versions.max() ?? 0).addingReportingOverflow(1)
        guard !overflow else {
            throw refusal(in: folder, "A migration's number is too large to count on from; name the new file by hand so that it sorts after every other.")
        }
        return String(following)
    }

    /// The leading ASCII digits of an identifier.
    static func numberPrefix(_ identifier: String) -> String {
        String(identifier.prefix { $0.isASCII && $0.isNumber })
    }

    /// Lowercase letters, digits and single underscores: safe in every shell and file system.
    package static func slug(_ name: String) -> String {
        var result = ""
        for scalar in name.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty && !result.hasSuffix("_") {
                result.append("_")
            }
        }
        while result.hasSuffix("_") { result.removeLast() }
        return result
    }
}

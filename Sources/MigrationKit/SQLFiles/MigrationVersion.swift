/// A migration's version, as its layout reads it from the file's (or folder's) name:
/// what the tool that wrote the folder records in its own ledger, and what a numbered
/// layout orders by (`MigrationFileOrder`).
///
/// | layout | name | `text` | `parts` |
/// |---|---|---|---|
/// | migrationkit (dbmate) | `20240101120000_x.sql` | `20240101120000` | `["20240101120000"]` |
/// | sqlx, golang-migrate, goose | `0010_x.up.sql` | `0010` | `["10"]` |
/// | Flyway | `V1_2_010__x.sql` | `1.2.010` | `["1", "2", "10"]` |
/// | diesel | `2024-06-05-131359_x/` | `20240605131359` | `["20240605131359"]` |
///
/// golang-migrate, sqlx and goose record the number (`parts[0]` as an integer); dbmate,
/// diesel and Flyway record `text` (Flyway with its parts separated by dots).
public struct MigrationVersion: Hashable, Sendable, CustomStringConvertible {
    /// The version as the name writes it, with Flyway's `_` separators written as dots
    /// and diesel's dashes left out, as those tools record it.
    package let text: String
    /// Its numbers, without leading zeros (`"0"` for zero), one per part: several only
    /// for Flyway, whose trailing zero parts are left out (`1.0` is `1`); empty when the
    /// version holds something other than digits (a diesel folder named `x_y`).
    package let parts: [String]

    /// A version whose text is `text` and whose numbers are `text`'s parts separated by
    /// `separators`.
    package init(text: String, separators: Set<Character> = []) {
        self.text = text
        let pieces = text.split(omittingEmptySubsequences: false) { separators.contains($0) }
        guard !pieces.isEmpty, pieces.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) else {
            parts = []
            return
        }
        var numbers = pieces.map { piece -> String in
            let trimmed = piece.drop { $0 == "0" }
            return trimmed.isEmpty ? "0" : String(trimmed)
        }
        while numbers.count > 1, numbers.last == "0" { numbers.removeLast() }
        parts = numbers
    }

    /// The digits `name` starts with, as the version of MigrationKit's own (dbmate's)
    /// layout, sqlx's, golang-migrate's and goose's read it; nil when it starts with none.
    package init?(leadingDigitsOf name: String) {
        let digits = name.utf8.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard !digits.isEmpty else { return nil }
        self.init(text: String(decoding: digits, as: UTF8.self))
    }

    public var description: String { text }
}

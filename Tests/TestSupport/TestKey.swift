import Foundation
import Testing

/// A database key as a test writes it in a key file, `--password` or
/// `MIGRATIONKIT_PASSWORD`, and gives the `sqlcipher` shell.
///
/// Raw keys (`x'<64 hex digits>'`) by default: SQLCipher 4 derives a passphrase with
/// 256,000 PBKDF2-HMAC-SHA512 iterations at every open, the tool's and the shell's
/// alike, which a suite of a thousand opens would pay a thousand times. A test about key
/// derivation (a source's text, KDF settings, SQLCipher 3's format) uses a passphrase,
/// tagged `.passphrase`.
public struct TestKey: Sendable, Equatable, CustomStringConvertible {
    /// The key's text, as a key file holds it (without the newline).
    public let text: String

    public init(text: String) {
        self.text = text
    }

    /// A new random raw key: 32 bytes, as `x'…'`.
    public static func raw() -> TestKey {
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        return TestKey(text: "x'\(hex)'")
    }

    /// A passphrase, derived by SQLCipher's KDF at every open.
    public static func passphrase(_ text: String) -> TestKey {
        TestKey(text: text)
    }

    /// A new random passphrase.
    public static func randomPassphrase() -> TestKey {
        .passphrase("test passphrase \(UUID().uuidString.prefix(8))")
    }

    /// Whether it is a raw key (`x'…'`), which SQLCipher uses without derivation.
    public var isRaw: Bool { text.hasPrefix("x'") && text.hasSuffix("'") }

    /// What follows `PRAGMA key =`: a raw key in double quotes (SQLCipher's form for
    /// one), a passphrase as a string literal.
    public var pragma: String {
        isRaw ? "\"\(text)\"" : "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// What must never appear in any output: the passphrase, or a raw key's hex digits
    /// (with or without their `x'…'`).
    public var secret: String {
        isRaw ? String(text.dropFirst(2).dropLast()) : text
    }

    public var description: String { text }
}

extension Tag {
    /// A test whose key is a passphrase, derived at every open, because derivation is
    /// its subject: a key source's text, KDF settings, SQLCipher 3's format. Every
    /// other test keys its databases with raw keys (`TestKey`).
    @Tag public static var passphrase: Self
}

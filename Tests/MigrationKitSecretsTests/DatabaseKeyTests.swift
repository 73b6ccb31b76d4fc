import Foundation
@testable import MigrationKitSecrets
import Testing

/// The key type on its own, with no database: its text form, what it prints, and
/// which keys SQLCipher could not use.
@Suite struct DatabaseKeyTests {
    private func text(_ key: DatabaseKey) -> String {
        key.withKeyText { String(decoding: $0, as: UTF8.self) }
    }

    @Test func keyTextOfExactly64HexDigitsIsARawKeyAndAnythingElseAPassphrase() {
        let hex = String(repeating: "0f", count: 32)
        let raw = DatabaseKey(keyText: SecretBytes(copying: Array("x'\(hex.uppercased())'".utf8)))
        #expect(raw.kind == .rawKey)
        #expect(text(raw) == "x'\(hex)'")  // lower case, as SQLCipher's shell writes it
        #expect(raw.isSameKey(as: .rawKey(Array(repeating: 0x0f, count: 32))))
        for almost in ["x'\(hex.dropLast())'", "x'\(hex)0'", "x\"\(hex)\"", "x'\(hex.dropLast())g'"] {
            let key = DatabaseKey(keyText: SecretBytes(copying: Array(almost.utf8)))
            #expect(key.kind == .passphrase, "\(almost)")
            #expect(text(key) == almost)
        }
    }

    /// SQLCipher's three raw-key literals (64, 96 and 160 hex digits: the key; with its
    /// salt; with its HMAC key and salt) are raw keys, each read back in its own form;
    /// other lengths, 128 digits among them, are passphrases.
    @Test func eachOfSQLCiphersRawKeyFormsIsARawKey() {
        for form in DatabaseKey.RawKeyForm.allCases {
            let bytes = (0..<form.byteCount).map { UInt8($0 % 251) }
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            let key = DatabaseKey(keyText: SecretBytes(copying: Array("x'\(hex)'".utf8)))
            #expect(key.kind == .rawKey && key.rawKeyForm == form, "\(form)")
            #expect(key.isSameKey(as: .rawKey(bytes)) && text(key) == "x'\(hex)'", "\(form)")
            #expect(DatabaseKey.rawKey(bytes).unusableReason == nil)
        }
        #expect(DatabaseKey.RawKeyForm.allCases.map(\.hexDigits) == [64, 96, 160])
        let between = DatabaseKey(keyText: SecretBytes(copying: Array("x'\(String(repeating: "ab", count: 64))'".utf8)))
        #expect(between.kind == .passphrase && between.rawKeyForm == nil)
        #expect(DatabaseKey.passphrase("x").rawKeyForm == nil)
    }

    @Test func descriptionsNeverHoldTheKey() {
        let key = DatabaseKey.passphrase("correct horse battery staple")
        for printed in [key.description, key.debugDescription, String(reflecting: key), "\(Mirror(reflecting: key).children.map(\.value))"] {
            #expect(!printed.contains("horse"), "\(printed)")
        }
        #expect(key.description == "DatabaseKey(passphrase, redacted)")
        #expect(!SecretBytes(copying: Array("horse".utf8)).description.contains("horse"))
    }

    @Test func unusableKeysSayWhy() {
        #expect(DatabaseKey.passphrase("").unusableReason?.contains("empty") == true)
        #expect(DatabaseKey.rawKey([1, 2, 3]).unusableReason == "A raw key must be exactly 32 bytes (or 48 with its salt, or 80 with its HMAC key and salt), not 3.")
        #expect(DatabaseKey.passphrase("x").unusableReason == nil)
        #expect(DatabaseKey.rawKey(Array(repeating: 1, count: 32)).unusableReason == nil)
    }
}

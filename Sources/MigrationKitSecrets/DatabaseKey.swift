/// The key of an encrypted database: a passphrase (stretched by SQLCipher's PBKDF2) or
/// a raw 32-byte key (used as is, no key derivation).
///
/// In a module of its own, with no C library: the key sources (`MigrationKitKeys`)
/// produce keys without linking SQLCipher, and `MigrationKitSQLCipher` re-exports it.
///
/// A struct with factory methods rather than an enum with `String`/`[UInt8]` payloads,
/// because those payloads cannot be wiped: the material lives in `SecretBytes` and is
/// zeroed when the last copy of the key is released. `description`, `debugDescription`
/// and `dump()` print only the kind.
public struct DatabaseKey: Sendable {
    /// How SQLCipher uses the key's bytes: the only thing about a key that may be shown.
    public enum Kind: String, Sendable, Hashable {
        /// Text that SQLCipher stretches into the database key with PBKDF2.
        case passphrase
        /// The 32-byte AES key itself, used as is: no key derivation.
        case rawKey
    }

    /// The byte length of a raw key (AES-256).
    public static let rawKeyLength = 32
    /// The byte length of a raw key followed by the database's 16-byte salt, SQLCipher's
    /// `x'<96 hex digits>'` form: also used as is, with no key derivation.
    public static let rawKeyWithSaltLength = rawKeyLength + 16

    /// Whether this is a passphrase or a raw key.
    public let kind: Kind
    /// For a passphrase, its bytes; for a raw key, the 32 key bytes.
    let material: SecretBytes

    /// Whether the key's bytes are locked in RAM, out of swap (see `SecretBytes`).
    public var isLockedInMemory: Bool { material.isLockedInMemory }

    private init(kind: Kind, material: SecretBytes) {
        self.kind = kind
        self.material = material
    }

    /// A passphrase. The caller's `String` cannot be wiped; prefer
    /// `passphrase(bytes:)` when the secret comes from a file or a prompt.
    public static func passphrase(_ passphrase: String) -> DatabaseKey {
        DatabaseKey(kind: .passphrase, material: SecretBytes(copying: passphrase.utf8))
    }

    /// A passphrase held in wiped storage.
    public static func passphrase(bytes: SecretBytes) -> DatabaseKey {
        DatabaseKey(kind: .passphrase, material: bytes)
    }

    /// A raw key of exactly 32 bytes. The length is checked by `validate()`, which
    /// `SQLCipherWriter` calls before it touches the file.
    public static func rawKey(_ bytes: [UInt8]) -> DatabaseKey {
        DatabaseKey(kind: .rawKey, material: SecretBytes(copying: bytes))
    }

    /// A raw key held in wiped storage.
    public static func rawKey(bytes: SecretBytes) -> DatabaseKey {
        DatabaseKey(kind: .rawKey, material: bytes)
    }

    /// Why SQLCipher could not use this key, or nil: an empty passphrase (SQLCipher would
    /// take it for "no encryption" and write a plaintext file), or a raw key of the
    /// wrong length. Package-wide: each module throws its own error with it
    /// (`DatabaseKey.validate()`, the key store's `store`).
    package var unusableReason: String? {
        switch kind {
        case .passphrase where material.isEmpty:
            return "The passphrase is empty; an empty key would leave the database unencrypted."
        case .rawKey where material.count != Self.rawKeyLength && material.count != Self.rawKeyWithSaltLength:
            return "A raw key must be exactly \(Self.rawKeyLength) bytes (or \(Self.rawKeyWithSaltLength) with its salt), not \(material.count)."
        default:
            return nil
        }
    }

    /// Whether two keys hold the same kind and bytes (constant-time in the content).
    public func isSameKey(as other: DatabaseKey) -> Bool {
        kind == other.kind && material.isEqual(to: other.material)
    }

    /// Parses a key's text form: exactly `x'<64 hex digits>'` is a raw key (the form
    /// SQLCipher's `PRAGMA key` and the `sqlcipher` shell use), and `x'<96 hex digits>'`
    /// a raw key with the database's salt; anything else is a passphrase, byte for byte.
    /// Key files and Secret Service items hold this form.
    public init(keyText: SecretBytes) {
        if let raw = Self.parseRawKeyText(keyText) {
            self = .rawKey(bytes: raw)
        } else {
            self = .passphrase(bytes: keyText)
        }
    }

    private static func parseRawKeyText(_ text: SecretBytes) -> SecretBytes? {
        guard let length = [rawKeyLength, rawKeyWithSaltLength].first(where: { text.count == $0 * 2 + 3 }) else { return nil }
        let hexLength = length * 2
        return text.withUnsafeBytes { bytes -> SecretBytes? in
            guard bytes[0] == UInt8(ascii: "x") || bytes[0] == UInt8(ascii: "X"),
                  bytes[1] == UInt8(ascii: "'"), bytes[hexLength + 2] == UInt8(ascii: "'")
            else { return nil }
            func nibble(_ byte: UInt8) -> UInt8? {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
                default: return nil
                }
            }
            for index in 2..<(hexLength + 2) where nibble(bytes[index]) == nil { return nil }
            return SecretBytes(count: length) { out in
                for index in 0..<length {
                    out[index] = nibble(bytes[2 + index * 2])! << 4 | nibble(bytes[3 + index * 2])!
                }
            }
        }
    }

    /// Lends the key's text form for the duration of `body`: the passphrase itself, or
    /// for a raw key `x'<64 hex digits>'`. This is what `sqlite3_key` takes, and what
    /// a key file or a Secret Service item stores; `init(keyText:)` reads it back.
    public func withKeyText<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withKeyingMaterial(body)
    }

    /// The bytes to hand to `sqlite3_key`/`sqlite3_rekey`, lent for the duration of
    /// `body`: the passphrase itself, or for a raw key the text `x'<64 hex digits>'`,
    /// which SQLCipher recognises as a raw key. The hex text lives in wiped storage too.
    func withKeyingMaterial<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch kind {
        case .passphrase:
            return try material.withUnsafeBytes(body)
        case .rawKey:
            let text = material.withUnsafeBytes { raw in
                SecretBytes(count: raw.count * 2 + 3) { out in
                    let digits: [UInt8] = Array("0123456789abcdef".utf8)
                    out[0] = UInt8(ascii: "x")
                    out[1] = UInt8(ascii: "'")
                    for (index, byte) in raw.enumerated() {
                        out[2 + index * 2] = digits[Int(byte >> 4)]
                        out[3 + index * 2] = digits[Int(byte & 0x0f)]
                    }
                    out[out.count - 1] = UInt8(ascii: "'")
                }
            }
            return try text.withUnsafeBytes(body)
        }
    }
}

extension DatabaseKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "DatabaseKey(\(kind.rawValue), redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["kind": kind]) }
}

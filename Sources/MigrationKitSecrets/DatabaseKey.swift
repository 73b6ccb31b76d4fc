/// The key of an encrypted database: a passphrase (stretched by SQLCipher's PBKDF2) or
/// a raw key (used as is, no key derivation) in one of SQLCipher's raw-key forms
/// (`RawKeyForm`).
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
        /// The 32-byte AES key itself, used as is: no key derivation; alone or with the
        /// database's salt and HMAC key (`RawKeyForm`).
        case rawKey
    }

    /// SQLCipher's raw-key literals, `x'<hex digits>'`, by what their bytes hold. SQLCipher
    /// reads a literal of another length as a passphrase; so did every version before
    /// 4.7.0 the third form, which the linked library's version decides on
    /// (`SQLCipherFeature.neededForRawKey(hexDigits:)`).
    package enum RawKeyForm: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// `x'<64 hex digits>'`: the 32-byte encryption key; SQLCipher derives the HMAC
        /// key from it.
        case key
        /// `x'<96 hex digits>'`: the key followed by the database's 16-byte salt.
        case keyAndSalt
        /// `x'<160 hex digits>'`: the key, then the 32-byte HMAC key, then the salt
        /// (SQLCipher 4.7.0 and later).
        case keyHMACKeyAndSalt

        /// The form whose bytes number `byteCount`, if any.
        package init?(byteCount: Int) {
            guard let form = Self.allCases.first(where: { $0.byteCount == byteCount }) else { return nil }
            self = form
        }

        /// How many bytes the literal's hex digits stand for: 32, 48 or 80.
        var byteCount: Int {
            switch self {
            case .key: return DatabaseKey.rawKeyLength
            case .keyAndSalt: return DatabaseKey.rawKeyWithSaltLength
            case .keyHMACKeyAndSalt: return DatabaseKey.rawKeyWithHMACKeyAndSaltLength
            }
        }

        /// How many hex digits stand between `x'` and `'`: 64, 96 or 160.
        package var hexDigits: Int { byteCount * 2 }

        /// What the bytes hold, as sentences say it: "raw key", "raw key and salt",
        /// "raw key, HMAC key and salt".
        package var description: String {
            switch self {
            case .key: return "raw key"
            case .keyAndSalt: return "raw key and salt"
            case .keyHMACKeyAndSalt: return "raw key, HMAC key and salt"
            }
        }
    }

    /// The byte length of a raw key (AES-256).
    package static let rawKeyLength = 32
    /// The byte length of a raw key followed by the database's 16-byte salt, SQLCipher's
    /// `x'<96 hex digits>'` form: also used as is, with no key derivation.
    static let rawKeyWithSaltLength = rawKeyLength + 16
    /// The byte length of a raw key followed by its 32-byte HMAC key and the database's
    /// salt, SQLCipher's `x'<160 hex digits>'` form (4.7.0 and later): the HMAC key is
    /// then not derived from the key either.
    static let rawKeyWithHMACKeyAndSaltLength = rawKeyLength * 2 + 16

    /// Whether this is a passphrase or a raw key.
    public let kind: Kind
    /// For a passphrase, its bytes; for a raw key, the bytes of its form (`rawKeyForm`).
    let material: SecretBytes

    /// Which of SQLCipher's raw-key forms the key is in; nil for a passphrase.
    package var rawKeyForm: RawKeyForm? {
        kind == .rawKey ? RawKeyForm(byteCount: material.count) : nil
    }

    /// Whether the key's bytes are locked in RAM, out of swap (see `SecretBytes`).
    package var isLockedInMemory: Bool { material.isLockedInMemory }

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

    /// A raw key: 32 bytes, or the bytes of another `RawKeyForm`. The length is checked
    /// by `validate()`, which `SQLCipherWriter` calls before it touches the file.
    public static func rawKey(_ bytes: [UInt8]) -> DatabaseKey {
        DatabaseKey(kind: .rawKey, material: SecretBytes(copying: bytes))
    }

    /// A raw key held in wiped storage.
    public static func rawKey(bytes: SecretBytes) -> DatabaseKey {
        DatabaseKey(kind: .rawKey, material: bytes)
    }

    /// Why SQLCipher could not use this key, or nil: an empty passphrase (SQLCipher would
    /// take it for "no encryption" and write a plaintext file), or a raw key of no
    /// `RawKeyForm`'s length. Package-wide: each module throws its own error with it
    /// (`DatabaseKey.validate()`, the key store's `store`).
    package var unusableReason: String? {
        switch kind {
        case .passphrase where material.isEmpty:
            return "The passphrase is empty; an empty key would leave the database unencrypted."
        case .rawKey where rawKeyForm == nil:
            return "A raw key must be exactly \(Self.rawKeyLength) bytes (or \(Self.rawKeyWithSaltLength) with its salt, or \(Self.rawKeyWithHMACKeyAndSaltLength) with its HMAC key and salt), not \(material.count)."
        default:
            return nil
        }
    }

    /// Whether two keys hold the same kind and bytes (constant-time in the content).
    package func isSameKey(as other: DatabaseKey) -> Bool {
        kind == other.kind && material.isEqual(to: other.material)
    }

    /// Parses a key's text form: exactly `x'<64 hex digits>'` is a raw key (the form
    /// SQLCipher's `PRAGMA key` and the `sqlcipher` shell use), `x'<96 hex digits>'` a raw
    /// key with the database's salt, and `x'<160 hex digits>'` one with its HMAC key and
    /// salt (`RawKeyForm`); anything else is a passphrase, byte for byte. Key files and
    /// Secret Service items hold this form. Whether the linked SQLCipher reads the third
    /// form as a raw key is its connection's to check (`validate()`): it is never handed
    /// to one that would take it for a passphrase.
    public init(keyText: SecretBytes) {
        if let raw = Self.parseRawKeyText(keyText) {
            self = .rawKey(bytes: raw)
        } else {
            self = .passphrase(bytes: keyText)
        }
    }

    private static func parseRawKeyText(_ text: SecretBytes) -> SecretBytes? {
        guard let length = RawKeyForm.allCases.first(where: { text.count == $0.hexDigits + 3 })?.byteCount else { return nil }
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
    /// for a raw key `x'<hex digits>'` of its form. This is what `sqlite3_key` takes, and what
    /// a key file or a Secret Service item stores; `init(keyText:)` reads it back.
    package func withKeyText<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withKeyingMaterial(body)
    }

    /// The bytes to hand to `sqlite3_key`/`sqlite3_rekey`, lent for the duration of
    /// `body`: the passphrase itself, or for a raw key the text `x'<hex digits>'` of its
    /// form, which SQLCipher recognises as a raw key. The hex text lives in wiped storage too.
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

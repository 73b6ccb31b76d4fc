/// How a migration file's up SQL becomes its checksum, for every database layer: the
/// SHA-256 (`Digest`, OpenSSL's) of what runs, as lowercase hex.
///
/// What runs is the up section's tokens (`canonicalBytes(of:)`): every keyword, name,
/// literal, operator and parenthesis exactly as written, in order. Whitespace and
/// comments (between statements, after the last one, inside one), empty statements,
/// the last statement's `;`, line endings (a checkout that turned the files to CRLF)
/// and the down section do not count: adding a down section, a blank line or a comment
/// to an applied migration edits nothing, while changing a name, a value or a
/// keyword's case does.
package enum MigrationChecksum {
    /// The bytes a file's checksum is made of: the up SQL's tokens, trivia left out,
    /// each followed by a NUL byte (which no migration file holds, so two token lists
    /// never give the same bytes). A `;` that ends nothing (at the start, after another
    /// one, at the end) is left out too.
    static func canonicalBytes(of sql: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sql.utf8.count)
        var pendingSemicolon = false
        var hasToken = false
        SQLTokenizer.forEachCodeToken(in: sql) { kind, text in
            if kind == .punctuation, text.count == 1, text.first == UInt8(ascii: ";") {
                pendingSemicolon = hasToken
                return
            }
            if pendingSemicolon {
                bytes.append(UInt8(ascii: ";"))
                bytes.append(0)
                pendingSemicolon = false
            }
            bytes.append(contentsOf: text)
            bytes.append(0)
            hasToken = true
        }
        return bytes
    }

    /// What earlier versions hashed: the up SQL's bytes as written, with line
    /// endings made `\n`. A database that recorded it reads as unchanged.
    /// (`\r\n` made `\n`, a `\r` that ends the text dropped, the rest of a CRLF a
    /// section's last line was split from; any other `\r` made `\n`.)
    static func normalizedBytes(of sql: String) -> [UInt8] {
        let bytes = Array(sql.utf8)
        guard bytes.contains(UInt8(ascii: "\r")) else { return bytes }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "\r") {
                if index + 1 == bytes.count || bytes[index + 1] == UInt8(ascii: "\n") { continue }
                normalized.append(UInt8(ascii: "\n"))
            } else {
                normalized.append(byte)
            }
        }
        return normalized
    }

    /// What versions that hashed a CRLF file's bytes as they were hashed: nil when the
    /// SQL has no `\r`, so there is no other checksum.
    static func legacyBytes(of sql: String) -> [UInt8]? {
        sql.utf8.contains(UInt8(ascii: "\r")) ? Array(sql.utf8) : nil
    }

    /// The lowercase hex SHA-256 of `bytes`: a migration's checksum, once its bytes are
    /// chosen (`canonicalBytes(of:)`, or an earlier version's).
    package static func sha256Hex(of bytes: [UInt8]) -> String {
        hex(Digest.sha256(bytes))
    }

    /// The lowercase hex SHA-384 of `bytes`: sqlx's checksum of a migration file, which
    /// adopting a database sqlx migrated compares (`OtherToolLedger`).
    package static func sha384Hex(of bytes: [UInt8]) -> String {
        hex(Digest.sha384(bytes))
    }

    /// A digest as lowercase hex, straight into one byte buffer (a `String` per byte,
    /// joined, cost more than the hash itself over a long history).
    /// Inlinable so that it is specialized for the caller's digest type: through the
    /// generic `Sequence` witness, 32 bytes cost more than hashing a small file.
    @inlinable
    package static func hex(_ digest: some Sequence<UInt8>) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(hexDigit(byte >> 4))
            hex.append(hexDigit(byte & 0x0f))
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The lowercase hex digit of a value below 16.
    @inlinable
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

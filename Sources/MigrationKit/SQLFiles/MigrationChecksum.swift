/// How a migration file's up SQL becomes its checksum, for every database layer: the
/// SHA-256 (computed by the layer, which has a hash library; this core has none) of the
/// SQL's UTF-8 bytes with its line endings made `\n`, as lowercase hex. A checkout that
/// turned the files to CRLF (git's autocrlf) edits nothing.
public enum MigrationChecksum {
    /// The bytes to hash: `\r\n` made `\n`, a `\r` that ends the text dropped (the rest of
    /// a CRLF a section's last line was split from), any other `\r` made `\n`.
    public static func normalizedBytes(of sql: String) -> [UInt8] {
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
    public static func legacyBytes(of sql: String) -> [UInt8]? {
        sql.utf8.contains(UInt8(ascii: "\r")) ? Array(sql.utf8) : nil
    }

    /// A digest as lowercase hex, straight into one byte buffer (a `String` per byte,
    /// joined, cost more than the hash itself over a long history).
    public static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}

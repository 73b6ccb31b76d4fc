/// Flyway's checksum of a migration script: the CRC32 (IEEE, as `java.util.zip.CRC32`)
/// of the UTF-8 bytes of its lines, one after another without their line endings (`\n`,
/// `\r\n` or `\r`, as Java's `BufferedReader.readLine` splits them), a byte-order mark at
/// the start of the first line left out, taken as Java's signed `int`. So line endings
/// and blank lines change nothing, any other byte does.
enum FlywayChecksum {
    /// The checksum of a script whose bytes are `bytes`.
    package static func of(_ bytes: [UInt8]) -> Int32 {
        var crc: UInt32 = 0xFFFF_FFFF
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { continue }
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return Int32(bitPattern: crc ^ 0xFFFF_FFFF)
    }

    /// The CRC32 lookup table of the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { value -> UInt32 in
        var entry = UInt32(value)
        for _ in 0..<8 { entry = entry & 1 == 1 ? 0xEDB8_8320 ^ (entry >> 1) : entry >> 1 }
        return entry
    }
}

/// Prisma's checksum of a `migration.sql`: the SHA-256 of its text, as lowercase hex.
/// Prisma takes a file as unchanged when the recorded checksum is that of its text, of
/// its text with CRLF made LF, or with LF made CRLF (a checkout that changed the line
/// endings); a checksum recorded by an early version, whose hex dropped each byte's
/// leading zero, is compared in that form.
enum PrismaChecksum {
    /// Whether `recorded` is Prisma's checksum of a file whose bytes are `bytes`.
    ///
    /// - Parameter sha256Hex: the SHA-256 of some bytes as lowercase hex (a test gives
    ///   one that shows which bytes were compared).
    static func matches(_ bytes: [UInt8], recorded: String, sha256Hex: ([UInt8]) -> String = MigrationChecksum.sha256Hex(of:)) -> Bool {
        let recorded = recorded.lowercased()
        let variants = [bytes, replacing([0x0D, 0x0A], with: [0x0A], in: bytes), replacing([0x0A], with: [0x0D, 0x0A], in: bytes)]
        return variants.contains { variant in
            let hex = sha256Hex(variant)
            return (recorded.count == 64 || recorded.isEmpty ? hex : unpadded(hex)) == recorded
        }
    }

    /// Hex as Prisma's early versions wrote it: each byte without its leading zero.
    private static func unpadded(_ hex: String) -> String {
        let digits = Array(hex)
        return stride(from: 0, to: digits.count - 1, by: 2).map { index in
            digits[index] == "0" ? String(digits[index + 1]) : String(digits[index...index + 1])
        }.joined()
    }

    /// `bytes` with every `pattern` made `replacement`, left to right.
    private static func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 16)
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: pattern) {
                result += replacement
                index += pattern.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}

/// refinery's checksum of a migration: SipHash-1-3 with both keys 0 (what Rust's
/// `DefaultHasher` was when refinery chose it, and what refinery keeps) of the
/// migration's name, its version and its SQL, each hashed as Rust hashes them: a string's
/// UTF-8 bytes then the byte 0xFF, an `i32`'s four bytes little-endian. refinery writes
/// it as a decimal `u64`. So any byte of the file counts, its line endings included.
enum RefineryChecksum {
    /// The checksum of the file `fileName` (`V3__add_cars.sql`, whose name is
    /// `add_cars` and version 3, as refinery reads them) whose bytes are `bytes`; nil
    /// for a name refinery does not read.
    package static func of(fileName: String, bytes: [UInt8]) -> UInt64? {
        let stem = MigrationFileName.strip(fileName, ".sql") ?? fileName
        guard let prefix = stem.first, prefix == "V" || prefix == "U" else { return nil }
        let digits = stem.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard let version = Int32(digits), stem.dropFirst(1 + digits.count).hasPrefix("__") else { return nil }
        let name = stem.dropFirst(3 + digits.count).prefix { $0 == "_" || $0.isLetter || $0.isNumber }
        return of(name: String(name), version: version, sql: bytes)
    }

    /// The checksum of a migration named `name` (the part of its file's name after
    /// `__`) of `version` whose file's bytes are `sql`.
    package static func of(name: String, version: Int32, sql: [UInt8]) -> UInt64 {
        var message = Array(name.utf8)
        message.append(0xFF)
        withUnsafeBytes(of: version.littleEndian) { message += $0 }
        message += sql
        message.append(0xFF)
        return SipHash13.hash(message)
    }
}

/// SipHash-1-3 (one compression round, three finalization rounds) with both 64-bit
/// keys 0, of a message's bytes.
enum SipHash13 {
    static func hash(_ message: [UInt8]) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575, v1: UInt64 = 0x646f_7261_6e64_6f6d
        var v2: UInt64 = 0x6c79_6765_6e65_7261, v3: UInt64 = 0x7465_6462_7974_6573
        func round() {
            v0 &+= v1; v1 = rotate(v1, 13); v1 ^= v0; v0 = rotate(v0, 32)
            v2 &+= v3; v3 = rotate(v3, 16); v3 ^= v2
            v0 &+= v3; v3 = rotate(v3, 21); v3 ^= v0
            v2 &+= v1; v1 = rotate(v1, 17); v1 ^= v2; v2 = rotate(v2, 32)
        }
        func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
            bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        let whole = message.count - message.count % 8
        var index = 0
        while index < whole {
            let m = word(message[index..<index + 8])
            v3 ^= m
            round()
            v0 ^= m
            index += 8
        }
        let last = word(message[whole...]) | UInt64(message.count & 0xFF) << 56
        v3 ^= last
        round()
        v0 ^= last
        v2 ^= 0xFF
        round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        value << bits | value >> (64 - bits)
    }
}

/// SHA-256 (FIPS 180-4), fed in pieces: the digest Atlas's `atlas.sum` chains over a
/// folder's files. Read where the folder is read, before any database layer (whose
/// OpenSSL the runners' checksums use) is there; a checksum of files the team keeps, never
/// a protection of a secret.
struct SHA256Digest {
    private var state: [UInt32] = [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    init() {}

    /// Adds `bytes` to what the digest is of.
    mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        let whole = pending.count - pending.count % 64
        guard whole > 0 else { return }
        pending.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < whole {
                compress(UnsafeBufferPointer(rebasing: buffer[start..<start + 64]))
                start += 64
            }
        }
        pending.removeFirst(whole)
    }

    /// The digest of everything added so far; more may be added afterwards (Atlas's chain
    /// takes the digest after each file and goes on).
    func finalized() -> [UInt8] {
        var copy = self
        var tail = copy.pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bits = length &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: 64) { copy.compress(UnsafeBufferPointer(rebasing: buffer[start..<start + 64])) }
        }
        return copy.state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
    }

    /// The digest of `bytes`.
    package static func of<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalized()
    }

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        var w = [UInt32](repeating: 0, count: 64)
        for index in 0..<16 {
            w[index] = (0..<4).reduce(0) { $0 << 8 | UInt32(block[index * 4 + $1]) }
        }
        for index in 16..<64 {
            let s0 = rotate(w[index - 15], 7) ^ rotate(w[index - 15], 18) ^ (w[index - 15] >> 3)
            let s1 = rotate(w[index - 2], 17) ^ rotate(w[index - 2], 19) ^ (w[index - 2] >> 10)
            w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let t1 = h &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[index] &+ w[index]
            let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
    }

    private func rotate(_ value: UInt32, _ bits: UInt32) -> UInt32 { value >> bits | value << (32 - bits) }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

/// MD5 (RFC 1321): the digest Liquibase's changeset checksums (`DATABASECHANGELOG.MD5SUM`)
/// are made of. A checksum of files the team keeps, compared as Liquibase compares it,
/// never a protection of anything.
enum MD5Digest {
    /// The digest of `bytes`.
    package static func of(_ bytes: [UInt8]) -> [UInt8] {
        var message = bytes
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        let bits = UInt64(bytes.count) &* 8
        for shift in stride(from: 0, through: 56, by: 8) { message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var (a0, b0, c0, d0): (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        for start in stride(from: 0, to: message.count, by: 64) {
            let m = (0..<16).map { index in (0..<4).reduce(UInt32(0)) { $0 | UInt32(message[start + index * 4 + $1]) << UInt32(8 * $1) } }
            var (a, b, c, d) = (a0, b0, c0, d0)
            for index in 0..<64 {
                var f: UInt32, g: Int
                switch index {
                case 0..<16: (f, g) = ((b & c) | (~b & d), index)
                case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * index + 1) % 16)
                case 32..<48: (f, g) = (b ^ c ^ d, (3 * index + 5) % 16)
                default: (f, g) = (c ^ (b | ~d), (7 * index) % 16)
                }
                f = f &+ a &+ k[index] &+ m[g]
                (a, d, c) = (d, c, b)
                b = b &+ (f << s[index] | f >> (32 - s[index]))
            }
            (a0, b0, c0, d0) = (a0 &+ a, b0 &+ b, c0 &+ c, d0 &+ d)
        }
        return [a0, b0, c0, d0].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(8 * $0)) } }
    }

    private static let s: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                      5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                      4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                      6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]

    /// floor(abs(sin(i + 1)) × 2^32), as RFC 1321 tabulates them.
    private static let k: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]
}

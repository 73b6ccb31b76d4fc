import Foundation

/// The known SQLCipher file formats: each major version's defaults. A database in any of
/// them opens without cipher options; anything else is `custom` and needs its settings
/// given. In the core because every layer over SQLCipher names them: the SQLCipher
/// connection, and a GRDB built on SQLCipher (`Configuration.useKey(_:format:)`).
public enum CipherFormat: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// PBKDF2-HMAC-SHA512 × 256,000, 4096-byte pages, HMAC-SHA512.
    case sqlcipher4
    /// PBKDF2-HMAC-SHA1 × 64,000, 1024-byte pages, HMAC-SHA1.
    case sqlcipher3
    /// PBKDF2-HMAC-SHA1 × 4,000, 1024-byte pages, HMAC-SHA1.
    case sqlcipher2
    /// PBKDF2-HMAC-SHA1 × 4,000, 1024-byte pages, no HMAC.
    case sqlcipher1
    /// Settings that match no version's defaults.
    case custom
    /// Not encrypted.
    case plaintext

    /// The major version whose defaults this format is, if any.
    package var version: Int? {
        switch self {
        case .sqlcipher4: return 4
        case .sqlcipher3: return 3
        case .sqlcipher2: return 2
        case .sqlcipher1: return 1
        case .custom, .plaintext: return nil
        }
    }

    /// The format of SQLCipher `version`'s defaults (1 to 4), or nil for any other number.
    package init?(version: Int) {
        switch version {
        case 4: self = .sqlcipher4
        case 3: self = .sqlcipher3
        case 2: self = .sqlcipher2
        case 1: self = .sqlcipher1
        default: return nil
        }
    }

    /// "SQLCipher 3 defaults", "custom settings", "plaintext".
    public var description: String {
        if let version { return "SQLCipher \(version) defaults" }
        return self == .custom ? "custom settings" : "plaintext"
    }

    /// This format's parameters, from the one table of them (`CipherParameters`); nil
    /// for custom settings and plaintext.
    package var parameters: CipherParameters? {
        switch self {
        case .sqlcipher4:
            return CipherParameters(pageSize: 4096, kdfIterations: 256_000, kdfAlgorithm: "PBKDF2_HMAC_SHA512", hmacAlgorithm: "HMAC_SHA512", usesHMAC: true)
        case .sqlcipher3:
            return CipherParameters(pageSize: 1024, kdfIterations: 64_000, kdfAlgorithm: "PBKDF2_HMAC_SHA1", hmacAlgorithm: "HMAC_SHA1", usesHMAC: true)
        case .sqlcipher2:
            return CipherParameters(pageSize: 1024, kdfIterations: 4_000, kdfAlgorithm: "PBKDF2_HMAC_SHA1", hmacAlgorithm: "HMAC_SHA1", usesHMAC: true)
        case .sqlcipher1:
            return CipherParameters(pageSize: 1024, kdfIterations: 4_000, kdfAlgorithm: "PBKDF2_HMAC_SHA1", hmacAlgorithm: "HMAC_SHA1", usesHMAC: false)
        case .custom, .plaintext:
            return nil
        }
    }

    /// Whether this format authenticates each page by its HMAC, so that a wrong key
    /// fails on page 1 before SQLite reads its header. Without, a wrong key decrypts
    /// page 1 into noise SQLite takes for a header, which may tell it to make files
    /// beside the database: so both connections try such a format on a database's own
    /// file only once a connection that makes nothing (`SQLiteFileURI.immutable`) found a
    /// header with the key (a private copy's files go with it). True for plaintext, and
    /// for custom settings, which answer for themselves (`CipherSettings.authenticatesPages`).
    package var authenticatesPages: Bool {
        parameters?.usesHMAC ?? true
    }

    /// The format a database's settings depart from, custom or not: the one whose
    /// algorithms they use. SHA-1 without page HMACs is SQLCipher 1's; SHA-1 with them is
    /// 2's at its 4,000 iterations, 3's otherwise; any other algorithm is only in 4. A
    /// setting that differs from this format's default was chosen by the app, and a
    /// command that moves the file to another format keeps it (`cipher-upgrade`).
    package static func origin(kdfAlgorithm: String?, hmacAlgorithm: String?, usesHMAC: Bool?, kdfIterations: Int?) -> CipherFormat {
        let sha1 = (kdfAlgorithm?.uppercased() ?? "PBKDF2_HMAC_SHA1") == "PBKDF2_HMAC_SHA1"
            && (hmacAlgorithm?.uppercased() ?? "HMAC_SHA1") == "HMAC_SHA1"
        guard sha1 else { return .sqlcipher4 }
        if usesHMAC == false { return .sqlcipher1 }
        return kdfIterations == CipherFormat.sqlcipher2.parameters?.kdfIterations ? .sqlcipher2 : .sqlcipher3
    }

    /// The page size of this format's files: a file whose size is not a multiple of it
    /// cannot be in this format, which saves a key derivation when detecting.
    package var pageSize: Int? { parameters?.pageSize }

    /// The format whose defaults a database is read with: the version whose parameters
    /// these are, `custom` otherwise. Nil parameters are a library's own (SQLCipher 3
    /// reports no algorithms: it has one of each); a raw key skips the KDF, so its
    /// iteration count says nothing about the format.
    package init(pageSize: Int?, kdfIterations: Int?, kdfAlgorithm: String?, hmacAlgorithm: String?,
                usesHMAC: Bool?, plaintextHeaderSize: Int?, rawKey: Bool) {
        let kdf = kdfAlgorithm?.uppercased() ?? "PBKDF2_HMAC_SHA1"
        let hmac = hmacAlgorithm?.uppercased() ?? "HMAC_SHA1"
        let uses = usesHMAC ?? true
        let matching = [CipherFormat.sqlcipher4, .sqlcipher3, .sqlcipher2, .sqlcipher1].first { format in
            guard let defaults = format.parameters, plaintextHeaderSize ?? 0 == 0 else { return false }
            return pageSize == defaults.pageSize && kdf == defaults.kdfAlgorithm && uses == defaults.usesHMAC
                && (!uses || hmac == defaults.hmacAlgorithm) && (rawKey || kdfIterations == defaults.kdfIterations)
        }
        self = matching ?? .custom
    }

    /// The formats a SQLCipher of `library`'s version reads with no settings given, its
    /// own first: 4.x reads 4 then 3, 2, 1 (through `cipher_compatibility`); 3.x reads
    /// 3 then 2, 1.
    package static func readable(by library: SQLCipherVersion) -> [CipherFormat] {
        (1...max(1, min(library.major, 4))).reversed().compactMap { CipherFormat(version: $0) }
    }
}

/// How some SQLCipher 2.0 files authenticate their pages, which later versions read
/// only when told, after SQLCipher 2's defaults: the page number in each page's HMAC
/// big-endian (written on a big-endian machine, or by an app that chose it), or the 2.0
/// beta's HMAC key, derived with a salt mask of zero and 4,000 iterations (2.0 settled on
/// 0x3a and 2). Format detection tries both after the known formats, so such a file
/// opens with its right key instead of reading as a wrong one.
public enum LegacyPageHMAC: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `PRAGMA cipher_hmac_pgno = be`.
    case bigEndianPageNumbers
    /// `PRAGMA cipher_hmac_salt_mask = "x'00'"` and `PRAGMA fast_kdf_iter = 4000`: the
    /// files SQLCipher 2.0's beta wrote (SQLCipher's own test file among them).
    case sqlcipher2Beta

    /// The pragmas that read such a file, each with its value and the value SQLCipher
    /// reports back for it, in the order they are set (after SQLCipher 2's defaults).
    package var pragmas: [(name: String, value: String, reported: String)] {
        switch self {
        case .bigEndianPageNumbers: return [("cipher_hmac_pgno", "be", "be")]
        case .sqlcipher2Beta: return [("cipher_hmac_salt_mask", "\"x'00'\"", "00"), ("fast_kdf_iter", "4000", "4000")]
        }
    }

    /// "big-endian HMAC page numbers", "SQLCipher 2.0 beta's page HMAC".
    public var description: String {
        switch self {
        case .bigEndianPageNumbers: return "big-endian HMAC page numbers"
        case .sqlcipher2Beta: return "SQLCipher 2.0 beta's page HMAC"
        }
    }
}

/// One way format detection reads a file: a format's defaults, with one of SQLCipher
/// 2's legacy page HMACs, or without page HMACs (an app that turned them off).
package struct FormatDetectionAttempt: Hashable, Sendable {
    /// The format whose defaults are tried.
    package let format: CipherFormat
    /// SQLCipher 2's legacy page HMAC, if this attempt tries one.
    package var legacy: LegacyPageHMAC? = nil
    /// Whether this attempt reads the pages as carrying no HMAC.
    package var withoutPageHMACs = false
}

extension CipherFormat {
    /// What format detection tries, in order: each format the library reads
    /// (`readable(by:)`), then SQLCipher 2's with each `LegacyPageHMAC`, then SQLCipher
    /// 4's and 3's defaults without page HMACs (2's without them are 1's). A file in a
    /// known format opens at one of the first tries; the later ones cost a key
    /// derivation each only when those failed, as a wrong key does.
    package static func detectionAttempts(by library: SQLCipherVersion) -> [FormatDetectionAttempt] {
        let formats = readable(by: library)
        let legacy = formats.contains(.sqlcipher2) ? LegacyPageHMAC.allCases.map { FormatDetectionAttempt(format: .sqlcipher2, legacy: $0) } : []
        let withoutHMACs = formats.filter { $0 == .sqlcipher4 || $0 == .sqlcipher3 }.map { FormatDetectionAttempt(format: $0, withoutPageHMACs: true) }
        return formats.map { FormatDetectionAttempt(format: $0) } + legacy + withoutHMACs
    }
}

/// The parameters of a SQLCipher file format: what SQLCipher derives the key with, how
/// large its pages are and how they are authenticated. `CipherFormat.parameters` is the
/// one table of each version's defaults, and the lists here are the one place that
/// says what SQLCipher accepts: the opener's format detection, the settings applier and
/// its validation, the settings report, the command line's options and a GRDB built on
/// SQLCipher all read them from here.
package struct CipherParameters: Hashable, Sendable {
    /// `PRAGMA cipher_page_size`: bytes per encrypted page.
    package let pageSize: Int
    /// `PRAGMA kdf_iter`: PBKDF2 iterations that derive the key from a passphrase.
    package let kdfIterations: Int
    /// `PRAGMA cipher_kdf_algorithm`.
    package let kdfAlgorithm: String
    /// `PRAGMA cipher_hmac_algorithm`.
    package let hmacAlgorithm: String
    /// `PRAGMA cipher_use_hmac`: whether every page carries an HMAC.
    package let usesHMAC: Bool

    /// The KDF algorithms SQLCipher 4 offers (3.x has PBKDF2_HMAC_SHA1 alone).
    static let kdfAlgorithms = ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"]
    /// The HMAC algorithms SQLCipher 4 offers (3.x has HMAC_SHA1 alone).
    static let hmacAlgorithms = ["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512"]

    /// The page sizes SQLCipher can use: powers of two from 1024 to 65536. SQLCipher
    /// keeps 48 to 80 bytes of every page for its IV and HMAC, and SQLite needs 480
    /// usable bytes, so 512-byte pages fail (3.4.1 cannot read them back, 4.x's
    /// cipher_integrity_check rejects them).
    static let pageSizes = [1024, 2048, 4096, 8192, 16384, 32768, 65536]

    /// A plaintext header (SQLCipher 4): a multiple of 16 bytes, smaller than a page.
    static func isPlaintextHeaderSize(_ size: Int, forPageSize pageSize: Int) -> Bool {
        size >= 0 && size % 16 == 0 && size < pageSize
    }

    /// The length of a salt (`PRAGMA cipher_salt`), in bytes.
    package static let saltLength = 16

    /// A salt's bytes from hex digits, as `--cipher-salt` takes them and `PRAGMA
    /// cipher_salt` answers (an optional `x'…'` around them); nil unless whole hex.
    package static func salt(hex text: String) -> [UInt8]? {
        var digits = Substring(text)
        if digits.lowercased().hasPrefix("x'"), digits.hasSuffix("'") { digits = digits.dropFirst(2).dropLast() }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

import MigrationKit

/// The cipher parameters a database is actually read with, for `status`.
package struct EffectiveCipherSettings: Hashable, Sendable, Codable {
    /// `PRAGMA cipher_page_size`: the size of each encrypted page, in bytes.
    package let pageSize: Int?
    /// `PRAGMA kdf_iter`: PBKDF2 iterations used to derive the key from a passphrase.
    package let kdfIterations: Int?
    /// `PRAGMA cipher_use_hmac`: whether every page carries an HMAC, which detects
    /// tampering (SQLCipher 1's format has none).
    package let usesHMAC: Bool?
    /// "PBKDF2_HMAC_SHA512" on SQLCipher 4; SQLCipher 3 has one, fixed: "PBKDF2_HMAC_SHA1".
    package let kdfAlgorithm: String?
    /// "HMAC_SHA512" on SQLCipher 4; SQLCipher 3: "HMAC_SHA1".
    package let hmacAlgorithm: String?
    /// "AES-256-CBC".
    package let cipher: String?
    /// The crypto library under SQLCipher, e.g. "OpenSSL 3.0.3 3 May 2022".
    let provider: String?
    /// Bytes of page 1 left unencrypted (SQLCipher 4; 0 on 3.x).
    package let plaintextHeaderSize: Int?
    /// Opened with a raw key: SQLCipher uses it as is, so the KDF settings do not apply.
    package var rawKey = false
    /// Which raw-key form opened it (the key alone, with its salt, or with its HMAC key
    /// and salt); nil for a passphrase, or where the key was not at hand.
    package var rawKeyForm: DatabaseKey.RawKeyForm?
    /// An early SQLCipher 2.0 file's page HMAC (`PRAGMA cipher_hmac_pgno`,
    /// `cipher_hmac_salt_mask`); nil for every other file.
    package var legacyPageHMAC: LegacyPageHMAC?

    private enum CodingKeys: String, CodingKey {
        case pageSize, kdfIterations, usesHMAC, kdfAlgorithm, hmacAlgorithm, cipher, provider, plaintextHeaderSize,
             rawKey, rawKeyForm, legacyPageHMAC
    }

    /// As synthesized, but for `rawKeyForm`, which is always there (null for a
    /// passphrase) beside `rawKey`, as `status --json` documents it.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(pageSize, forKey: .pageSize)
        try container.encodeIfPresent(kdfIterations, forKey: .kdfIterations)
        try container.encodeIfPresent(usesHMAC, forKey: .usesHMAC)
        try container.encodeIfPresent(kdfAlgorithm, forKey: .kdfAlgorithm)
        try container.encodeIfPresent(hmacAlgorithm, forKey: .hmacAlgorithm)
        try container.encodeIfPresent(cipher, forKey: .cipher)
        try container.encodeIfPresent(provider, forKey: .provider)
        try container.encodeIfPresent(plaintextHeaderSize, forKey: .plaintextHeaderSize)
        try container.encode(rawKey, forKey: .rawKey)
        try container.encode(rawKeyForm, forKey: .rawKeyForm)
        try container.encodeIfPresent(legacyPageHMAC, forKey: .legacyPageHMAC)
    }

    /// Which version's defaults these settings are, or `custom` (`CipherFormat`'s table).
    package var format: CipherFormat {
        if legacyPageHMAC != nil { return .custom }
        return CipherFormat(pageSize: pageSize, kdfIterations: kdfIterations, kdfAlgorithm: kdfAlgorithm, hmacAlgorithm: hmacAlgorithm,
                     usesHMAC: usesHMAC, plaintextHeaderSize: plaintextHeaderSize, rawKey: rawKey)
    }

    /// Reads the settings of an open, keyed database. SQLCipher 3 does not report its
    /// algorithms (it has only one of each), so they are filled in from the version.
    package static func read(from db: SQLCipherDatabase) throws -> EffectiveCipherSettings {
        func text(_ pragma: String) throws -> String? {
            guard let value = try db.fetchValue(sql: "PRAGMA \(pragma)") else { return nil }
            switch value {
            case .text(let text): return text.isEmpty ? nil : text
            case .integer(let number): return String(number)
            default: return nil
            }
        }
        let major = SQLCipherLibrary.cipherVersion?.major ?? 0
        var settings = EffectiveCipherSettings(
            pageSize: try text("cipher_page_size").flatMap { Int($0) },
            kdfIterations: try text("kdf_iter").flatMap { Int($0) },
            usesHMAC: try text("cipher_use_hmac").map { $0 == "1" },
            kdfAlgorithm: try text("cipher_kdf_algorithm") ?? (major == 3 ? "PBKDF2_HMAC_SHA1" : nil),
            hmacAlgorithm: try text("cipher_hmac_algorithm") ?? (major == 3 ? "HMAC_SHA1" : nil),
            cipher: try text("cipher"),
            provider: [try text("cipher_provider"), try text("cipher_provider_version")].compactMap { $0 }.last,
            plaintextHeaderSize: SQLCipherFeature.formatFour.isAvailable(in: SQLCipherLibrary.cipherVersion) ? try text("cipher_plaintext_header_size").flatMap { Int($0) } : 0)
        // The salt mask is SQLCipher's process-wide setting, back at its default once
        // keys are derived (`SaltMaskGuard`): the connection's own settings say it. The page-number order is the connection's.
        settings.legacyPageHMAC = try db.cipherSettings.legacyPageHMAC
            ?? (try text("cipher_hmac_pgno")?.lowercased() == "be" ? .bigEndianPageNumbers : nil)
        return settings
    }

    /// One line: "SQLCipher 3 defaults: AES-256-CBC, 1024-byte pages, PBKDF2_HMAC_SHA1 × 64000, HMAC_SHA1".
    package var summary: String {
        var parts: [String] = []
        if let cipher { parts.append(cipher) }
        if let pageSize { parts.append("\(pageSize)-byte pages") }
        if let header = plaintextHeaderSize, header > 0 { parts.append("\(header)-byte plaintext header") }
        if rawKey {
            parts.append("\(rawKeyForm ?? .key) (no key derivation)")
        } else if let kdfIterations {
            parts.append("\(kdfAlgorithm ?? "KDF") × \(kdfIterations)")
        }
        if let usesHMAC { parts.append(usesHMAC ? (hmacAlgorithm ?? "HMAC") : "no HMAC") }
        if let legacyPageHMAC { parts.append(legacyPageHMAC.description) }
        return "\(format): " + parts.joined(separator: ", ")
    }

    /// Each setting that differs in `new`, as "page size 1024 → 4096", for a command
    /// that moved a file from these settings to those.
    package func changes(to new: EffectiveCipherSettings) -> [String] {
        func change<Value: Equatable>(_ name: String, _ old: Value?, _ new: Value?, _ words: (Value?) -> String = { $0.map { "\($0)" } ?? "default" }) -> String? {
            old == new ? nil : "\(name) \(words(old)) → \(words(new))"
        }
        return [
            change("page size", pageSize, new.pageSize),
            rawKey ? nil : change("KDF iterations", kdfIterations, new.kdfIterations),
            change("KDF algorithm", kdfAlgorithm?.uppercased(), new.kdfAlgorithm?.uppercased()),
            change("page HMAC", usesHMAC ?? true, new.usesHMAC ?? true) { $0 == false ? "none" : "on" },
            change("HMAC algorithm", hmacAlgorithm?.uppercased(), new.hmacAlgorithm?.uppercased()),
            change("plaintext header", plaintextHeaderSize ?? 0, new.plaintextHeaderSize ?? 0) { "\($0 ?? 0) bytes" },
            change("page HMAC variant", legacyPageHMAC, new.legacyPageHMAC) { $0.map(\.description) ?? "none" },
        ].compactMap { $0 }
    }
}

extension SQLCipherWriter {
    /// The effective cipher settings, or nil for a plaintext database.
    package func effectiveCipherSettings() throws -> EffectiveCipherSettings? {
        guard let key else { return nil }
        var settings = try read { try EffectiveCipherSettings.read(from: $0) }
        settings.describeKey(key)
        return settings
    }
}

extension EffectiveCipherSettings {
    /// Records how `key` opens the file: as a raw key (and in which form), or not.
    mutating func describeKey(_ key: DatabaseKey) {
        rawKey = key.kind == .rawKey
        rawKeyForm = key.rawKeyForm
    }
}

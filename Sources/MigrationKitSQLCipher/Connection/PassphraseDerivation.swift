import CLibCrypto
import MigrationKit

/// A passphrase whose bytes are a raw-key literal (`x'` and 64, 96 or 160 hex digits;
/// `DatabaseKey.passphraseRawKeyForm`), which SQLCipher's `sqlite3_key` would take for a
/// raw key: a database keyed with such a passphrase (one made before SQLCipher 4.7, which
/// read 160 digits as text) opens only if the key is derived here, as SQLCipher derives a
/// passphrase's (PBKDF2 with the file's salt, in its format's algorithm and iterations),
/// and handed to SQLCipher as the raw key and salt that result — the same key, on every
/// version. It opens a database keyed with it; it never keys a new one, which would need
/// a salt of MigrationKit's choosing and a key no other client derives from it.
enum PassphraseDerivation {
    /// What to hand SQLCipher for `key` on the file at `path` read in `settings`: `key`
    /// itself, or the raw key and salt its passphrase derives.
    static func keying(_ key: DatabaseKey, path: String, settings: CipherSettings) throws -> DatabaseKey {
        guard let form = key.passphraseRawKeyForm,
              SQLCipherFeature.readsAsRawKey(hexDigits: form.hexDigits, library: SQLCipherLibrary.cipherVersion) else { return key }
        guard let salt = salt(of: path, settings: settings) else { throw notForANewDatabase(form) }
        return try derivedKey(from: key, salt: salt, settings: settings)
    }

    /// The raw key and salt (`x'<96 hex digits>'`) SQLCipher derives from the passphrase
    /// `key` for a file with `salt` read in `settings`: PBKDF2 in the settings' algorithm
    /// and iterations, those of the format they name (`compatibility`), or the linked
    /// library's own format's.
    package static func derivedKey(from key: DatabaseKey, salt: [UInt8], settings: CipherSettings) throws -> DatabaseKey {
        let format = settings.compatibility.flatMap(CipherFormat.init(version:))
            ?? SQLCipherLibrary.cipherVersion.flatMap { CipherFormat(version: $0.major) } ?? .sqlcipher4
        let algorithm = (settings.kdfAlgorithm ?? format.parameters?.kdfAlgorithm ?? "PBKDF2_HMAC_SHA512").uppercased()
        let iterations = settings.kdfIterations ?? format.parameters?.kdfIterations ?? 256_000
        let digest: Int32 = algorithm.hasSuffix("SHA512") ? 512 : algorithm.hasSuffix("SHA256") ? 256 : 1
        var derived = [UInt8](repeating: 0, count: DatabaseKey.rawKeyLength + salt.count)
        defer { for index in derived.indices { derived[index] = 0 } }
        let done = key.withPassphraseBytes { passphrase -> Int32 in
            guard let passphrase else { return 0 }
            return derived.withUnsafeMutableBufferPointer { out in
                migrationkit_pbkdf2(passphrase.baseAddress, passphrase.count, salt, salt.count, Int32(iterations), digest,
                                    out.baseAddress, DatabaseKey.rawKeyLength)
            }
        }
        guard done == 1, salt.count == CipherParameters.saltLength else {
            throw SQLCipherError(kind: .invalidKey, message: "The key could not be derived from the passphrase (OpenSSL's PBKDF2 failed).")
        }
        derived.replaceSubrange(DatabaseKey.rawKeyLength..., with: salt)
        return .rawKey(derived)
    }

    /// The file's salt: the one given with a plaintext header, else its first 16 bytes;
    /// nil for a file too short to have one (a new database).
    private static func salt(of path: String, settings: CipherSettings) -> [UInt8]? {
        if settings.plaintextHeaderSize ?? 0 > 0 { return settings.salt }
        guard path != ":memory:" else { return nil }
        let bytes = DatabaseFileHeader(path: path).bytes.prefix(CipherParameters.saltLength)
        return bytes.count == CipherParameters.saltLength ? Array(bytes) : nil
    }

    /// Why such a passphrase cannot key a new database.
    static func notForANewDatabase(_ form: DatabaseKey.RawKeyForm) -> SQLCipherError {
        SQLCipherError(kind: .invalidKey,
                       message: "The passphrase is x' and \(form.hexDigits) hex digits, which the linked SQLCipher reads as a raw key: it opens a database keyed with it as a passphrase, but does not key a new database or copy; choose another passphrase for those.")
    }
}

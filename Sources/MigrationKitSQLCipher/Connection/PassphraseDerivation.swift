import CLibCrypto
import MigrationKit

/// The text of a raw key with its HMAC key and salt (`x'` and 160 hex digits), which
/// SQLCipher 4.7 and later read as that raw key, taken as the passphrase every earlier
/// version read it as: a database keyed with it before 4.7 opens on a newer SQLCipher
/// only if the key is derived here, as SQLCipher derives a passphrase's (PBKDF2 with the
/// file's salt, in its format's algorithm and iterations), and handed to SQLCipher as
/// the raw key and salt that result — the same key. Tried only once the text, read as a
/// raw key, opened nothing (`SQLCipherOpener`), and never for a new database.
enum PassphraseDerivation {
    /// The raw key and salt (`x'<96 hex digits>'`) that `key`'s text, as a passphrase,
    /// gives the file at `path` read in `settings`; nil for a file without its salt yet
    /// (a new database).
    static func keyingAsPassphrase(_ key: DatabaseKey, path: String, settings: CipherSettings) throws -> DatabaseKey? {
        guard let salt = salt(of: path, settings: settings) else { return nil }
        return try derivedKey(from: key, salt: salt, settings: settings)
    }

    /// The raw key and salt SQLCipher derives from `key`'s text as a passphrase for a
    /// file with `salt` read in `settings`: PBKDF2 in the settings' algorithm and
    /// iterations, those of the format they name (`compatibility`), or the linked
    /// library's own format's.
    static func derivedKey(from key: DatabaseKey, salt: [UInt8], settings: CipherSettings) throws -> DatabaseKey {
        let format = settings.compatibility.flatMap(CipherFormat.init(version:))
            ?? SQLCipherLibrary.cipherVersion.flatMap { CipherFormat(version: $0.major) } ?? .sqlcipher4
        let algorithm = (settings.kdfAlgorithm ?? format.parameters?.kdfAlgorithm ?? "PBKDF2_HMAC_SHA512").uppercased()
        let iterations = settings.kdfIterations ?? format.parameters?.kdfIterations ?? 256_000
        let digest: Int32 = algorithm.hasSuffix("SHA512") ? 512 : algorithm.hasSuffix("SHA256") ? 256 : 1
        var derived = [UInt8](repeating: 0, count: DatabaseKey.rawKeyLength + salt.count)
        defer { for index in derived.indices { derived[index] = 0 } }
        let done = key.withKeyText { passphrase -> Int32 in
            derived.withUnsafeMutableBufferPointer { out in
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
    /// nil for a file too short to have one.
    private static func salt(of path: String, settings: CipherSettings) -> [UInt8]? {
        if settings.plaintextHeaderSize ?? 0 > 0 { return settings.salt }
        guard path != ":memory:" else { return nil }
        let bytes = DatabaseFileHeader(path: path).bytes.prefix(CipherParameters.saltLength)
        return bytes.count == CipherParameters.saltLength ? Array(bytes) : nil
    }
}

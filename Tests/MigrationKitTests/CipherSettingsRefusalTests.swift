@testable import MigrationKit
import Testing

/// The cipher-setting rules, stated once in the core (`CipherSettings.refusal(for:)`):
/// what no SQLCipher accepts, what only a later one has, worded by the library and, with
/// its option names, by a command line.
@Suite struct CipherSettingsRefusalTests {
    private let three = SQLCipherVersion(major: 3, minor: 4, patch: 1)
    private let fourZero = SQLCipherVersion(major: 4, minor: 0, patch: 0)
    private let four = SQLCipherVersion(major: 4, minor: 6, patch: 1)

    @Test func whatNoSQLCipherAcceptsIsRefusedWhateverTheLibrary() {
        let cases: [(CipherSettings, CipherSetting)] = [
            (CipherSettings(compatibility: 5), .compatibility),
            (CipherSettings(kdfIterations: 0), .kdfIterations),
            (CipherSettings(pageSize: 512), .pageSize),
            (CipherSettings(kdfAlgorithm: "PBKDF2_HMAC_MD5"), .kdfAlgorithm),
            (CipherSettings(hmacAlgorithm: "sha1"), .hmacAlgorithm),
            (CipherSettings(plaintextHeaderSize: 20, salt: Array(repeating: 1, count: 16)), .plaintextHeader),
            (CipherSettings(plaintextHeaderSize: 32), .plaintextHeader),
            (CipherSettings(salt: [1, 2]), .salt),
        ]
        for (settings, setting) in cases {
            for library in [nil, three, four] {
                #expect(settings.refusal(for: library)?.setting == setting, "\(settings) on \(String(describing: library))")
            }
        }
        #expect(CipherSettings(pageSize: 512).refusal(for: nil)?.description
                == "The cipher page size must be a power of two from 1024 to 65536, not 512 (SQLCipher keeps up to 80 bytes of each page for its IV and HMAC, and SQLite needs 480 bytes left).")
        #expect(CipherSettings(pageSize: 512).refusal(for: nil)?.sentence(naming: { "--\($0.rawValue)" })
                == "--pageSize must be a power of two from 1024 to 65536 (SQLCipher keeps up to 80 bytes of each page for its IV and HMAC, and SQLite needs 480 bytes left).")
        #expect(CipherSettings(plaintextHeaderSize: 32).refusal(for: nil)?.sentence(naming: { "--\($0.rawValue)" })
                == "--plaintextHeader needs --salt with it: a database with a plaintext header cannot store its salt.")
    }

    @Test func whatOnlyALaterSQLCipherHasIsRefusedNamingTheLinkedOne() {
        let salted = CipherSettings(plaintextHeaderSize: 32, salt: Array(repeating: 7, count: 16))
        #expect(salted.refusal(for: four) == nil && salted.refusal(for: nil) == nil)
        #expect(salted.refusal(for: three)?.description == "The linked SQLCipher 3.4.1 has no plaintext header (it arrived in SQLCipher 4.0.0); use a build linked against SQLCipher 4.0.0 or later.")
        #expect(CipherSettings(hmacAlgorithm: "HMAC_SHA512").refusal(for: three)?.description
                == "The linked SQLCipher 3.4.1 has only HMAC_SHA1 as its HMAC algorithm; use a build linked against SQLCipher 4 for HMAC_SHA512.")
        #expect(CipherSettings(hmacAlgorithm: "HMAC_SHA1").refusal(for: three) == nil)
        #expect(CipherSettings(compatibility: 4).refusal(for: three)?.reason == .formatNewerThanLibrary(4))
        #expect(CipherSettings(compatibility: 3).refusal(for: fourZero)?.reason == .needsLibrary(what: "cipher_compatibility", feature: .compatibility))
        #expect(CipherSettings(compatibility: 3).refusal(for: four) == nil)
        #expect(CipherSettings(usesHMAC: false).refusal(for: three) == nil)
    }

    /// The feature table answers for the library versions the rules name.
    @Test func theFeatureTableSaysWhatEachVersionHas() {
        #expect(!SQLCipherFeature.integrityCheck.isAvailable(in: three) && SQLCipherFeature.integrityCheck.isAvailable(in: four))
        #expect(!SQLCipherFeature.compatibility.isAvailable(in: fourZero) && SQLCipherFeature.formatFour.isAvailable(in: fourZero))
        #expect(!SQLCipherFeature.logSettings.isAvailable(in: SQLCipherVersion(major: 4, minor: 5, patch: 0)))
        #expect(!SQLCipherFeature.formatFour.isAvailable(in: nil))
    }
}

@testable import MigrationKit
import Testing

/// Which settings authenticate pages (`CipherFormat.authenticatesPages`): the ones a
/// connection may try a key in directly; the others first prove a header on a
/// connection that makes nothing beside the file.
@Suite struct PageAuthenticationTests {
    @Test func onlySQLCipher1sDefaultsAndHMACsTurnedOffReadUnauthenticated() {
        #expect([CipherFormat.sqlcipher4, .sqlcipher3, .sqlcipher2, .sqlcipher1, .custom, .plaintext].filter { !$0.authenticatesPages } == [.sqlcipher1])
        let cases: [(CipherSettings, Bool)] = [
            (CipherSettings(), true),
            (CipherSettings(compatibility: 3), true),
            (CipherSettings(compatibility: 1), false),
            (CipherSettings(usesHMAC: false), false),
            (CipherSettings(compatibility: 4, usesHMAC: false), false),
            (CipherSettings(compatibility: 1, usesHMAC: true), true),
            (CipherSettings(compatibility: 2, legacyPageHMAC: .bigEndianPageNumbers), true),
        ]
        for (settings, authenticates) in cases {
            #expect(settings.authenticatesPages == authenticates, "\(settings)")
        }
    }
}

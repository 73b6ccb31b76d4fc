import Foundation
@testable import MigrationKit
import MigrationKitTestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import Testing

@Suite struct KeyFileTests {
    let secret = "key-file-secret-Qx7 with spaces"

    /// The key-text rule (Keys/README.md): a UTF-8 byte-order mark and trailing line
    /// breaks are not part of the key; spaces are.
    @Test func theWholeFileIsThePassphraseWithoutTrailingLineBreaksOrByteOrderMark() throws {
        let directory = try TemporaryDirectory()
        let expected = DatabaseKey.passphrase(secret)
        let variants = [("plain", secret), ("lf", secret + "\n"), ("crlf", secret + "\r\n"), ("two", secret + "\n\n"),
                        ("cr", secret + "\r"), ("bom", "\u{FEFF}" + secret), ("bom-crlf", "\u{FEFF}" + secret + "\r\n")]
        for (name, contents) in variants {
            let path = try directory.write(name, contents)
            let (key, warnings) = try resolveCollecting(.file(path: path))
            #expect(key.kind == .passphrase)
            #expect(key.isSameKey(as: expected), "\(name): the key differs")
            #expect(warnings.isEmpty)
        }
        let spaces = try directory.write("spaces", " " + secret + " \n")
        #expect(try KeySource.file(path: spaces).resolve().isSameKey(as: .passphrase(" " + secret + " ")))
        // UTF-16 would silently be another key than the one the user sees: refused.
        var utf16 = Data([0xFF, 0xFE])
        utf16.append(secret.data(using: .utf16LittleEndian)!)
        let wide = try directory.write("utf16", utf16)
        let error = expectKeyError(.keyTextNotUTF8) { _ = try KeySource.file(path: wide).resolve() }
        #expect(error?.message.contains("UTF-16") == true)
    }

    @Test func xHexFileIsARawKey() throws {
        let directory = try TemporaryDirectory()
        let bytes = (0..<32).map { UInt8($0 * 7 + 3) }
        for (name, contents) in [("raw", rawKeyText(bytes)), ("raw-lf", rawKeyText(bytes) + "\n"),
                                 ("raw-upper", rawKeyText(bytes).uppercased() + "\r\n"), ("raw-bom", "\u{FEFF}" + rawKeyText(bytes) + "\n\n")] {
            let path = try directory.write(name, contents)
            let (key, warnings) = try resolveCollecting(.file(path: path))
            #expect(key.kind == .rawKey, "\(name)")
            #expect(key.isSameKey(as: .rawKey(bytes)), "\(name): the key differs")
            #expect(warnings.isEmpty)
        }
    }

    /// A key text used as a test argument, shown in test output by its name only.
    struct NamedKeyText: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        NamedKeyText(name: "4 hex digits", text: "x'abab'"),
        NamedKeyText(name: "62 hex digits", text: "x'" + String(repeating: "ab", count: 31) + "'"),
        NamedKeyText(name: "64 non-hex", text: "x'" + String(repeating: "zz", count: 32) + "'"),
        NamedKeyText(name: "empty quotes", text: "X''"),
    ])
    func aMalformedRawKeyIsAPassphraseWithAWarning(key text: NamedKeyText) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("malformed", text.text + "\n")
        let (key, warnings) = try resolveCollecting(.file(path: path))
        #expect(key.kind == .passphrase)
        #expect(warnings.map(\.code) == [.malformedRawKey])
        #expect(warnings.first?.message.contains(path) == true)
        #expect(warnings.allSatisfy { !$0.message.contains(text.text) })
    }

    @Test func sqlCiphersKeyAndSaltFormIsARawKeyWithoutAWarning() throws {
        // x'<96 hex>' is a raw key plus its salt: SQLCipher reads it as such from the text,
        // with no key derivation, so it is a raw key here too.
        let directory = try TemporaryDirectory()
        let text = "x'" + String(repeating: "ab", count: 32) + "00112233445566778899aabbccddeeff'"
        let path = try directory.write("salted", text + "\n")
        let (key, warnings) = try resolveCollecting(.file(path: path))
        #expect(warnings.isEmpty)
        #expect(key.kind == .rawKey)
        #expect(key.withKeyText { String(decoding: $0, as: UTF8.self) } == text)
        let database = directory.path("salted.db")
        try createProbeDatabase(at: database, key: key)
        // SQLCipher wrote the given salt as the file's first 16 bytes.
        let header = try Data(contentsOf: URL(fileURLWithPath: database)).prefix(16)
        #expect(header == Data((0..<16).map { UInt8($0 * 0x11) }))
    }

    /// x'<160 hex>', a key, its HMAC key and salt, is a raw key to SQLCipher 4.7.0 and
    /// later and a passphrase to every version before. Read for any library it is the
    /// raw key, handed on as it is: a library before 4.7 reads its text as the passphrase
    /// a file keyed with it before 4.7 opens with, so whether it opens a database is the
    /// connection's to find out. The connection never makes a new database with it on
    /// such a library, before any file exists.
    @Test func aRawKeyWithItsHMACKeyIsReadAsItIsAndNeverKeysANewDatabaseWhereItWouldBeAPassphrase() throws {
        let directory = try TemporaryDirectory()
        let bytes = (0..<80).map { UInt8($0 * 3 + 1) }
        let path = try directory.write("hmac", rawKeyText(bytes) + "\n")
        for key in [try KeySource.file(path: path).resolve(for: SQLCipherVersion(major: 4, minor: 6, patch: 1)) { _ in },
                    try KeySource.password(rawKeyText(bytes)).resolve(for: SQLCipherVersion(major: 3, minor: 4, patch: 1)) { _ in },
                    try KeySource.file(path: path).resolve(for: SQLCipherVersion(major: 4, minor: 7, patch: 0)) { _ in },
                    try KeySource.file(path: path).resolve()] {
            #expect(key.rawKeyForm == .keyHMACKeyAndSalt && key.isSameKey(as: .rawKey(bytes)))
        }
        guard !SQLCipherFeature.rawKeyWithHMACKey.isAvailable(in: SQLCipherLibrary.cipherVersion) else { return }
        let database = directory.path("hmac.db")
        #expect(throws: SQLCipherError.self) { try createProbeDatabase(at: database, key: .rawKey(bytes)) }
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// A key file of bare hex digits (how Signal Desktop stores its key) is a
    /// passphrase to SQLCipher: said, with the raw form.
    @Test(arguments: [32, 48, 80]) func bareHexDigitsAreAPassphraseWithAHintAtTheRawForm(bytes: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bare", String(repeating: "c3", count: bytes) + "\n")
        let (key, warnings) = try resolveCollecting(.file(path: path))
        #expect(key.kind == .passphrase)
        #expect(warnings.map(\.code) == [.bareRawKey] && warnings.first?.message.contains("x'<the digits>'") == true, "\(warnings)")
        #expect(warnings.allSatisfy { !$0.message.contains("c3c3") })
        // Other lengths are ordinary passphrases.
        let other = try directory.write("other", String(repeating: "c3", count: 20) + "\n")
        #expect(try resolveCollecting(.file(path: other)).warnings.isEmpty)
    }

    @Test func aMissingFileIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.key")
        let error = expectKeyError(.keyFileNotFound) { _ = try KeySource.file(path: path).resolve() }
        #expect(error?.message.contains(path) == true)
        #expect(error?.path == path)
        expectKeyError(.keyFileNotFound) { _ = try KeySource.file(path: directory.path("no/such/dir/key")).resolve() }
    }

    @Test func aDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let error = expectKeyError(.keyFileIsDirectory) { _ = try KeySource.file(path: directory.url.path).resolve() }
        #expect(error?.message.contains("directory") == true)
    }

    @Test func emptyFilesAreRefused() throws {
        let directory = try TemporaryDirectory()
        for (name, contents) in [("empty", ""), ("newline", "\n"), ("crlf", "\r\n"), ("newlines", "\n\r\n"), ("bom", "\u{FEFF}\n")] {
            let path = try directory.write(name, contents)
            let error = expectKeyError(.keyFileEmpty) { _ = try KeySource.file(path: path).resolve() }
            #expect(error?.message.contains(path) == true)
        }
    }

    @Test func filesOverFourKiBAreRefusedAndFourKiBIsFine() throws {
        let directory = try TemporaryDirectory()
        let limit = KeySource.maximumKeyLength
        #expect(limit == 4096)
        let exact = try directory.write("exact", String(repeating: "k", count: limit))
        #expect(try KeySource.file(path: exact).resolve().kind == .passphrase)
        // 4096 bytes plus the newline that is stripped: still the 4096-byte passphrase.
        let exactWithNewline = try directory.write("exact-lf", String(repeating: "k", count: limit) + "\n")
        expectKeyError(.keyFileTooLarge) { _ = try KeySource.file(path: exactWithNewline).resolve() }
        let large = try directory.write("large", String(repeating: "k", count: limit + 1))
        let error = expectKeyError(.keyFileTooLarge) { _ = try KeySource.file(path: large).resolve() }
        #expect(error?.message.contains(large) == true)
        let huge = try directory.write("huge", Data(count: 10_000_000))
        expectKeyError(.keyFileTooLarge) { _ = try KeySource.file(path: huge).resolve() }
    }

    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let started = Date()
        let error = expectKeyError(.keyFileNotRegular) { _ = try KeySource.file(path: path).resolve() }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(error?.message.contains("standard input") == true)
        // Device files are not key files either.
        expectKeyError(.keyFileNotRegular) { _ = try KeySource.file(path: "/dev/zero").resolve() }
    }

    @Test func aSymlinkToAPrivateFileIsFollowed() throws {
        let directory = try TemporaryDirectory()
        let target = try directory.write("target", secret)
        let link = directory.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try KeySource.file(path: link).resolve().isSameKey(as: .passphrase(secret)))
    }

    @Test(arguments: [0o620, 0o602, 0o666, 0o660, 0o622])
    func filesOthersCanWriteAreRefused(mode: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("key", secret, mode: mode)
        let error = expectKeyError(.keyFileWritableByOthers) { _ = try KeySource.file(path: path).resolve() }
        #expect(error?.message.contains("chmod 600 \(path)") == true)
        #expect(error.map { !"\($0)".contains(secret) } ?? true)
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o444])
    func filesOthersCanReadWorkWithAChmodWarning(mode: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("key", secret, mode: mode)
        let (key, warnings) = try resolveCollecting(.file(path: path))
        #expect(key.isSameKey(as: .passphrase(secret)))
        #expect(warnings.map(\.code) == [.keyFileReadableByOthers])
        #expect(warnings.first?.message.contains("chmod 600 \(path)") == true)
        #expect(warnings.first?.path == path)
        #expect(warnings.allSatisfy { !$0.message.contains(secret) })
    }

    @Test(arguments: [0o600, 0o400])
    func privateFilesGiveNoWarning(mode: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("key", secret, mode: mode)
        let (_, warnings) = try resolveCollecting(.file(path: path))
        #expect(warnings.isEmpty)
    }

    @Test func anUnreadableFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("locked.key", secret, mode: 0o000)
        if getuid() != 0 {
            let error = expectKeyError(.keyFileUnreadable) { _ = try KeySource.file(path: path).resolve() }
            #expect(error?.message.contains("permission denied") == true)
            return
        }
        // Root reads anything, so read it as nobody, through the probe.
        guard let setpriv = Paths.program("setpriv") else {
            Issue.record("running as root and setpriv (util-linux) is missing, so an unreadable file cannot be tested")
            return
        }
        let result = try runProgram(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.probe, "resolve", "file", path],
                                    environment: isolatedEnvironment(home: directory.url.path))
        #expect(result.errorCode == "keyFileUnreadable", "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("permission denied"))
        #expect(result.stderr.contains(path))
        #expect(!result.mentions(secret))
    }

    @Test func refusalsAndWarningsNeverContainTheKey() throws {
        let directory = try TemporaryDirectory()
        var descriptions: [String] = []
        for (name, contents, mode) in [("writable", secret, 0o666), ("big", secret + String(repeating: "x", count: 5000), 0o600)] {
            let path = try directory.write(name, contents, mode: mode)
            do {
                _ = try KeySource.file(path: path).resolve()
            } catch {
                descriptions += ["\(error)", String(reflecting: error)]
            }
        }
        let readable = try directory.write("readable", secret, mode: 0o644)
        let (_, warnings) = try resolveCollecting(.file(path: readable))
        descriptions += warnings.map { "\($0)" }
        #expect(descriptions.count == 5)
        #expect(descriptions.allSatisfy { !$0.contains(secret) && !$0.contains("Qx7") })
    }
}

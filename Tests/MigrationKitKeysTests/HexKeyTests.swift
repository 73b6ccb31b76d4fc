import Foundation
import MigrationKitTestSupport
@testable import MigrationKitKeys
import Testing

/// The hex form (`KeySource.hex`): a passphrase's bytes as hex digits, chosen by name,
/// for a passphrase the text form cannot carry (SQLCipher for Android's `byte[]` keys:
/// one that ends in a line break loses it when read as text).
@Suite struct HexKeyTests {
    /// A binary passphrase of the kind that needs it: random bytes ending in a line break.
    let bytes: [UInt8] = [0x9C, 0x00, 0x41, 0xFE, 0x27, 0x0D, 0x7F, 0x0A]
    var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func everySourceInHexGivesThePassphraseByteForByte() throws {
        let directory = try TemporaryDirectory()
        let expected = DatabaseKey.passphrase(bytes: SecretBytes(copying: bytes))
        // As `od -An -tx1` writes it (spaces, a line break per line), as `xxd -p` does
        // (upper case here), with a byte-order mark, and as one line with its newline.
        let spaced = bytes.map { String(format: " %02x", $0) }.joined()
        let variants = [("line", hex + "\n"), ("od", String(spaced.prefix(12)) + "\n" + String(spaced.dropFirst(12)) + "\n"),
                        ("upper-crlf", hex.uppercased() + "\r\n"), ("bom-tabs", "\u{FEFF}\t" + hex + "\t\n")]
        for (name, contents) in variants {
            let path = try directory.write(name, contents, mode: 0o600)
            let (key, warnings) = try resolveCollecting(.hex(.file(path: path)))
            #expect(key.kind == .passphrase)
            #expect(key.isSameKey(as: expected), "\(name): the key differs")
            #expect(warnings.isEmpty)
        }
        #expect(try KeySource.hex(.password(hex)).resolve().isSameKey(as: expected))
        #expect(try KeySource.hex(.hex(.password(hex))).resolve().isSameKey(as: expected))

        let environment = try runProbe(["resolve", "hex", "env", "MK_TEST_HEX"],
                                       environment: isolatedEnvironment(home: directory.url.path, extra: ["MK_TEST_HEX": hex]))
        #expect(environment.lines == ["key passphrase"], "\(environment.stderr)")
        let standardInput = try runProbe(["resolve", "hex", "stdin"], stdin: Data((hex + "\n").utf8),
                                         environment: isolatedEnvironment(home: directory.url.path))
        #expect(standardInput.lines == ["key passphrase"], "\(standardInput.stderr)")
    }

    /// The same text through a source that is not in hex is what it always was: hex is
    /// never guessed from the text.
    @Test func textThatLooksLikeHexIsStillTextWithoutTheHexForm() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("key", hex + "\n", mode: 0o600)
        #expect(try KeySource.file(path: path).resolve().isSameKey(as: .passphrase(hex)))
        #expect(try !KeySource.file(path: path).resolve().isSameKey(as: KeySource.hex(.file(path: path)).resolve()))
        // The hex of a raw key's text is that raw key, as SQLCipher reads `hexkey`'s bytes.
        let raw = (0..<32).map { UInt8($0) }
        let rawText = Array(rawKeyText(raw).utf8).map { String(format: "%02x", $0) }.joined()
        #expect(try KeySource.hex(.password(rawText)).resolve().isSameKey(as: .rawKey(raw)))
    }

    @Test func hexThatIsNotHexIsRefusedNamingTheSourceNeverTheText() throws {
        let directory = try TemporaryDirectory()
        let cases: [(String, String, KeyError.Code, String)] = [
            ("letters", "9c0041zz\n", .keyTextNotHex, "not hex digits"),
            ("raw-form", "x'9c0041fe'\n", .keyTextNotHex, "not hex digits"),
            ("odd", "9c0041f\n", .keyTextNotHex, "odd number"),
            ("blank", " \n\n", .keyFileEmpty, "as hex digits"),
            ("empty", "", .keyFileEmpty, "as hex digits"),
        ]
        for (name, contents, code, words) in cases {
            let path = try directory.write(name, contents, mode: 0o600)
            let error = expectKeyError(code) { _ = try KeySource.hex(.file(path: path)).resolve() }
            #expect(error?.message.contains(path) == true, "\(name): \(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(name): \(String(describing: error))")
            #expect(error?.message.contains("9c0041") == false)
        }
        expectKeyError(.keyTextNotHex) { _ = try KeySource.hex(.password("0g")).resolve() }
        // The key file's own rules come first.
        let open = try directory.write("open", hex, mode: 0o666)
        expectKeyError(.keyFileWritableByOthers) { _ = try KeySource.hex(.file(path: open)).resolve() }
        #expect("\(KeySource.hex(.password(hex)))" == "password (redacted), in hex")
    }
}

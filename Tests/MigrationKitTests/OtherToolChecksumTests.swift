import Foundation
@testable import MigrationKit
import Testing

/// The checksums other tools record, computed as those tools compute them: the values
/// here are what the tools' own code gives for the same input (refinery's, from Rust's
/// `DefaultHasher`, which is the SipHash-1-3 refinery keeps; Prisma's, from `sha256sum`).
@Suite struct OtherToolChecksumTests {
    @Test func refinerysChecksumIsRustsSipHash13OfNameVersionAndText() {
        #expect(RefineryChecksum.of(name: "initial", version: 1, sql: Array("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n".utf8))
                == 13_990_825_990_067_045_069)
        #expect(RefineryChecksum.of(name: "", version: 0, sql: []) == 7_633_159_278_355_933_011)
        #expect(RefineryChecksum.of(fileName: "V2__add_cars_and_motos_table.sql",
                                    bytes: Array("CREATE TABLE cars (id int);\r\nCREATE TABLE motos (id int);".utf8)) == 6_366_150_886_131_509_821)
        // refinery reads no other name.
        #expect(RefineryChecksum.of(fileName: "2__x.sql", bytes: []) == nil && RefineryChecksum.of(fileName: "V1.2__x.sql", bytes: []) == nil)
    }

    /// Prisma's: the SHA-256 of the text, or of it with its line endings changed either
    /// way, as lowercase hex, or without each byte's leading zero as early versions wrote
    /// it. The digest here is a stand-in that says which bytes it was given (the layer's
    /// SHA-256 is the real one, which the commands' tests go through), so that what is
    /// compared shows.
    @Test func prismasChecksumToleratesLineEndingsAndItsOldHex() {
        let lf = String(repeating: "0a", count: 32), crlf = String(repeating: "0d", count: 32), other = String(repeating: "ff", count: 32)
        let digest = { (bytes: [UInt8]) -> String in
            switch String(decoding: bytes, as: UTF8.self) {
            case "a\nb\n": return lf
            case "a\r\nb\r\n": return crlf
            default: return other
            }
        }
        #expect(PrismaChecksum.matches(Array("a\r\nb\r\n".utf8), recorded: lf, sha256Hex: digest))
        #expect(PrismaChecksum.matches(Array("a\nb\n".utf8), recorded: crlf.uppercased(), sha256Hex: digest))
        #expect(PrismaChecksum.matches(Array("a\nb\n".utf8), recorded: String(repeating: "a", count: 32), sha256Hex: digest), "early Prisma's unpadded hex of 0a… is a…")
        #expect(!PrismaChecksum.matches(Array("a\nb\nc\n".utf8), recorded: lf, sha256Hex: digest))
        #expect(!PrismaChecksum.matches(Array("a\nb\n".utf8), recorded: other, sha256Hex: digest))
    }
}

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

    /// The digests other tools' checksums are made of, against RFC 1321's and FIPS 180-4's
    /// "abc" and against Python's `hashlib` on inputs that end at, before and past a block's
    /// padding (55, 56, 64 and 1,280 bytes); SHA-256 fed in pieces is the same as at once.
    @Test func md5AndSHA256AreTheStandardOnes() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        let inputs: [(bytes: [UInt8], md5: String, sha256: String)] = [
            ([], "d41d8cd98f00b204e9800998ecf8427e", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Array("abc".utf8), "900150983cd24fb0d6963f7d28e17f72", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (Array(repeating: 0x61, count: 55), "ef1772b6dff9a122358552954ad0df65", "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (Array(repeating: 0x61, count: 56), "3b0c8ac703f828b04c6c197006d17218", "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (Array(repeating: 0x61, count: 64), "014842d480b571495a4a0363793f7367", "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (Array((0..<5).flatMap { _ in (0...255).map(UInt8.init) }), "82829f1f3f2bb0f18b25f278e5bba8bd", "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed"),
        ]
        for input in inputs {
            #expect(hex(Digest.md5(input.bytes)) == input.md5, "\(input.bytes.count) bytes")
            #expect(hex(Digest.sha256(input.bytes)) == input.sha256, "\(input.bytes.count) bytes")
            let pieces = SHA256Chain()
            for chunk in stride(from: 0, to: input.bytes.count, by: 7) {
                // Read part-way as Atlas's chain reads it: reading changes nothing.
                _ = pieces.digestSoFar
                pieces.add(Array(input.bytes[chunk..<min(chunk + 7, input.bytes.count)]))
            }
            #expect(hex(pieces.digestSoFar) == input.sha256, "\(input.bytes.count) bytes in pieces")
        }
    }

    /// Liquibase's version 9 checksum of a changeset: `9:` and the MD5 of `9:`, the MD5 of
    /// its SQL without blanks, and `:` (Python's `hashlib` gives the same).
    @Test func liquibasesChecksumIsOfTheSQLWithoutBlanks() {
        let sql = "CREATE TABLE notes (id INTEGER PRIMARY KEY);\nINSERT INTO notes VALUES (1);"
        #expect(LiquibaseChangelog.checksum(ofSQL: sql) == "9:8ef2cf9aa92d42b6aeb81fb4b04ee9c3")
        #expect(LiquibaseChangelog.checksum(ofSQL: "  " + sql.replacingOccurrences(of: " ", with: "\t\r\n") + "\n") == "9:8ef2cf9aa92d42b6aeb81fb4b04ee9c3")
    }

    /// A changelog is cut where Liquibase cuts it: its SQL is its lines but Liquibase's own
    /// (a `/* liquibase rollback */` block, `--rollback`, `--comment`, `--validCheckSum`),
    /// a quoted author loses its quotes, a `logicalFilePath` names the file, and what runs
    /// is the changeset's lines as they are, at their lines in the file.
    @Test func aFormattedChangelogIsCutAsLiquibaseCutsIt() throws {
        let text = """
            --liquibase formatted sql logicalFilePath:db/changelog/legacy.sql

            --changeset "bob smith":1 runInTransaction:false
            --comment: notes
            CREATE TABLE notes (id INTEGER PRIMARY KEY);
            --validCheckSum: 9:abc
            /* liquibase rollback
            DROP TABLE notes;
            */
            --changeset alice:2
            SELECT 2;
            --rollback not required
            """
        #expect(LiquibaseChangelog.isFormatted("\n  -- Liquibase  Formatted SQL\n") && !LiquibaseChangelog.isFormatted("-- a note\n--liquibase formatted sql\n"))
        let changesets = try LiquibaseChangelog.changesets(in: text, fileName: "001.sql", path: "m/001.sql")
        #expect(changesets.map(\.identifier) == ["legacy.sql::1::bob smith", "legacy.sql::2::alice"])
        #expect(changesets[0].sql == "CREATE TABLE notes (id INTEGER PRIMARY KEY);" && changesets[0].validChecksums == ["9:abc"])
        #expect(changesets[0].up.startLine == 4 && changesets[0].down?.sql == "DROP TABLE notes;\n\n" && changesets[0].down?.startLine == 8)
        #expect(changesets[0].noTransactionRequest?.line == 3 && changesets[1].noTransactionRequest == nil)
        #expect(changesets[1].sql == "SELECT 2;" && changesets[1].down?.sql == "SELECT 1;")
    }
}

import Foundation
@testable import MigrationKit
import MigrationKitTestSupport
@testable import MigrationKitSQLCipher
import Testing

/// The room asked for a copy (`CopyRoom`) against the copy `sqlcipher_export` then
/// writes, for databases whose rows pack differently on the copy's pages: never less
/// than the copy (or the disk check would pass and the copy stop half way), and not far
/// more (or a disk that can take the copy would be refused).
@Suite struct CopyRoomTests {
    static let shapes: [(String, String)] = [
        ("rows of half a 4 KB page", "CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB); INSERT INTO blobs (b) SELECT randomblob(2100) FROM n"),
        ("small integers", "CREATE TABLE counts (a INTEGER, b INTEGER, c INTEGER); INSERT INTO counts SELECT x % 100, x % 7, x FROM n"),
        ("text with indexes", """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT); CREATE INDEX notes_title ON notes (title);
            CREATE INDEX notes_body ON notes (substr(body, 1, 10));
            INSERT INTO notes (title, body) SELECT hex(randomblob(12)), hex(randomblob(abs(random() % 600))) FROM n
            """),
        ("rows larger than a page", "CREATE TABLE docs (body TEXT); INSERT INTO docs SELECT hex(randomblob(3000 + x % 5000)) FROM n"),
        ("a WITHOUT ROWID table", "CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID; INSERT INTO kv SELECT hex(randomblob(8)) || x, randomblob(300) FROM n"),
    ]

    /// A plaintext file of 1024-byte pages encrypted in the linked SQLCipher's format
    /// (4096-byte pages on SQLCipher 4, 1024 on 3.4.1).
    @Test(arguments: shapes)
    func theRoomAskedForIsAtLeastTheCopyAndNotFarMore(_ described: String, _ sql: String) throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.db")
        let made = try SQLCipherShell.run(plain, keyPragma: nil, """
            PRAGMA page_size = 1024;
            CREATE TEMP TABLE n (x INTEGER); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1500) INSERT INTO n SELECT x FROM c;
            \(sql);
            """)
        try #require(made.status == 0, "\(described): \(made.output)")
        let pageSize = SQLCipherLibrary.defaultPageSize
        let asked = try SQLCipherWriter(path: plain, key: nil).read {
            try CopyRoom.estimate($0, pageSize: pageSize, reserve: CopyRoom.encryptedPageReserve)
        }
        let copy = directory.path("copy.db")
        try DatabaseEncryption.encrypt(plaintextAt: plain, to: copy, key: .rawKey(Array(repeating: 3, count: 32)))
        let written = Int64(try fileBytes(copy).count)
        #expect(asked >= written, "\(described): asked \(asked) bytes for a \(written)-byte copy")
        #expect(Double(asked) <= Double(written) * 1.6 + 16_384, "\(described): asked \(asked) bytes for a \(written)-byte copy")
    }
}

import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitFiles
@testable import MigrationKitGRDB
import Testing
@testable import MigrationKitSecrets
/// `GRDBDatabaseFile`: a GRDB app's file opened as the SQLCipher connection opens its
/// own, private when created, with the core's verdict on a file that does not open.
@Suite struct GRDBDatabaseFileTests {
    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: WriterKind.allCases)
    func aNewDatabaseAndItsJournalsAreTheOwnersOnly(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let previous = umask(0o022)
        defer { umask(previous) }
        let writer: any DatabaseWriter = kind == .queue
            ? try GRDBDatabaseFile.openQueue(path: scratch.path)
            : try GRDBDatabaseFile.openPool(path: scratch.path)
        var runner = GRDBMigrationRunner()
        runner.registerMigration("0001_notes") { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY)") }
        try runner.migrate(in: writer)
        #expect(try mode(scratch.path) == 0o600)
        if kind == .pool {
            #expect(try mode(scratch.path + "-wal") == 0o600)
        }
        // GRDB's own open, for comparison: the umask's 0644.
        let other = scratch.folder.appendingPathComponent("grdb.sqlite").path
        _ = try DatabaseQueue(path: other)
        #expect(try mode(other) == 0o644)
    }

    /// Text, or pages that are not a database: the kind and sentence the SQLCipher
    /// connection gives, the file unchanged.
    @Test func aFileThatIsNoDatabaseGetsTheCoresVerdict() throws {
        let scratch = try ScratchDatabase()
        let text = Data("not a database, just text that is long enough to look like a header".utf8)
        try text.write(to: URL(fileURLWithPath: scratch.path))
        #expect {
            _ = try GRDBDatabaseFile.openQueue(path: scratch.path)
        } throws: { error in
            guard case DatabaseErrorKind.notADatabase = error else { return false }
            return error.localizedDescription == "\(scratch.path): The file is not a database (its size is not a whole number of database pages); check the path."
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == text)

        var pages = [UInt8](repeating: 0, count: 4096)
        for index in pages.indices { pages[index] = UInt8.random(in: 0...255) }
        try Data(pages).write(to: URL(fileURLWithPath: scratch.path))
        #expect {
            _ = try GRDBDatabaseFile.openPool(path: scratch.path)
        } throws: { error in
            (error as? UnreadableDatabaseError)?.kind == .keyRequired
                && error.localizedDescription.hasSuffix("The database is encrypted (or is not a database), and no key was given; pass its key.")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == Data(pages))
    }

    /// A creation stopped after its first page was committed leaves a complete database
    /// and its marker: a read-only open reads it and leaves the marker, which the next
    /// open that may write removes.
    @Test func aStaleCreationMarkerIsLeftByAReadOnlyOpenAndRemovedByAWriter() throws {
        let scratch = try ScratchDatabase()
        try GRDBDatabaseFile.openQueue(path: scratch.path).write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
        let marker = NewDatabaseFile.marker(for: scratch.path)
        #expect(FileManager.default.createFile(atPath: marker, contents: Data()))
        var readOnly = Configuration()
        readOnly.readonly = true
        #expect(try GRDBDatabaseFile.openQueue(path: scratch.path, configuration: readOnly).read { try $0.tableExists("notes") })
        #expect(FileManager.default.fileExists(atPath: marker))
        #expect(try GRDBDatabaseFile.openQueue(path: scratch.path).read { try $0.tableExists("notes") })
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// An empty file is someone else's (MigrationKit never leaves one behind): refused
    /// with the SQLCipher connection's sentence and left as it is; one with the
    /// creation's marker beside it was left by a creation that was stopped, and opening
    /// it finishes that creation.
    @Test func anEmptyFileIsRefusedUnlessItsCreationWasStopped() throws {
        let scratch = try ScratchDatabase()
        #expect(FileManager.default.createFile(atPath: scratch.path, contents: Data()))
        #expect {
            _ = try GRDBDatabaseFile.openQueue(path: scratch.path)
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_NOTADB
                && "\(error)".contains("\(scratch.path): The file is empty (0 bytes), so it is not a database; delete it to let a new database be created at this path.")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)).isEmpty)

        #expect(FileManager.default.createFile(atPath: NewDatabaseFile.marker(for: scratch.path), contents: Data()))
        let queue = try GRDBDatabaseFile.openQueue(path: scratch.path)
        #expect(try GRDBDatabaseFile.hasPages(queue))
        #expect(!FileManager.default.fileExists(atPath: NewDatabaseFile.marker(for: scratch.path)))
    }

    @Test func aMissingFolderIsOneSentenceAndNoFile() throws {
        let scratch = try ScratchDatabase()
        let path = scratch.folder.appendingPathComponent("missing/app.sqlite").path
        #expect {
            _ = try GRDBDatabaseFile.openQueue(path: path)
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_CANTOPEN && "\(error)".contains("cannot be created (No such file or directory)")
        }
    }

    #if !canImport(SQLCipher)
    /// On GRDB over the system's SQLite a key is refused before any file is made: that
    /// SQLite would write the database in plaintext.
    @Test func aKeyIsRefusedWhereGRDBCannotEncrypt() throws {
        let scratch = try ScratchDatabase()
        #expect {
            _ = try GRDBDatabaseFile.openQueue(path: scratch.path, key: .rawKey((0..<32).map { UInt8($0) }))
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_MISUSE && "\(error)".contains("cannot encrypt; build it on SQLCipher")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }
    #else
    /// A wrong key: `UnreadableDatabaseError` of kind `wrongKey` with the SQLCipher
    /// connection's sentence, through `GRDBDatabaseFile` and through
    /// `Configuration.useKey` alike, and no SQLCipher log line on standard error.
    @Test func aWrongKeyIsTheSameErrorAsTheSQLCipherConnectionsAndLogsNothing() throws {
        let scratch = try ScratchDatabase()
        let right = DatabaseKey.rawKey((0..<32).map { UInt8($0) })
        let wrong = DatabaseKey.rawKey((0..<32).map { UInt8(255 - $0) })
        let queue = try GRDBDatabaseFile.openQueue(path: scratch.path, key: right)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY)") }
        try queue.close()
        #expect(try mode(scratch.path) == 0o600)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))

        let stderr = try StandardErrorCapture()
        #expect {
            _ = try GRDBDatabaseFile.openQueue(path: scratch.path, key: wrong)
        } throws: { error in
            guard case DatabaseErrorKind.wrongKey = error else { return false }
            return error.localizedDescription.hasPrefix("\(scratch.path): Wrong key, or not a SQLCipher database: the key does not decrypt this file in any format tried (the defaults of SQLCipher 4, 3, 2 and 1)")
        }
        var configuration = Configuration()
        configuration.useKey(wrong)
        #expect {
            _ = try DatabaseQueue(path: scratch.path, configuration: configuration)
        } throws: { error in
            guard case DatabaseErrorKind.wrongKey = error else { return false }
            return error.localizedDescription.hasPrefix("\(scratch.path): Wrong key, or not a SQLCipher database: the key does not decrypt this file in any format tried (the defaults of SQLCipher 4)")
        }
        let logged = try stderr.finish()
        #expect(!logged.contains("ERROR") && !logged.contains("hmac"), "\(logged)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)
    }

    /// SQLCipher 1's format has no page HMACs: a wrong key tried in it decrypts page 1
    /// into noise that SQLite reads as a header, and one noise in 256 marks the file as
    /// WAL. Keys are tried on a scratch copy until one does (the same key makes the same
    /// noise of the same bytes); opened with that key while the app's other connection
    /// reads the database, which keeps a connection from removing a `-wal` and `-shm` it
    /// made, the database is left as it was: through format detection, and through
    /// `Configuration.useKey` with that format named.
    @Test func aWrongKeyWhoseNoiseMarksTheFileAsWALMakesNothingBesideIt() throws {
        let scratch = try ScratchDatabase()
        let right = DatabaseKey.rawKey((0..<32).map { UInt8($0) })
        let holder = try GRDBDatabaseFile.openQueue(path: scratch.path, key: right)
        try holder.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY); INSERT INTO notes DEFAULT VALUES;") }
        let copy = try ScratchDatabase()
        try FileManager.default.copyItem(atPath: scratch.path, toPath: copy.path)
        let candidates = (0..<4096).lazy.map { DatabaseKey.rawKey([UInt8($0 >> 8), UInt8($0 & 0xff)] + Array(repeating: 0x5a, count: 30)) }
        let wrong = try #require(candidates.first { noiseMarksWAL(copy.path, key: $0) }, "no key among 4096 made a WAL header of the noise")

        try holder.inDatabase { db in
            try db.execute(sql: "BEGIN")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") == 1)
            let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
            #expect {
                _ = try GRDBDatabaseFile.openQueue(path: scratch.path, key: wrong)
            } throws: { error in
                guard case DatabaseErrorKind.wrongKey = error else { return false }
                return true
            }
            var named = Configuration()
            named.useKey(wrong, format: .sqlcipher1)
            #expect {
                _ = try DatabaseQueue(path: scratch.path, configuration: named)
            } throws: { error in
                guard case DatabaseErrorKind.wrongKey = error else { return false }
                return true
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)
            let beside = try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path)
            #expect(beside == ["app.sqlite"])
            try db.execute(sql: "COMMIT")
        }
    }

    /// Whether `key` in SQLCipher 1's format makes SQLite open a WAL beside `path` (the
    /// header it decrypts says WAL): seen before the connection closes, which removes it.
    private func noiseMarksWAL(_ path: String, key: DatabaseKey) -> Bool {
        struct Seen: Error { let wal: Bool }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // As `Database.useKey` keys it, without its header proof.
            try key.withKeyText { try db.usePassphrase(Data($0)) }
            try db.execute(sql: "PRAGMA cipher_compatibility = 1")
            _ = try? Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            throw Seen(wal: FileManager.default.fileExists(atPath: path + "-wal"))
        }
        do {
            _ = try DatabaseQueue(path: path, configuration: configuration)
        } catch let seen as Seen {
            return seen.wal
        } catch {}
        return false
    }

    /// A new encrypted file gets its first page, and with it its salt, in the file itself
    /// (not only a pool's `-wal`) before the open returns, as the SQLCipher connection
    /// writes it: under the folder's lock, so another process keying the file finds the
    /// salt there. A second connection opened before the first writes then reads and
    /// writes the same database.
    @Test(arguments: WriterKind.allCases)
    func aNewEncryptedFileHasItsFirstPageWhenTheOpenReturns(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let key = DatabaseKey.rawKey((0..<32).map { UInt8($0) })
        func open() throws -> any DatabaseWriter {
            kind == .queue ? try GRDBDatabaseFile.openQueue(path: scratch.path, key: key)
                : try GRDBDatabaseFile.openPool(path: scratch.path, key: key)
        }
        let first = try open()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: scratch.path)[.size] as? NSNumber)
        #expect(size.intValue >= 4096)
        let second = try open()
        #expect(!FileManager.default.fileExists(atPath: NewDatabaseFile.marker(for: scratch.path)))
        try first.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('first')") }
        try second.write { try $0.execute(sql: "INSERT INTO notes VALUES ('second')") }
        try first.close()
        try second.close()
        let reopened = try GRDBDatabaseFile.openQueue(path: scratch.path, key: key)
        #expect(try reopened.read { try String.fetchAll($0, sql: "SELECT body FROM notes ORDER BY rowid") } == ["first", "second"])
    }

    @Test func aKeyForAPlaintextFileSaysSo() throws {
        let scratch = try ScratchDatabase()
        try GRDBDatabaseFile.openQueue(path: scratch.path).write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY)") }
        #expect {
            _ = try GRDBDatabaseFile.openQueue(path: scratch.path, key: .rawKey((0..<32).map { UInt8($0) }))
        } throws: { error in
            guard case DatabaseErrorKind.notEncrypted = error else { return false }
            return error.localizedDescription == "\(scratch.path): The database is not encrypted, but a key was given; encrypt it first, or open it without a key."
        }
    }
    #endif
}

#if canImport(SQLCipher)
/// This process's standard error, redirected to a file until `finish()`: what a library
/// call printed there. Tests run in parallel, so only what no other test prints may be
/// looked for (SQLCipher's log lines).
final class StandardErrorCapture {
    private let saved: Int32
    private let file: String
    private var finished = false

    init() throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        saved = dup(STDERR_FILENO)
        dup2(descriptor, STDERR_FILENO)
        close(descriptor)
    }

    func finish() throws -> String {
        finished = true
        dup2(saved, STDERR_FILENO)
        close(saved)
        defer { unlink(file) }
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    deinit { if !finished { _ = try? finish() } }
}
#endif

import CSQLCipher
import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct ConnectionTests {
    @Test func createdDatabaseIsEncryptedPrivateAndReadableByTheShell() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: .passphrase("s3cret pass"))
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
                try db.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: ["hello"])
                // What a Swift step that inserts a row reads next, as on GRDB's Database.
                #expect(db.lastInsertedRowID == 1 && db.changesCount == 1)
            }
        }
        let header = try fileBytes(path).prefix(16)
        #expect(header != Data("SQLite format 3\0".utf8))
        #expect(try fileMode(path) == 0o600)

        let shell = try SQLCipherShell.run(path, keyPragma: "'s3cret pass'", "SELECT body FROM notes;")
        #expect(shell.status == 0)
        #expect(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hello")

        let wrong = try SQLCipherShell.run(path, keyPragma: "'other'", "SELECT body FROM notes;")
        #expect(wrong.status != 0)
    }

    @Test func rawKeyMatchesTheShellsRawKeyPragma() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("raw.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (42);") }
        }
        let shell = try SQLCipherShell.run(path, keyPragma: DatabaseKey.testRawKeyPragma, "SELECT a FROM t;")
        #expect(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "42")
        // And a database the shell creates opens here.
        let shellPath = directory.path("from-shell.db")
        let created = try SQLCipherShell.run(shellPath, keyPragma: DatabaseKey.testRawKeyPragma, "CREATE TABLE s (b); INSERT INTO s VALUES ('x');")
        #expect(created.status == 0)
        let writer = try SQLCipherWriter(path: shellPath, key: .testRawKey)
        #expect(try writer.read { try $0.fetchString(sql: "SELECT b FROM s") } == "x")
    }

    @Test func wrongKeyIsDistinctAndLeavesTheFileUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        }
        let before = try fileBytes(path)
        #expect {
            _ = try SQLCipherWriter(path: path, key: .passphrase("wrong"))
        } throws: { error in
            guard let error = error as? SQLCipherError else { return false }
            return error.kind == .wrongKey && error.resultCode == .SQLITE_NOTADB
                && error.description.contains("Wrong key") && !error.description.contains("wrong\"")
        }
        #expect(try fileBytes(path) == before)
    }

    /// Without page HMACs (format detection's last attempts, or the settings given so),
    /// a wrong key decrypts page 1 into noise that SQLite reads as a header, and one
    /// noise in 256 marks the file as WAL. Keys are tried on a scratch copy until one
    /// does (the same key makes the same noise of the same bytes); opened with that key
    /// while another connection reads the database, which keeps an ordinary connection
    /// from removing a `-wal` and `-shm` it made, the database is left as it was.
    @Test func aWrongKeyWhoseNoiseMarksTheFileAsWALMakesNothingBesideIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);") }
        }
        let scratch = directory.path("scratch.db")
        try FileManager.default.copyItem(atPath: path, toPath: scratch)
        let withoutHMACs = CipherSettings(usesHMAC: false)
        let candidates = (0..<4096).lazy.map { DatabaseKey.rawKey([UInt8($0 >> 8), UInt8($0 & 0xff)] + Array(repeating: 0x5a, count: 30)) }
        let wrong = try #require(try candidates.first { try noiseMarksWAL(scratch, key: $0, settings: withoutHMACs) },
                                 "no key among 4096 made a WAL header of the noise")

        let reader = try SQLCipherDatabase.open(path: path, readOnly: true, busyTimeout: .seconds(5))
        defer { reader.close() }
        try reader.applyKey(.testRawKey)
        try reader.execute(sql: "BEGIN")
        #expect(try reader.fetchInt(sql: "SELECT count(*) FROM t") == 1)
        let before = try fileBytes(path)
        var given = SQLCipherWriter.Configuration()
        given.cipher = withoutHMACs
        for configuration in [SQLCipherWriter.Configuration(), given] {
            #expect {
                _ = try SQLCipherWriter(path: path, key: wrong, configuration: configuration)
            } throws: { error in
                (error as? SQLCipherError)?.kind == .wrongKey
            }
            #expect(try fileBytes(path) == before)
            let beside = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("app.db") }
            #expect(beside == ["app.db"], "detecting: \(configuration.cipher.isDefault)")
        }
        try reader.execute(sql: "COMMIT")
    }

    /// Whether `key` in `settings` makes SQLite open a WAL beside `path` (the header it
    /// decrypts says WAL): seen while the connection is open, which removes it on close.
    private func noiseMarksWAL(_ path: String, key: DatabaseKey, settings: CipherSettings) throws -> Bool {
        let database = try SQLCipherDatabase.open(path: path, readOnly: false, busyTimeout: .zero)
        defer { database.close() }
        try database.applyKey(key)
        try CipherSettingsApplier.apply(settings, to: database)
        _ = try? database.fetchInt(sql: "SELECT count(*) FROM sqlite_master")
        return FileManager.default.fileExists(atPath: path + "-wal")
    }

    @Test func plaintextDatabaseOpenedWithAKeyIsNotEncryptedError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: nil)
            try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);") }
        }
        #expect(try fileBytes(path).prefix(16) == Data("SQLite format 3\0".utf8))
        let before = try fileBytes(path)
        expectError(SQLCipherError.Kind.notEncrypted) { _ = try SQLCipherWriter(path: path, key: .testPassphrase) }
        #expect(try fileBytes(path) == before)
        // And without a key it opens.
        let writer = try SQLCipherWriter(path: path, key: nil)
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT a FROM t") } == 1)
    }

    @Test func garbageFilesAreNotDatabasesWithOrWithoutAKey() throws {
        let directory = try TemporaryDirectory()
        let odd = directory.path("odd.bin")
        try Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: odd))
        let before = try fileBytes(odd)
        expectError(SQLCipherError.Kind.notADatabase) { _ = try SQLCipherWriter(path: odd, key: .testPassphrase) }
        expectError(SQLCipherError.Kind.notADatabase) { _ = try SQLCipherWriter(path: odd, key: nil) }
        #expect(try fileBytes(odd) == before)

        // Page-sized random bytes cannot be told from an encrypted file: with a key it is
        // "wrong key, or not a SQLCipher database", without one "encrypted, key required".
        let paged = directory.path("paged.bin")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: paged))
        let pagedBefore = try fileBytes(paged)
        expectError(SQLCipherError.Kind.wrongKey) { _ = try SQLCipherWriter(path: paged, key: .testPassphrase) }
        expectError(SQLCipherError.Kind.keyRequired) { _ = try SQLCipherWriter(path: paged, key: nil) }
        #expect(try fileBytes(paged) == pagedBefore)
    }

    @Test func encryptedDatabaseWithoutAKeyAsksForOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        }
        let before = try fileBytes(path)
        expectError(SQLCipherError.Kind.keyRequired) { _ = try SQLCipherWriter(path: path, key: nil) }
        #expect(try fileBytes(path) == before)
    }

    @Test func pathsThatAreNotDatabaseFilesGetPlainSentences() throws {
        let directory = try TemporaryDirectory()
        #expect {
            _ = try SQLCipherWriter(path: directory.url.path, key: .testRawKey)
        } throws: { error in
            (error as? SQLCipherError)?.kind == .cannotOpen && "\(error)".contains("directory")
        }
        var configuration = SQLCipherConfiguration()
        configuration.createIfMissing = false
        let missing = directory.path("missing.db")
        expectError(SQLCipherError.Kind.cannotOpen) {
            _ = try SQLCipherWriter(path: missing, key: .testRawKey, configuration: configuration)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        expectError(SQLCipherError.Kind.cannotOpen) {
            _ = try SQLCipherWriter(path: directory.path("no/such/dir/x.db"), key: .testRawKey)
        }
    }

    @Test func anEmptyFileIsNotTakenOver() throws {
        // SQLite would quietly turn it into a database; it may be someone else's file.
        let directory = try TemporaryDirectory()
        let path = directory.path("empty.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect {
            _ = try SQLCipherWriter(path: path, key: .testRawKey)
        } throws: { error in
            (error as? SQLCipherError)?.kind == .notADatabase && "\(error)".contains("empty")
        }
        #expect(try fileBytes(path).isEmpty)
    }

    @Test func aCreationInterruptedBeforeItsFirstPageIsFinishedByTheNextOpen() throws {
        // What a process killed between creating the file and writing page 1 leaves:
        // an empty file, and the hidden creation marker beside it.
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(FileManager.default.createFile(atPath: NewDatabaseFile.marker(for: path), contents: Data()))
        var readOnly = SQLCipherConfiguration()
        readOnly.createIfMissing = false
        #expect {
            _ = try SQLCipherWriter(path: path, key: .testRawKey, configuration: readOnly)
        } throws: { error in
            (error as? SQLCipherError)?.kind == .cannotOpen && "\(error)".contains("never completely created")
        }
        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        #expect(try fileBytes(path).count >= 1024)
        #expect(!FileManager.default.fileExists(atPath: NewDatabaseFile.marker(for: path)))
        #expect(try SQLCipherWriter(path: path, key: .testRawKey).read { try $0.tableExists("t") })
    }

    /// Killed after page 1 was committed, before the marker was removed: the database is
    /// complete. A read-only open reads it and leaves the folder as it was; the next open
    /// that may write removes the marker.
    @Test func aStaleCreationMarkerBesideACompleteDatabaseIsIgnoredAndOnlyAWriterRemovesIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try SQLCipherWriter(path: path, key: .testRawKey).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        #expect(FileManager.default.createFile(atPath: NewDatabaseFile.marker(for: path), contents: Data()))
        var readOnly = SQLCipherConfiguration()
        readOnly.createIfMissing = false
        readOnly.readOnly = true
        #expect(try SQLCipherWriter(path: path, key: .testRawKey, configuration: readOnly).read { try $0.tableExists("t") })
        #expect(FileManager.default.fileExists(atPath: NewDatabaseFile.marker(for: path)))
        var existing = SQLCipherConfiguration()
        existing.createIfMissing = false
        #expect(try SQLCipherWriter(path: path, key: .testRawKey, configuration: existing).read { try $0.tableExists("t") })
        #expect(!FileManager.default.fileExists(atPath: NewDatabaseFile.marker(for: path)))
    }

    @Test func aNewDatabaseHasItsHeaderWrittenAtOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.db")
        _ = try SQLCipherWriter(path: path, key: .testRawKey)
        let bytes = try fileBytes(path)
        #expect(bytes.count >= 512)
        #expect(bytes.prefix(16) != Data("SQLite format 3\0".utf8))
        #expect(try SQLCipherShell.run(path, keyPragma: DatabaseKey.testRawKeyPragma, "SELECT count(*) FROM sqlite_master;").stdout.hasPrefix("0"))
    }

    @Test func unusableKeysAreRefusedBeforeTheFileIsCreated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.db")
        expectError(SQLCipherError.Kind.invalidKey) { _ = try SQLCipherWriter(path: path, key: .passphrase("")) }
        expectError(SQLCipherError.Kind.invalidKey) { _ = try SQLCipherWriter(path: path, key: .rawKey([1, 2, 3])) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func keysNeverAppearInDescriptions() throws {
        let secret = "hunter2-very-secret"
        let key = DatabaseKey.passphrase(secret)
        #expect(!"\(key)".contains(secret))
        #expect(!String(reflecting: key).contains(secret))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(secret))
        let raw = DatabaseKey.rawKey(Array(repeating: 0xAB, count: 32))
        #expect(!"\(raw)".lowercased().contains("abab"))

        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        _ = try SQLCipherWriter(path: path, key: .testRawKey).write { try $0.execute(sql: "CREATE TABLE t (a)") }
        do {
            _ = try SQLCipherWriter(path: path, key: key)
            Issue.record("a wrong key opened the database")
        } catch {
            #expect(!"\(error)".contains(secret))
            #expect(!String(reflecting: error).contains(secret))
        }
    }

    @Test func multiStatementFailuresNameTheStatementLine() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let sql = """
            -- a comment; with a semicolon
            CREATE TABLE a (x);

            /* block
               comment */
            INSERT INTO a VALUES ('one;two');
            INSERT INTO missing_table VALUES (1);
            INSERT INTO a VALUES (3);
            """
        #expect {
            try writer.write { try $0.execute(sql: sql) }
        } throws: { error in
            guard let error = error as? SQLCipherError, let location = error.location else { return false }
            return location.line == 7 && location.statementIndex == 3
                && error.sql == "INSERT INTO missing_table VALUES (1);"
                && error.message.contains("missing_table")
        }
        // The transaction rolled back: nothing of the text remains.
        #expect(try writer.read { try $0.tableExists("a") } == false)
    }

    @Test func failureInsideAStepRunningStatementIsLocatedToo() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        #expect {
            try writer.write { try $0.execute(sql: "CREATE TABLE a (x UNIQUE);\nINSERT INTO a VALUES (1);\nINSERT INTO a VALUES (1);") }
        } throws: { error in
            guard let error = error as? SQLCipherError else { return false }
            return error.location?.line == 3 && error.resultCode == .SQLITE_CONSTRAINT_UNIQUE
                && ResultCode.SQLITE_CONSTRAINT ~= error.resultCode
        }
    }

    /// SQLCipher does not encrypt temporary files, so every connection keeps them in
    /// memory (2 is MEMORY), whatever the library was built with; read-only ones too.
    @Test func temporaryFilesStayInMemory() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        #expect(try writer.read { try $0.fetchInt(sql: "PRAGMA temp_store") } == 2)
        var readOnly = SQLCipherWriter.Configuration()
        readOnly.readOnly = true
        let reader = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey, configuration: readOnly)
        #expect(try reader.read { try $0.fetchInt(sql: "PRAGMA temp_store") } == 2)
    }

    /// A closed writer refuses every later call with a sentence, and never reaches the
    /// closed C connection; closing from inside its own closure is refused too.
    @Test func aClosedWriterRefusesEveryCall() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        #expect { try writer.write { _ in try writer.close() } } throws: { ($0 as? SQLCipherError)?.kind == .misuse }
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        try writer.close()
        try writer.close()
        for call in [{ try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM t") } }, { try writer.write { try $0.fetchInt(sql: "SELECT 1") } }] {
            #expect { _ = try call() } throws: { error in
                guard let error = error as? SQLCipherError else { return false }
                return error.kind == .misuse && error.message.contains("closed")
            }
        }
        // A connection closed under a caller's feet answers as no connection, and
        // refuses SQL, keys and copies with the same sentence.
        let other = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try other.writeWithoutTransaction { db in
            db.close()
            #expect(!db.isInsideTransaction && db.changesCount == 0 && !db.isReadOnly)
            #expect { try db.execute(sql: "SELECT 1") } throws: { ($0 as? SQLCipherError)?.kind == .misuse }
            #expect { try db.applyKey(.testRawKey) } throws: { ($0 as? SQLCipherError)?.kind == .misuse }
        }
        // The file was left complete: another connection reads it.
        #expect(try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey).read { try $0.tableExists("t") })
    }

    /// The extended codes are built from their primary codes, as SQLite's macros are:
    /// each must be exactly what the linked library reports.
    @Test func extendedCodesAreTheOnesSQLiteReports() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE p (id INTEGER PRIMARY KEY, u UNIQUE, n NOT NULL); CREATE TABLE c (p REFERENCES p(id)); INSERT INTO p VALUES (1, 1, 1)") }
        let cases: [(String, ResultCode)] = [
            ("INSERT INTO p VALUES (1, 2, 2)", .SQLITE_CONSTRAINT_PRIMARYKEY),
            ("INSERT INTO p VALUES (2, 1, 2)", .SQLITE_CONSTRAINT_UNIQUE),
            ("INSERT INTO p VALUES (3, 3, NULL)", .SQLITE_CONSTRAINT_NOTNULL),
            ("INSERT INTO c VALUES (404)", .SQLITE_CONSTRAINT_FOREIGNKEY),
        ]
        for (sql, code) in cases {
            #expect("\(sql)") {
                try writer.writeWithoutTransaction { db in
                    try db.setForeignKeysEnabled(true)
                    try db.execute(sql: sql)
                }
            } throws: { ($0 as? SQLCipherError)?.resultCode == code }
        }
        // Two that are hard to provoke here, against sqlite.org/rescode.html's numbers.
        #expect(ResultCode.SQLITE_CONSTRAINT_COMMITHOOK.rawValue == 531 && ResultCode.SQLITE_READONLY_DIRECTORY.rawValue == 1544)
    }

    /// The core's `ResultCode` links no SQLite, yet describes a code in the linked
    /// library's words, as an I/O error's explanation shows them ("522 (disk I/O error)").
    @Test func aCodeIsDescribedInTheLinkedLibrarysWords() {
        for code in [ResultCode.SQLITE_NOTADB, .SQLITE_FULL, .SQLITE_IOERR_WRITE, .SQLITE_CONSTRAINT_FOREIGNKEY] {
            #expect(code.description == "\(code.rawValue) (\(SQLCipherDatabase.words(for: code.rawValue)))")
        }
        let cause = FailureExplanation.forSQLite(resultCode: .SQLITE_IOERR_WRITE)?.cause
        #expect(cause == "the disk reported an I/O error (778 (\(SQLCipherDatabase.words(for: 778))))")
    }

    @Test func readIsReadOnlyAndConsistent() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        expectError(ResultCode.SQLITE_READONLY) {
            try writer.read { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        try writer.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test func reentrantCallsThrowInsteadOfDeadlocking() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        expectError(SQLCipherError.Kind.misuse) {
            try writer.write { _ in try writer.read { _ in } }
        }
    }

    /// The loaded-schema lookup the foreign-key graph uses must answer as `tableExists`
    /// does: tables of the main database only, names compared as SQLite compares them.
    @Test func theLoadedSchemaLookupAnswersAsTableExistsDoes() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let module = SQLCipherLibrary.compileOptions.contains("ENABLE_FTS5") ? "fts5" : "fts4"
        try writer.write { db throws in
            try db.execute(sql: #"""
                CREATE TABLE "Odd ""Name""" (id INTEGER PRIMARY KEY AUTOINCREMENT);
                CREATE VIEW v AS SELECT 1;
                CREATE VIRTUAL TABLE docs USING \#(module)(body);
                CREATE TEMP TABLE scratch (x);
                """#)
            for name in ["Odd \"Name\"", "ODD \"NAME\"", "odd \"name\"", "docs", "sqlite_sequence", "v", "scratch", "nope", "Ödd \"Name\""] {
                #expect(try db.loadedSchemaHasTable(name) == db.tableExists(name), "\(name)")
            }
        }
    }

    @Test func schemaHelpersDescribeTablesColumnsAndIndexes() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { db throws in
            try db.execute(sql: #"""
                CREATE TABLE "odd ""name""" (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT 'x', n INT);
                CREATE UNIQUE INDEX odd_title ON "odd ""name"""(title, n);
                """#)
        }
        try writer.read { db throws in
            #expect(try db.tableExists("odd \"name\""))
            #expect(try db.tableExists("ODD \"NAME\""))
            #expect(try !db.tableExists("nope"))
            let columns = try db.columns(in: "odd \"name\"")
            #expect(columns.map(\.name) == ["id", "title", "n"])
            #expect(columns[1].isNotNull && columns[1].defaultValueSQL == "'x'")
            #expect(columns[0].primaryKeyIndex == 1)
            let indexes = try db.indexes(on: "odd \"name\"")
            #expect(indexes.map(\.name) == ["odd_title"])
            #expect(indexes[0].isUnique && indexes[0].columns == ["title", "n"])
        }
    }

    @Test func versionsComeFromTheLinkedSQLCipher() throws {
        let version = try #require(SQLCipherLibrary.cipherVersion)
        #expect(version.major >= 3)
        #expect(SQLCipherLibrary.sqliteVersion.hasPrefix("3."))
        // The shell is the same library: it must report the same SQLCipher version.
        let shell = try SQLCipherShell.run(":memory:", keyPragma: nil, "PRAGMA cipher_version;")
        #expect(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == SQLCipherLibrary.cipherVersionString)
    }

    /// The headers this build compiled against belong to the library it runs on. Both
    /// SQLCipher configurations build in one scratch path (scripts/swift-env.sh): a clang
    /// module kept from the other's headers would compile against one SQLite and call
    /// another.
    @Test func theHeadersCompiledAgainstAreTheLinkedLibrarys() {
        #expect(sqlite3_libversion_number() == SQLITE_VERSION_NUMBER)
        #expect(String(cString: sqlite3_libversion()) == SQLITE_VERSION)
    }

    /// `scripts/test.sh` says which configuration it built; a build that silently linked
    /// the other SQLCipher (as SwiftPM's link order once made it) fails here.
    @Test func thisRunIsOnTheSQLCipherItClaims() throws {
        let version = try #require(SQLCipherLibrary.cipherVersion)
        guard let expected = TestPlatform.expectedSQLCipherMajor else {
            #expect(!TestPlatform.isCI, "CI must run through scripts/test.sh, which names the SQLCipher configuration")
            return
        }
        #expect(version.major == expected, "linked \(version), expected SQLCipher \(expected)")
        let shell = try SQLCipherShell.run(":memory:", keyPragma: nil, "PRAGMA cipher_version;")
        #expect(shell.stdout.hasPrefix("\(expected)."), "the sqlcipher shell at \(SQLCipherShell.path) is \(shell.stdout)")
    }

    @Test func thisProcessNeverLoadsThePlainSQLiteLibrary() throws {
        // libsqlite3 and libsqlcipher export the same symbols; loading both would
        // silently route some calls to the unencrypted library.
        // (/proc files report size 0, so read them to the end rather than by size.)
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let loadsSQLCipher = maps.contains("libsqlcipher")
        let loadsPlainSQLite = maps.contains("libsqlite3")
        #expect(loadsSQLCipher)
        #expect(!loadsPlainSQLite)
    }
}

/// What a rolled-back transaction leaves in the connection's memory.
@Suite struct RolledBackTransactionTests {
    /// Bytes of page cache the connection holds now.
    private func cachedBytes(_ db: SQLCipherDatabase) -> Int32 {
        var current: Int32 = 0
        var highwater: Int32 = 0
        sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highwater, 0)
        return current
    }

    /// SQLCipher puts each page back from the journal's encrypted image and
    /// re-initialises the pages in use (page 1 always) before decrypting them: about once
    /// in 6,000 rollbacks on SQLCipher 4 the ciphertext passes for a b-tree page. The
    /// next transaction drops the cache only when it sees the file changed, which a
    /// transaction that never touched page 1 does not show, so the rollback drops it.
    @Test func aRolledBackTransactionLeavesNoPageInMemory() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: """
            CREATE TABLE t (a);
            INSERT INTO t SELECT zeroblob(3000) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 200) SELECT n FROM c);
            """) }
        struct Abandoned: Error {}
        try writer.writeWithoutTransaction { db throws in
            var during: Int32 = 0
            #expect(throws: Abandoned.self) {
                try db.inTransaction(.immediate) {
                    // Every page read, and one row rewritten in place: page 1 unchanged.
                    #expect(try db.fetchInt(sql: "SELECT count(*) FROM t WHERE length(a) = 3000") == 200)
                    try db.execute(sql: "UPDATE t SET a = zeroblob(3000) WHERE rowid = 7")
                    during = cachedBytes(db)
                    throw Abandoned()
                }
            }
            #expect(during > 150 * 4096)
            #expect(cachedBytes(db) < 20 * 4096, "\(cachedBytes(db)) bytes of pages kept after the rollback")
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM t") == 200)
        }
    }
}

@Suite struct DatabaseKeyTests {
    @Test func keyTextRoundTripsBothKinds() throws {
        let raw = DatabaseKey.testRawKey
        let text = raw.withKeyText { SecretBytes(copying: $0) }
        let parsed = DatabaseKey(keyText: text)
        #expect(parsed.kind == .rawKey && parsed.isSameKey(as: raw))
        let upper = DatabaseKey(keyText: SecretBytes(copying: Array("X'0102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20'".utf8)))
        #expect(upper.isSameKey(as: raw))

        let passphrase = DatabaseKey.passphrase("x'not hex'")
        #expect(DatabaseKey(keyText: passphrase.withKeyText { SecretBytes(copying: $0) }).kind == .passphrase)
        // 63 hex digits is not a raw key, so it is a passphrase.
        let short = DatabaseKey(keyText: SecretBytes(copying: Array(("x'" + String(repeating: "a", count: 63) + "'").utf8)))
        #expect(short.kind == .passphrase)
    }
}

@Suite struct StatementCacheTests {
    @Test func aQueryRunAgainInsideItsOwnRowLoopGetsItsOwnStatement() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2), (3);") }
        var pairs: [Int] = []
        try writer.read { db in
            try db.forEachRow(sql: "SELECT a FROM t ORDER BY a") { row in
                let inner = try db.fetchInt(sql: "SELECT a FROM t ORDER BY a") ?? 0
                pairs.append((row[0].int ?? 0) * 10 + inner)
            }
        }
        #expect(pairs == [11, 21, 31])
    }

    @Test func aPartlyReadQueryDoesNotKeepItsReadLock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let one = try SQLCipherWriter(path: path, key: .testRawKey)
        try one.write { try $0.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2);") }
        // fetchOne stops after the first row; the statement must be reset, or its
        // SHARED lock would keep the other connection from committing.
        _ = try one.writeWithoutTransaction { try $0.fetchInt(sql: "SELECT a FROM t") }
        var quick = SQLCipherConfiguration()
        quick.busyTimeout = .milliseconds(200)
        let two = try SQLCipherWriter(path: path, key: .testRawKey, configuration: quick)
        try two.write { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try one.read { try $0.fetchInt(sql: "SELECT count(*) FROM t") } == 3)
    }
}

/// The key MigrationKit derives from a passphrase SQLCipher would take for a raw key
/// (`PassphraseDerivation`) is the key SQLCipher derives from a passphrase: a database the
/// shell keyed with a passphrase opens with the raw key and salt derived from it, in the
/// linked library's format and, on SQLCipher 4, in SQLCipher 3's.
@Suite struct PassphraseDerivationTests {
    @Test(.tags(.passphrase)) func theDerivedKeyIsTheKeySQLCipherDerives() throws {
        let directory = try TemporaryDirectory()
        let formats: [CipherSettings] = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4
            ? [CipherSettings(), CipherSettings(compatibility: 3)] : [CipherSettings()]
        for (index, settings) in formats.enumerated() {
            let path = directory.path("passphrase\(index).db")
            let compatibility = settings.compatibility.map { "PRAGMA cipher_compatibility = \($0);" } ?? ""
            let made = try SQLCipherShell.run(path, keyPragma: "'a passphrase'", "\(compatibility) CREATE TABLE t (a); INSERT INTO t VALUES (42);")
            try #require(made.status == 0, "\(made.output)")
            let salt = Array(try fileBytes(path).prefix(16))
            let derived = try PassphraseDerivation.derivedKey(from: .passphrase("a passphrase"), salt: salt, settings: settings)
            #expect(derived.rawKeyForm == .keyAndSalt)
            var configuration = SQLCipherConfiguration()
            configuration.createIfMissing = false
            configuration.cipher = settings
            let writer = try SQLCipherWriter(path: path, key: derived, configuration: configuration)
            #expect(try writer.read { try $0.fetchInt(sql: "SELECT a FROM t") } == 42, "\(settings)")
            try writer.close()
        }
    }
}

/// What only the app registers, given to the runner's connections the way an app does:
/// `SQLCipherConfiguration.prepareDatabase` runs the app's own registration on each
/// connection (here, the app's extension through SQLCipher's C API, with loading on for
/// that call only): a migration runs through the app's triggers, and the verification
/// checks the app's full-text index. Without it, the step fails naming the function, and
/// the verification passes what it can check, naming the index it could not.
@Suite struct AppRegistrationRunnerTests {
    static func registerTheAppsExtension(_ db: SQLCipherDatabase) throws {
        let handle = db.sqliteConnection
        var now: Int32 = 0
        _ = migrationkit_db_config_flag(handle, 1005 /* SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION */, 1, &now)
        defer { _ = migrationkit_db_config_flag(handle, 1005, 0, &now) }
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_load_extension(handle, try AppExtensionFixture.path, nil, &error)
        defer { sqlite3_free(error) }
        guard code == SQLITE_OK else { throw SQLCipherError(kind: .sqlite, message: error.map { String(cString: $0) } ?? "load failed") }
    }

    @Test func prepareDatabaseGivesTheRunnerWhatOnlyTheAppRegisters() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let made = try SQLCipherShell.run(path, keyPragma: DatabaseKey.testRawKeyPragma, """
            .load \(try AppExtensionFixture.path)
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, sort TEXT);
            CREATE TRIGGER books_ai AFTER INSERT ON books BEGIN UPDATE books SET sort = app_sort(new.title) WHERE id = new.id; END;
            CREATE VIRTUAL TABLE notes_fts USING fts4(body, tokenize=app_words);
            INSERT INTO notes_fts VALUES ('Milk and BREAD');
            """)
        try #require(made.status == 0, "\(made.output)")
        let runner = try SQLCipherMigrationRunner(steps: [SQLCipherMigrationStep(
            identifier: "0001_book",
            apply: { db in try db.execute(sql: "INSERT INTO books (title) VALUES ('The Hobbit')") },
            rollback: { db in try db.execute(sql: "DELETE FROM books") })])
        var configuration = SQLCipherConfiguration()
        configuration.createIfMissing = false
        do {
            let plain = try SQLCipherWriter(path: path, key: .testRawKey, configuration: configuration)
            #expect { try runner.migrate(in: plain) } throws: { error in
                (error as? MigrationStepError)?.appExtensionNeed == AppExtensionNeed(.function, "app_sort")
            }
            let report = try runner.verificationReport(in: plain)
            #expect(report.passed && report.unmetNeeds == [AppExtensionNeed(.tokenizer, "app_words")], "\(report.checks.map(\.detail))")
            try plain.close()
        }
        configuration.prepareDatabase = { try Self.registerTheAppsExtension($0) }
        let app = try SQLCipherWriter(path: path, key: .testRawKey, configuration: configuration)
        try runner.migrate(in: app)
        #expect(try app.read { try $0.fetchString(sql: "SELECT sort FROM books") } == "Hobbit")
        let report = try runner.verificationReport(in: app)
        #expect(report.passed && report.unmetNeeds.isEmpty, "\(report.checks.map(\.detail))")
        try runner.rollbackLastMigration(in: app)
    }
}

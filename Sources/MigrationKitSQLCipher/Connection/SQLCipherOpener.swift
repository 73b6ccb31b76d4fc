#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import MigrationKit
import SystemPackage

/// Opens, keys and proves a connection: the only place a `DatabaseKey` meets SQLCipher.
///
/// Order matters and follows SQLCipher's rules: key first, cipher settings right after
/// the key and before anything reads the file, then one read of `sqlite_master`
/// because keying never fails by itself (a wrong key is only noticed at the first
/// read, as SQLITE_NOTADB). Nothing here writes to an existing file, so every failure
/// leaves it byte-for-byte unchanged.
enum SQLCipherOpener {
    static func open(path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration) throws -> SQLCipherDatabase {
        try key?.validateForOpening()
        if key == nil, !configuration.cipher.isDefault {
            throw SQLCipherError(
                kind: .unsupportedCipherSetting,
                message: "Cipher settings apply to encrypted databases only, but no key was given.",
                path: path)
        }
        do {
            // Before any file is looked at or created: settings that cannot work must
            // not leave a file behind that later runs cannot open.
            try CipherSettingsApplier.validate(configuration.cipher)
            if path == ":memory:" { return try openExisting(path: path, key: key, configuration: configuration) }
            let connecting = connecting(path: path, key: key, configuration: configuration)
            let state = try asConnectionError { try NewDatabaseFile.state(of: path) }
            if state == .existing {
                return try openExisting(path: path, key: key, configuration: configuration)
            }
            if configuration.createIfMissing, !configuration.readOnly {
                // A new database: the key must be one the linked SQLCipher reads as given.
                try key?.validate()
                let (database, created) = try asConnectionError {
                    try NewDatabaseFile.create(at: path, timeout: configuration.busyTimeout, connecting)
                }
                database.createdFile = created
                return database
            }
            guard state != .missing else {
                throw SQLCipherError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                                     message: "No database exists at this path; check the path.")
            }
            return try asConnectionError { try NewDatabaseFile.openWithoutCreating(at: path, timeout: configuration.busyTimeout,
                                                                                   writing: !configuration.readOnly, connecting) }
        } catch let error as SQLCipherError {
            throw error.path == nil ? error.at(path: path) : error
        }
    }

    /// Opens, keys and proves an existing (or empty, being created) file; one with a
    /// journal, or a `-wal` and `-shm`, left beside it (`LeftoverJournal`) only after a
    /// private copy proved the key (and the journal its own), and read-only on that
    /// copy, so a look never applies a journal nor removes what it did not make.
    private static func openExisting(path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration, attempt: Int = 1) throws -> SQLCipherDatabase {
        guard path != ":memory:", let leftover = LeftoverJournal.find(beside: path) else {
            return try openInPlace(path: path, key: key, configuration: configuration)
        }
        // Nil: a journal was gone by the time it was copied; its owner finished with it.
        guard let copy = try openCopy(of: path, provingJournal: leftover, key: key, configuration: configuration) else {
            guard attempt < 3 else { return try openInFormat(path: path, key: key, configuration: configuration) }
            return try openExisting(path: path, key: key, configuration: configuration, attempt: attempt + 1)
        }
        if configuration.readOnly { return copy }
        // The journal is the database's own: SQLite may apply it to the file itself,
        // in the format the copy found (one key derivation, not one per format).
        var found = configuration
        found.cipher = copy.cipherSettings
        copy.close()
        return try openInFormat(path: path, key: key, configuration: found, detectingFormat: false)
    }

    /// Opens the file itself. A look (`readOnly`) that cannot leave a WAL database as it
    /// found it there reads a private copy instead: SQLite reads a WAL database only with
    /// a `-wal` and `-shm` beside it, so in a folder this process cannot write it fails
    /// for want of them, and on a connection that cannot write the file it makes them
    /// and leaves them behind (only a connection that may write removes them when it
    /// closes). The journal mode is in the file's encrypted header, so it is known only
    /// once the key has read it: then the files this connection made are removed, while
    /// no other connection uses them, and the look starts again on a copy.
    private static func openInPlace(path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration) throws -> SQLCipherDatabase {
        guard configuration.readOnly, path != ":memory:" else {
            return try openInFormat(path: path, key: key, configuration: configuration)
        }
        let beside = WALFiles(of: path)
        let database: SQLCipherDatabase
        do {
            database = try openInFormat(path: path, key: key, configuration: configuration)
        } catch let error as SQLCipherError where error.kind == .sqlite
            && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode) {
            // The key read the header (a wrong one fails before), and the WAL files
            // could not be made.
            return try openCopy(privateCopy(of: path), of: path, key: key, configuration: configuration)
        }
        let made = WALFiles(of: path).present.subtracting(beside.present)
        guard database.isReadOnly, !made.isEmpty else { return database }
        database.close()
        beside.removeIfUnused(made)
        return try openCopy(privateCopy(of: path), of: path, key: key, configuration: configuration)
    }

    /// A private copy of the database file alone, for a look that cannot read it in
    /// place; a file gone since it was opened is missing, as at the start.
    private static func privateCopy(of path: String) throws -> PrivateDatabaseCopy {
        guard let copy = try PrivateDatabaseCopy(of: path, journal: .none) else {
            throw SQLCipherError(kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
                                 message: "No database exists at this path; check the path.", path: path)
        }
        return copy
    }

    /// Opens the private copy `copy` of the database at `path` in the format its key
    /// decrypts, as the database: its errors and `path` name the original, and a look's
    /// connection is query-only.
    private static func openCopy(_ copy: PrivateDatabaseCopy, of path: String, key: DatabaseKey?,
                                 configuration: SQLCipherConfiguration) throws -> SQLCipherDatabase {
        var onCopy = configuration
        onCopy.readOnly = false
        onCopy.createIfMissing = false
        let database: SQLCipherDatabase
        do {
            database = try openInFormat(path: copy.path, key: key, configuration: onCopy, onPrivateCopy: true)
        } catch let error as SQLCipherError {
            throw error.at(path: path)
        }
        database.path = path
        database.keptAlive = copy
        if configuration.readOnly { try database.execute(sql: "PRAGMA query_only = 1") }
        return database
    }

    /// A second connection to the file `look` reads (the database, or the private copy a
    /// look reads), in the format `look` found, for a command that only reads the
    /// database and exports it into a file it attaches (`DatabaseEncryption.decrypt`).
    /// The file is opened read-only through a `mode=ro` URI (`SQLiteFileURI`), so the
    /// connection may still write what it attaches. Open it while `look` is open and
    /// close it first: `look` then closes last, and a `-wal` and `-shm` made for reading
    /// a WAL database go with the connection that may remove them, as they would
    /// without this one.
    static func openExportSource(reading look: SQLCipherDatabase, key: DatabaseKey?, configuration: SQLCipherConfiguration) throws -> SQLCipherDatabase {
        var exact = configuration
        exact.readOnly = true
        exact.cipher = look.cipherSettings
        let database: SQLCipherDatabase
        do {
            database = try openInFormat(path: look.file, key: key, configuration: exact, detectingFormat: false, attachingWritable: true)
        } catch let error as SQLCipherError {
            throw error.at(path: look.path)
        }
        database.path = look.path
        database.keptAlive = look.keptAlive
        return database
    }

    /// Opens a private copy of the database and its leftover journal, and proves the
    /// journal the database's own. The format is found on the database file alone where
    /// it opens (as SQLCipher keys a file: by its own salt), and the copy with the
    /// journal is opened in exactly that format and every page read (`quick_check`); a
    /// journal of another database (its pages encrypted with another salt or key) fails
    /// that where the file alone passes, and is refused, naming it. A file that needs its
    /// journal to be read at all (a transaction or a checkpoint cut short) is opened with
    /// it, in whichever format reads it. A damaged database is left to the command to
    /// report, as it would be without a journal. With nothing to apply (an empty `-wal`
    /// and a `-shm`), the copy is the database file alone and there is nothing to prove.
    /// Nil when a file to copy was gone by then (`PrivateDatabaseCopy`).
    private static func openCopy(of path: String, provingJournal leftover: LeftoverJournal, key: DatabaseKey?,
                                 configuration: SQLCipherConfiguration) throws -> SQLCipherDatabase? {
        guard leftover.hasFrames else {
            guard let copy = try PrivateDatabaseCopy(of: path, journal: leftover) else { return nil }
            return try openCopy(copy, of: path, key: key, configuration: configuration)
        }
        var onCopy = configuration
        onCopy.readOnly = false
        onCopy.createIfMissing = false
        guard let copy = try PrivateDatabaseCopy(of: path, journal: leftover, withJournal: false) else { return nil }
        let aloneFormat: CipherSettings? = try? {
            let alone = try openInFormat(path: copy.path, key: key, configuration: onCopy, onPrivateCopy: true)
            defer { alone.close() }
            return alone.cipherSettings
        }()
        guard try copy.addJournal() else { return nil }
        if let aloneFormat { onCopy.cipher = aloneFormat }
        let database: SQLCipherDatabase
        do {
            database = try openInFormat(path: copy.path, key: key, configuration: onCopy, detectingFormat: aloneFormat == nil,
                                        onPrivateCopy: true)
        } catch let error as SQLCipherError where aloneFormat != nil && [.wrongKey, .notADatabase, .damaged].contains(error.kind) {
            throw foreignJournal(path, leftover)
        } catch let error as SQLCipherError {
            throw error.at(path: path)
        }
        database.path = path
        database.keptAlive = copy
        if aloneFormat != nil, !readsEveryPage(database) {
            guard let alone = try readsAlone(path, leftover, key: key, configuration: onCopy) else { return nil }
            if alone { throw foreignJournal(path, leftover) }
        }
        if configuration.readOnly { try database.execute(sql: "PRAGMA query_only = 1") }
        return database
    }

    /// Whether the database file, copied without its journal, opens with `key` in the
    /// format `configuration` gives and reads every page; nil when it was gone by then.
    private static func readsAlone(_ path: String, _ leftover: LeftoverJournal, key: DatabaseKey?, configuration: SQLCipherConfiguration) throws -> Bool? {
        guard let alone = try PrivateDatabaseCopy(of: path, journal: leftover, withJournal: false) else { return nil }
        guard let database = try? openInFormat(path: alone.path, key: key, configuration: configuration, detectingFormat: false) else { return false }
        defer { database.close() }
        return readsEveryPage(database)
    }

    /// `quick_check`: every page of every table and index read, so decrypted and
    /// authenticated; false when a page does not read (SQLCipher fails it as damage).
    private static func readsEveryPage(_ database: SQLCipherDatabase) -> Bool {
        DatabaseChecks.quickCheck(database).passed
    }

    private static func foreignJournal(_ path: String, _ leftover: LeftoverJournal) -> SQLCipherError {
        let names = leftover.files.map { String($0.split(separator: "/").last ?? "") }
        return SQLCipherError(
            kind: .cannotOpen, resultCode: .SQLITE_CANTOPEN,
            message: "\(names.joined(separator: " and ")) beside the database belong\(names.count == 1 ? "s" : "") to another database: "
                + "the key that opens the database does not read \(names.count == 1 ? "its" : "their") pages. Nothing was changed; "
                + "move \(names.count == 1 ? "it" : "them") out of the folder (keep \(names.count == 1 ? "it" : "them") if another copy of the database may need \(names.count == 1 ? "it" : "them")) and run the command again.",
            path: path)
    }

    /// Opens, keys and proves a file, SQLite applying any journal beside it. With a key and
    /// no cipher settings, each format the linked library can read is tried in turn
    /// (`CipherFormat.readable`), its own first, each on a new connection (SQLCipher 4.5.5+
    /// refuses a second key on a used connection): one key derivation per attempt, and
    /// none for formats whose page size the file's size rules out.
    ///
    /// - Parameter detectingFormat: false to open in `configuration.cipher` exactly,
    ///   even when those are the linked library's defaults (a format already found).
    /// - Parameter attachingWritable: open the file read-only through a URI, on a
    ///   connection that may write what it attaches (`openExportSource`).
    /// - Parameter onPrivateCopy: the file is a private copy (`PrivateDatabaseCopy`):
    ///   what a connection makes beside it goes with it, and its header may read only
    ///   once SQLite applies the journal beside it.
    ///
    /// A format tried on the user's own file without page HMACs is tried only once the
    /// file's header decrypts with the key (`headerDecrypts`); one already found with
    /// this key (`detectingFormat` false) and a private copy need no such proof.
    ///
    /// A raw key with its HMAC key and salt (`x'` and 160 hex digits) that opens nothing is
    /// also the passphrase every SQLCipher before 4.7 read its text as: a newer library
    /// tries it as that passphrase too (`asPassphrase`, `PassphraseDerivation`), and an
    /// older one, which read it so already, says it did.
    private static func openInFormat(path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration,
                                     detectingFormat: Bool = true, attachingWritable: Bool = false,
                                     onPrivateCopy: Bool = false, asPassphrase: Bool = false) throws -> SQLCipherDatabase {
        guard let key else {
            let database = try openConnection(path: path, configuration: configuration, attachingWritable: attachingWritable)
            try proveReadable(database, keyed: false, triedFormats: nil)
            database.cipherSettings = CipherSettings()
            try configure(database, configuration: configuration)
            return database
        }
        let attempts = detectingFormat ? attemptedSettings(for: path, given: configuration.cipher) : [(detection: nil, settings: configuration.cipher)]
        let provesHeaders = detectingFormat && !onPrivateCopy
        var firstFailure: SQLCipherError?
        for attempt in attempts {
            let keying: DatabaseKey
            if asPassphrase {
                guard let derived = try PassphraseDerivation.keyingAsPassphrase(key, path: path, settings: attempt.settings) else { continue }
                keying = derived
            } else {
                keying = key
            }
            // No connection that could make files beside the database reads a header
            // no page HMAC has vouched for.
            if provesHeaders, !attempt.settings.authenticatesPages, !headerDecrypts(path, key: keying, settings: attempt.settings, configuration: configuration) { continue }
            let database = try openConnection(path: path, configuration: configuration, attachingWritable: attachingWritable)
            try applyKey(keying, to: database)
            let proven = SaltMaskGuard.deriving(attempt.settings, on: database) {
                Result {
                    try CipherSettingsApplier.apply(attempt.settings, to: database)
                    try proveReadable(database, keyed: true, triedFormats: nil,
                                      keyReadsPages: { keyReadsPages(path, key: keying, settings: attempt.settings, configuration: configuration) })
                }
            }
            do {
                try proven.get()
            } catch let error as SQLCipherError where error.kind == .wrongKey || error.resultCode.primaryResultCode == .SQLITE_CORRUPT {
                // A format that does not fit reads as a wrong key (or, with a hot
                // journal, as damage): try the next one, keep the first diagnosis.
                firstFailure = firstFailure ?? error
                database.close()
                continue
            }
            database.cipherSettings = attempt.settings
            try configure(database, configuration: configuration)
            return database
        }
        if let firstFailure, firstFailure.kind != .wrongKey { throw firstFailure }
        if !asPassphrase, let form = key.rawKeyForm, form == .keyHMACKeyAndSalt {
            if let failure = SQLCipherFeature.rawKeyAsPassphraseFailure(hexDigits: form.hexDigits, library: SQLCipherLibrary.cipherVersion) {
                throw SQLCipherError(kind: .wrongKey, resultCode: .SQLITE_NOTADB, message: "The key is \(failure).")
            }
            do {
                return try openInFormat(path: path, key: key, configuration: configuration, detectingFormat: detectingFormat,
                                        attachingWritable: attachingWritable, onPrivateCopy: onPrivateCopy, asPassphrase: true)
            } catch let error as SQLCipherError where error.kind == .wrongKey {
                // Neither the raw key nor the passphrase: the wrong key it is, as a raw key.
            }
        }
        var tried: [CipherFormat] = []
        for case let attempt? in attempts.map(\.detection) where !attempt.withoutPageHMACs && !tried.contains(attempt.format) { tried.append(attempt.format) }
        let withoutHMACs = attempts.compactMap(\.detection).filter(\.withoutPageHMACs).map(\.format)
        throw explainUnreadable(path: path, keyed: true, triedFormats: configuration.cipher.isDefault ? tried : nil,
                                triedWithoutPageHMACs: withoutHMACs, rawKey: key.kind == .rawKey)
    }

    /// Whether `key` in `settings` decrypts the file's header, read immutable
    /// (`SQLCipherDatabase.openImmutable`): false only when SQLite finds no database
    /// header there. Without page HMACs a wrong key decrypts page 1 into noise that SQLite
    /// reads as a header, and one noise in 256 marks the file as WAL: an ordinary
    /// connection then makes `-wal` and `-shm` beside a rollback-journal database, and
    /// cannot remove them while another connection has it open. Costs the right key a
    /// second key derivation, on such files only.
    private static func headerDecrypts(_ path: String, key: DatabaseKey, settings: CipherSettings, configuration: SQLCipherConfiguration) -> Bool {
        prepareLibrary(for: configuration)
        guard let database = try? SQLCipherDatabase.openImmutable(path: path) else { return true }
        defer { database.close() }
        let read = SaltMaskGuard.deriving(settings, on: database) {
            Result {
                try applyKey(key, to: database)
                try CipherSettingsApplier.apply(settings, to: database)
                _ = try database.fetchInt(sql: "SELECT count(*) FROM sqlite_master")
            }
        }
        guard case .failure(let error as SQLCipherError) = read else { return true }
        return error.resultCode.primaryResultCode != .SQLITE_NOTADB
    }

    /// The settings to try, in order: the given ones alone, or one per format detection
    /// tries (`CipherFormat.detectionAttempts`). SQLCipher 2's defaults given as such
    /// are tried with its legacy page HMACs too.
    private static func attemptedSettings(for path: String, given: CipherSettings) -> [(detection: FormatDetectionAttempt?, settings: CipherSettings)] {
        guard let library = SQLCipherLibrary.cipherVersion else { return [(nil, given)] }
        if given.compatibility == 2, given == CipherSettings(compatibility: 2) {
            return [(nil, given)] + LegacyPageHMAC.allCases.map { (nil, CipherSettings(compatibility: 2, legacyPageHMAC: $0)) }
        }
        guard given.isDefault else { return [(nil, given)] }
        let major = library.major
        let attempts = CipherFormat.detectionAttempts(by: library)
        let size = FileProbe(path: path).size
        let possible = attempts.filter { attempt in attempt.format.pageSize.map { size % Int64($0) == 0 } ?? true }
        return (possible.isEmpty ? [attempts[0]] : possible).map { attempt in
            var settings = attempt.format.version == major ? CipherSettings() : CipherSettings(compatibility: attempt.format.version)
            settings.legacyPageHMAC = attempt.legacy
            if attempt.withoutPageHMACs { settings.usesHMAC = false }
            return (attempt, settings)
        }
    }

    /// How the SQLCipher connection opens, keys and writes a file being created
    /// (`NewDatabaseFile`): the salt an empty file's keys are derived with is fixed by
    /// writing its first page, before the directory's lock is released.
    private static func connecting(path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration) -> NewDatabaseFile.Connecting<SQLCipherDatabase> {
        NewDatabaseFile.Connecting(
            open: { try openExisting(path: path, key: key, configuration: configuration) },
            hasPages: { try $0.fetchInt(sql: "PRAGMA page_count") ?? 0 > 0 },
            writeFirstPage: { database in
                try SaltMaskGuard.deriving(database.cipherSettings, on: database) { try database.execute(sql: "PRAGMA user_version = 0") }
            },
            close: { $0.close() })
    }

    /// The creation's refusals (`NewDatabaseFile`) as this connection's errors, which
    /// `SQLCipherWriter` promises; waiting too long for another creator stays `.busy`.
    private static func asConnectionError<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileOperationError where error.kind == .cannotOpen || error.kind == .notADatabase {
            throw SQLCipherError(kind: error.kind, resultCode: error.resultCode, message: error.message)
        }
    }

    private static func openConnection(path: String, configuration: SQLCipherConfiguration,
                                       attachingWritable: Bool = false) throws -> SQLCipherDatabase {
        prepareLibrary(for: configuration)
        // Reading a WAL-mode file makes SQLite create -wal and -shm beside it, and only a
        // connection that may write removes them when it closes. So a read-only open of
        // a file this process may write (a backup being proven, a database being
        // checked) is a read-write connection with `query_only` on: it cannot change the
        // file, and leaves nothing beside it. Only a file this process cannot write is
        // opened read-only (and a WAL database there read on a copy: `openInPlace`).
        let queryOnly = configuration.readOnly && !attachingWritable && FileProbe.isWritable(path)
        let database = try SQLCipherDatabase.open(path: path, readOnly: configuration.readOnly && !queryOnly,
                                                  attachingWritable: attachingWritable,
                                                  busyTimeout: configuration.busyTimeout,
                                                  givesWayToChanges: configuration.givesWayToChanges)
        if queryOnly { try database.execute(sql: "PRAGMA query_only = 1") }
        for (name, standIn) in configuration.collationStandIns {
            try database.registerCollation(name, standingIn: standIn)
        }
        if !configuration.readOnly, database.isReadOnly {
            throw SQLCipherError(kind: .cannotOpen, resultCode: .SQLITE_READONLY,
                                 message: "The database file \(FileProbe.whyNotWritable(path)).")
        }
        return database
    }

    /// Before a connection exists, so that even its key derivation is protected, and
    /// silent: SQLCipher's own log lines never reach the user's terminal.
    private static func prepareLibrary(for configuration: SQLCipherConfiguration) {
        SQLCipherLibrary.silenceLogDestination()
        if configuration.memorySecurity { SQLCipherLibrary.enableMemorySecurity() }
    }

    private static func applyKey(_ key: DatabaseKey, to database: SQLCipherDatabase) throws {
        try database.applyKey(key)
        try SQLCipherLibrary.silenceLog(on: database)
    }

    /// Reads `sqlite_master` once. SQLITE_NOTADB is matched by code, never by text (its
    /// wording changed between SQLCipher 3 and 4), then explained by what the file holds.
    ///
    /// Any other failure of a keyed connection's first read — SQLITE_CORRUPT, or a file
    /// with a plaintext header (SQLCipher 4's `cipher_plaintext_header_size`), which
    /// passes SQLite's header check whatever the key and then fails page 1's decryption
    /// as SQLITE_ERROR on SQLite 3.46 and as SQLITE_CORRUPT on 3.53 — is decided by what
    /// the key does to the file's pages, not by the code a SQLite version gives:
    /// `keyReadsPages` (every page's HMAC, where SQLCipher can check them) says whether
    /// the key is wrong (no page decrypts) or right on a damaged file. Where it cannot
    /// tell, a plaintext header's failure is the wrong key SQLCipher takes it for, and
    /// damage is damage.
    private static func proveReadable(_ database: SQLCipherDatabase, keyed: Bool, triedFormats: [CipherFormat]?,
                                      keyReadsPages: () -> Bool? = { nil }) throws {
        do {
            _ = try database.fetchInt(sql: "SELECT count(*) FROM sqlite_master")
        } catch let error as SQLCipherError where error.resultCode.primaryResultCode == .SQLITE_NOTADB {
            throw explainUnreadable(path: database.path, keyed: keyed, triedFormats: triedFormats)
        } catch let error as SQLCipherError where keyed && (error.resultCode.primaryResultCode == .SQLITE_CORRUPT
                    || (error.resultCode.primaryResultCode == .SQLITE_ERROR && DatabaseFileHeader(path: database.file).hasPlaintextSQLiteHeader)) {
            switch keyReadsPages() {
            case false?:
                throw explainUnreadable(path: database.path, keyed: keyed, triedFormats: triedFormats)
            case true?:
                throw explainDamaged(path: database.path)
            case nil:
                // The first page decrypted where a wrong key would fail as NOTADB, unless
                // the header is plaintext: typically a file cut short by a failed copy or a
                // full disk.
                if error.resultCode.primaryResultCode == .SQLITE_CORRUPT { throw explainDamaged(path: database.path) }
                throw explainUnreadable(path: database.path, keyed: keyed, triedFormats: triedFormats)
            }
        }
    }

    /// Whether `key` in `settings` decrypts any of the file's pages: SQLCipher's own check
    /// of every page's HMAC (`PRAGMA cipher_integrity_check`, 4.2+), on a connection of
    /// its own that reads the file as it is (`openImmutable`). A wrong key or wrong
    /// settings fail every page, page 1 first; a right key on a damaged file fails only
    /// the damaged ones. Nil where SQLCipher cannot tell: no page HMACs, a SQLCipher
    /// before 4.2, or a file of one page. Runs only on a failed open, never on the way in.
    private static func keyReadsPages(_ path: String, key: DatabaseKey, settings: CipherSettings, configuration: SQLCipherConfiguration) -> Bool? {
        guard SQLCipherFeature.integrityCheck.isAvailable(in: SQLCipherLibrary.cipherVersion), settings.usesHMAC != false, path != ":memory:" else {
            return nil
        }
        prepareLibrary(for: configuration)
        guard let database = try? SQLCipherDatabase.openImmutable(path: path) else { return nil }
        defer { database.close() }
        let answer = SaltMaskGuard.deriving(settings, on: database) {
            Result { () throws -> (failed: Set<Int>, pages: Int) in
                try applyKey(key, to: database)
                try CipherSettingsApplier.apply(settings, to: database)
                let failed = Set(try database.fetchStrings(sql: "PRAGMA cipher_integrity_check").compactMap { line in
                    line.split(separator: " ").last.flatMap { Int($0) }
                })
                let pageSize = try database.fetchString(sql: "PRAGMA cipher_page_size").flatMap { Int($0) } ?? 0
                return (failed, pageSize > 0 ? Int(FileProbe(path: path).size) / pageSize : 0)
            }
        }
        guard case .success(let (failed, pages)) = answer, pages > 1 else { return nil }
        return failed.count < pages
    }

    static func explainDamaged(path: String) -> SQLCipherError {
        let probe = FileProbe(path: path)
        let shape = probe.sizeLooksLikePages
            ? ""
            : " (its size, \(probe.size) bytes, is not a whole number of pages, as if it was cut short)"
        return SQLCipherError(kind: .damaged, resultCode: .SQLITE_CORRUPT,
                              message: "The database is damaged\(shape): its schema cannot be read; restore it from a backup.")
    }

    /// - Parameters:
    ///   - triedFormats: the formats tried when none was given (for the wrong-key
    ///     sentence); nil when the caller gave the settings.
    ///   - triedWithoutPageHMACs: the formats tried without page HMACs too.
    ///   - rawKey: whether the key is raw (no KDF setting can explain a failure then).
    static func explainUnreadable(path: String, keyed: Bool, triedFormats: [CipherFormat]?,
                                  triedWithoutPageHMACs: [CipherFormat] = [], rawKey: Bool = false) -> SQLCipherError {
        // The verdict and its sentence are the core's, as a GRDB connection's are.
        let verdict = UnreadableDatabaseError(path: path, keyed: keyed, triedFormats: triedFormats, triedWithoutPageHMACs: triedWithoutPageHMACs,
                                              wrongKeyHint: CipherCompatibilityHint.forWrongKey(fileSize: FileProbe(path: path).size),
                                              library: SQLCipherLibrary.cipherVersion, rawKey: rawKey)
        if let advice = verdict.advice {
            return SQLCipherError(kind: verdict.kind, resultCode: .SQLITE_NOTADB, advice: advice)
        }
        return SQLCipherError(kind: verdict.kind, resultCode: .SQLITE_NOTADB, message: verdict.message)
    }

    /// Last, once the key is proven: the app's extensions and the host's own
    /// registrations (`AppRegistrations`), which may run SQL, which SQLCipher 4.7+ refuses
    /// before the key. A failure closes the connection.
    private static func configure(_ database: SQLCipherDatabase, configuration: SQLCipherConfiguration) throws {
        do {
            try configureSettings(database, configuration: configuration)
            try configuration.app.register(on: database)
        } catch {
            database.close()
            throw error
        }
    }

    private static func configureSettings(_ database: SQLCipherDatabase, configuration: SQLCipherConfiguration) throws {
        // SQLite's temporary files (a sort larger than the cache, CREATE INDEX, temporary
        // tables) hold decrypted rows, and SQLCipher does not encrypt them: it asks to be
        // built to keep them in memory (SQLITE_TEMP_STORE=2, as Debian's libsqlcipher
        // is). Said again here, so that a library built otherwise never writes them to
        // /var/tmp. (It is why memory grows with the largest sort of a migration.)
        try database.execute(sql: "PRAGMA temp_store = MEMORY")
        if configuration.foreignKeysEnabled, !configuration.readOnly {
            try database.setForeignKeysEnabled(true)
        }
    }
}

/// The extra sentence a wrong-key error gets when the linked library is SQLCipher 3,
/// which cannot read files made with SQLCipher 4's defaults (SHA-512, 256,000 iterations).
enum CipherCompatibilityHint {
    static func forWrongKey(fileSize: Int64) -> String {
        // SQLCipher 4 files use 4096-byte pages; a size that is not a multiple of 4096
        // cannot be one, so do not distract with the hint then.
        guard let version = SQLCipherLibrary.cipherVersion, !SQLCipherFeature.formatFour.isAvailable(in: version), fileSize % 4096 == 0 else { return "" }
        return " If the database was made with SQLCipher 4's defaults (Ubuntu 24.04, Debian 13, most phones), the linked SQLCipher "
            + "\(SQLCipherLibrary.cipherVersionString ?? "\(version)") cannot read it at all: convert it with SQLCipher 4 "
            + "(PRAGMA cipher_compatibility = 3 and sqlcipher_export), or use a build linked against SQLCipher 4."
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import MigrationKit
import MigrationKitFiles
import SystemPackage

/// The key's own life: encrypting a plaintext database, decrypting one for export,
/// and rotating a key.
///
/// Encrypt and decrypt copy through `sqlcipher_export` into a new file that is then
/// proven (opens with its key; every table's row count and the schema match the
/// source) before it is put in place by an atomic rename. The source is never
/// written to, except that the plaintext source of `encrypt` in WAL mode is
/// checkpointed first so no data is left behind in its -wal file; `decrypt` only reads.
/// Keys reach SQLCipher only through `sqlite3_key`, `sqlite3_rekey` and bound
/// parameters, never as SQL text.
package enum DatabaseEncryption {
    /// What a copy held, as proven after writing it.
    package struct ExportSummary: Sendable {
        /// Row counts of every table, by name (the ledger included).
        package let rowCounts: [String: Int]
        /// `PRAGMA user_version`, which the copy keeps from the source.
        package let userVersion: Int
        /// `PRAGMA application_id`, which the copy keeps from the source.
        package let applicationID: Int
        /// `PRAGMA auto_vacuum` (0 none, 1 full, 2 incremental), which the copy keeps from
        /// the source: an app that runs `incremental_vacuum` relies on it, and it can only
        /// be set before a file's first table exists, so never later by the app.
        package let autoVacuum: Int
        /// The copy's cipher settings, read back from it once written; nil for a
        /// plaintext copy, and for the source's own summary.
        package internal(set) var cipher: EffectiveCipherSettings?
        /// The checks of the copy that could not run, or not wholly, for want of what
        /// only the app registers (an index's tokenizer): the copy is proven without them
        /// (every row of every table compared), and the command names them.
        package internal(set) var notChecked: [VerificationCheck] = []
    }

    /// Writes an encrypted copy of the plaintext database at `source` to `destination`
    /// (mode 0600). An existing destination is refused unless `overwrite`, and is then
    /// replaced atomically. `app` brings what only the app registers (`AppRegistrations`:
    /// stand-ins for its collations, its extensions); a schema that names a collation
    /// none of it registers is refused (`.unregisteredCollation`) before anything is
    /// written.
    @discardableResult
    package static func encrypt(plaintextAt source: String, to givenDestination: String, key: DatabaseKey, cipher: CipherSettings = CipherSettings(),
                               overwrite: Bool = false, app: AppRegistrations = AppRegistrations()) throws -> ExportSummary {
        try key.validate()
        let destination = DurableFile.resolvingSymlinks(givenDestination)
        if DurableFile.sameFile(source, destination) {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 advice: Advice(situation: "The output is the database itself", remedy: .encryptInPlace), path: givenDestination)
        }
        let database = try openPlaintextSource(source, app: app)
        let exists = FileProbe(path: destination).kind != .missing
        return try exportVerified(from: database, to: exists && overwrite ? destination : givenDestination, key: key, cipher: cipher,
                                  app: app, replacing: exists && overwrite)
    }

    /// Encrypts the plaintext database at `path` in place: an encrypted copy is written
    /// beside it, proven, flushed, and renamed over the original. An interruption at
    /// any point leaves the original intact (and a leftover copy, replaced next time).
    ///
    /// The encrypted file keeps the original's owner and group and is mode 0600, the
    /// mode of every file that holds the key's data (a plaintext 0644 database was
    /// readable by everyone; its encrypted successor is not). A file with other names
    /// (hard links) is refused: they would stay plaintext.
    ///
    /// - Parameters:
    ///   - path: the plaintext database to replace.
    ///   - key: the key to encrypt with.
    ///   - cipher: the encrypted file's cipher settings (default: the linked SQLCipher's).
    ///   - lockTimeout: how long to wait for another MigrationKit command changing the
    ///     database, and for other processes to close it (`DatabaseUsers`): a process
    ///     that kept the plaintext file open would go on with it.
    ///   - app: what only the app registers, as `encrypt(plaintextAt:to:key:cipher:overwrite:app:)`
    ///     takes it.
    ///   - beforeWriting: runs once the database is known to be plaintext and
    ///     replaceable, before anything is written; the CLI writes its backup there.
    /// - Throws: `FileOperationError` `.inUse` when another process keeps it open.
    @discardableResult
    package static func encryptInPlace(at path: String, key: DatabaseKey, cipher: CipherSettings = CipherSettings(),
                                      lockTimeout: Duration = SQLCipherConfiguration().busyTimeout, app: AppRegistrations = AppRegistrations(),
                                      beforeWriting: () throws -> Void = {}) throws -> ExportSummary {
        try encryptInPlace(at: path, key: key, cipher: cipher, lockTimeout: lockTimeout, app: app, beforeWriting: beforeWriting,
                           beforeReplacing: {})
    }

    /// `heldLock`: the database's change lock when the caller holds it (a command).
    /// `beforeReplacing` runs after the copy is proven and before the rename; tests use
    /// it to simulate an interruption there.
    package static func encryptInPlace(at givenPath: String, key: DatabaseKey, cipher: CipherSettings,
                                       lockTimeout: Duration = SQLCipherConfiguration().busyTimeout, heldLock: DatabaseFileLock? = nil,
                                       app: AppRegistrations = AppRegistrations(),
                                       beforeWriting: () throws -> Void = {}, beforeReplacing: () throws -> Void) throws -> ExportSummary {
        try key.validate()
        let path = DurableFile.resolvingSymlinks(givenPath)
        let lock = try DatabaseFileLock.exclusive(path: path, timeout: lockTimeout, heldBy: heldLock)
        defer { lock.release() }
        let database = try openPlaintextSource(path, lockTimeout: lockTimeout, checkpointing: false, app: app)
        // The same owner and group, so the app's user still opens it; mode 0600, as the
        // copy was created. The room: the file and its WAL, which the checkpoint below
        // moves into it.
        let replacement = try DatabaseFileReplacement(
            replacing: path, purpose: "encrypting",
            options: .init(leaving: "still plaintext", keeping: [.owner],
                           room: (try copySize(of: database, pageSize: cipher.pageSize) + FileProbe(path: path + "-wal").size,
                                  "Encrypting in place writes an encrypted copy"),
                           others: (lockTimeout, encryptConsequence)))
        do {
            try checkpointIfWAL(database)
            try beforeWriting()
            let summary = try exportVerified(from: database, to: replacement.temporary, key: key, cipher: cipher, app: app, replacing: false)
            try beforeReplacing()
            try replacement.complete()
            return summary
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// Writes a plaintext copy of the encrypted database at `source` to `destination`
    /// (mode 0600). An existing destination is refused unless `overwrite`, and is then
    /// replaced atomically.
    ///
    /// The database is only read, as a look (`status`) reads it, so a file on read-only
    /// media, a read-only file or one in a read-only folder is decrypted too, and
    /// nothing beside it is made, applied or removed: a connection opened as a look
    /// (`SQLCipherConfiguration.readOnly`) holds it, and a second one, which opens the
    /// file read-only by URI and may still write the copy it attaches, exports what the
    /// look reads (`SQLCipherOpener.openExportSource`). SQLCipher 3.4.1's
    /// `sqlcipher_export` copies only the connection's own database, so the export runs
    /// from the database's side. `app` brings what only the app registers, as
    /// `encrypt(plaintextAt:to:key:cipher:overwrite:app:)` takes it.
    @discardableResult
    package static func decrypt(at source: String, key: DatabaseKey, cipher: CipherSettings = CipherSettings(), to givenDestination: String, overwrite: Bool = false,
                               app: AppRegistrations = AppRegistrations()) throws -> ExportSummary {
        let destination = DurableFile.resolvingSymlinks(givenDestination)
        if DurableFile.sameFile(source, destination) {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 message: "The output is the database itself; choose another file for the plaintext copy.", path: givenDestination)
        }
        if !overwrite, FileProbe(path: destination).kind != .missing {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 advice: Advice(situation: "The output file already exists", otherwise: "choose another name", remedy: .replaceOutput),
                                 path: destination)
        }
        var configuration = existing(cipher: cipher, app: app)
        configuration.readOnly = true
        let look = try SQLCipherOpener.open(path: source, key: key, configuration: configuration)
        defer { look.close() }
        try requireStandIns(for: look, given: app)
        let reader = try SQLCipherOpener.openExportSource(reading: look, key: key, configuration: configuration)
        defer { reader.close() }
        return try exportVerified(from: reader, to: destination, key: nil, cipher: CipherSettings(), app: app, replacing: true)
    }

    /// The summary of `copy` when it is a plaintext copy of the encrypted database at
    /// `source` (opened with `key`): it opens without a key, every page reads, and it has
    /// the source's schema (the ledger included), row counts and header settings. Nil
    /// otherwise, whatever the reason: the caller then treats it as any file in the way.
    /// What a fleet's `decrypt` run again finds where a run before wrote its copy, with
    /// what only the app registers that `decrypt` was given.
    package static func plaintextCopySummary(_ copy: String, of source: String, key: DatabaseKey, cipher: CipherSettings = CipherSettings(),
                                            app: AppRegistrations = AppRegistrations()) -> ExportSummary? {
        var readOnly = existing(app: app)
        readOnly.readOnly = true
        guard let exported = try? SQLCipherOpener.open(path: copy, key: nil, configuration: readOnly) else { return nil }
        defer { exported.close() }
        var sourceConfiguration = existing(cipher: cipher, app: app)
        sourceConfiguration.readOnly = true
        guard let original = try? SQLCipherOpener.open(path: source, key: key, configuration: sourceConfiguration) else { return nil }
        defer { original.close() }
        guard DatabaseChecks.quickCheck(exported).passed,
              let content = try? DatabaseContent(reading: exported), let expected = try? DatabaseContent(reading: original),
              content.difference(from: expected) == nil, keepsEveryRowid(plaintextCopyAt: copy, of: original)
        else { return nil }
        return ExportSummary(content)
    }

    /// Whether every row of every rowid table of `original` is at the same rowid, with
    /// the same values, in the plaintext copy at `path` (`TableRowids`): the copy attached
    /// to the original's read-only connection, which attaches it read-only too.
    private static func keepsEveryRowid(plaintextCopyAt path: String, of original: SQLCipherDatabase) -> Bool {
        let schema = "migrationkit_copy"
        do {
            let attach = try original.prepare("ATTACH DATABASE ? AS \(schema) KEY ?")
            try attach.bind([.text(SQLiteFileURI.plainPath(path)), .text("")])
            _ = try attach.step()
            defer { Interruption.unstoppable { try? original.execute(sql: "DETACH DATABASE \(schema)") } }
            return try TableRowids.all(in: original).allSatisfy { table in
                try original.fetchInt(sql: table.twinlessRowQuery(from: "main", in: schema)) == 0
            } && KeyedTableRows.all(in: original).allSatisfy { table in
                try original.fetchInt(sql: table.twinlessRowQuery(from: "main", in: schema)) == 0
            }
        } catch {
            return false
        }
    }

    /// Re-encrypts the database at `path` from `oldKey` to `newKey`, then reopens it
    /// with the new key to prove it: `PRAGMA rekey` can report success after failing.
    /// SQLCipher rekeys in one transaction, so an interruption leaves the old key valid.
    ///
    /// - Parameters:
    ///   - path: the encrypted database.
    ///   - oldKey: the key that opens it now.
    ///   - newKey: the key that opens it afterwards.
    ///   - cipher: its cipher settings, when not a known format's (which is detected).
    ///   - lockTimeout: how long to wait for another MigrationKit command changing the
    ///     database, for SQLite's locks, and, for a database in WAL mode, for other
    ///     processes to close it: SQLCipher rekeys only a database out of WAL mode,
    ///     which SQLite allows only to its one connection.
    ///   - beforeWriting: runs once the old key has opened the database and nothing
    ///     stands in the way, before anything is written; the CLI writes its backup there.
    /// - Throws: `FileOperationError` `.inUse` when another process keeps a WAL
    ///   database open, naming it.
    package static func rekey(at path: String, from oldKey: DatabaseKey, to newKey: DatabaseKey, cipher: CipherSettings = CipherSettings(),
                             lockTimeout: Duration = SQLCipherConfiguration().busyTimeout, beforeWriting: () throws -> Void = {}) throws {
        try rekey(at: path, from: oldKey, to: newKey, cipher: cipher, lockTimeout: lockTimeout, heldLock: nil, beforeWriting: beforeWriting)
    }

    /// `rekey(at:from:to:cipher:lockTimeout:beforeWriting:)` under the change lock the
    /// caller holds (`heldLock`, a command's), or its own.
    package static func rekey(at path: String, from oldKey: DatabaseKey, to newKey: DatabaseKey, cipher: CipherSettings,
                              lockTimeout: Duration, heldLock: DatabaseFileLock?, beforeWriting: () throws -> Void) throws {
        try oldKey.validateForOpening()
        try newKey.validate()
        var configuration = existing(cipher: cipher)
        configuration.busyTimeout = lockTimeout
        // Not between two steps of a migrate (which would fail on its next step).
        let lock = try DatabaseFileLock.exclusive(path: path, timeout: lockTimeout, heldBy: heldLock)
        defer { lock.release() }
        do {
            let database: SQLCipherDatabase
            do {
                database = try SQLCipherOpener.open(path: path, key: oldKey, configuration: configuration)
            } catch let error as SQLCipherError where error.kind == .notEncrypted {
                throw SQLCipherError(kind: .wrongOperation, resultCode: .SQLITE_NOTADB,
                                     message: "The database is not encrypted, so there is no key to change; use `encrypt` to encrypt it.", path: path)
            }
            try requireRoomForRekey(path)
            try requireEveryPageReads(database, path: path)
            if try database.fetchString(sql: "PRAGMA journal_mode")?.lowercased() == "wal" {
                try DatabaseUsers.waitUntilAlone(
                    path, timeout: lockTimeout,
                    consequence: "keeps it in WAL mode, and SQLCipher changes the key only of a database out of WAL mode, which SQLite allows to its only connection")
            }
            try beforeWriting()
            try Interruption.check()
            // From here the rekey runs to its end and is proven, stop or not: `PRAGMA
            // rekey` cannot be interrupted, and a command that reported "stopped" while
            // the database had changed key would be believed.
            try Interruption.unstoppable {
                let journalMode = try database.fetchString(sql: "PRAGMA journal_mode")?.lowercased()
                if journalMode == "wal" {
                    // SQLCipher rekeys the main file only; leave no WAL frames in the old key.
                    try checkpointIfWAL(database)
                    try database.execute(sql: "PRAGMA journal_mode = DELETE")
                }
                // Whatever happens, the database goes back to the journal mode it had.
                defer { if journalMode == "wal" { try? database.execute(sql: "PRAGMA journal_mode = WAL") } }
                try database.rekey(to: newKey)
                // Rekey keeps the format: prove the new key in the one the old key opened.
                configuration.cipher = database.cipherSettings
            }
        }
        try Interruption.unstoppable {
            do {
                try SQLCipherOpener.open(path: path, key: newKey, configuration: configuration).close()
            } catch let error as SQLCipherError where error.kind == .wrongKey {
                throw rekeyThatDidNotHappen(path, needing: neededForRekey(path))
            }
        }
    }

    /// Why SQLCipher's rekey returned OK and changed nothing (it does, when it cannot
    /// take the write lock or write its journal), as the outcome it stands for: another
    /// process's SQLite lock is a lock (exit 8, naming it), a disk that filled meanwhile
    /// is a file error (exit 9); "try again" only for what trying again may cure.
    private static func rekeyThatDidNotHappen(_ path: String, needing needed: Int64) -> SQLCipherError {
        let unchanged = "SQLCipher reported the rekey as done, but the database still opens with the old key only: nothing was changed."
        if let holder = LockHolder.of(path).first(where: { $0.kind == .sqlite }) {
            return SQLCipherError(kind: .busy, resultCode: .SQLITE_BUSY,
                                  message: "\(unchanged) Another connection holds it (\(holder.processDescription)), so the key could not be changed; stop it or let its transaction end, then run the command again.",
                                  path: path)
        }
        if let free = FileProbe.freeBytes(in: DirectoryLock.parent(of: path)), free < needed {
            return SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_FULL,
                                  message: "\(unchanged) The disk filled while the key was being changed (about \(needed) bytes are needed beside the database, \(free) are free); free some space, then run the command again.",
                                  path: path)
        }
        return SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR, message: "\(unchanged) Run the command again; if it fails the same way, run `verify` on the database.", path: path)
    }

    // MARK: - Pieces

    /// `PRAGMA rekey` rewrites every page, and a page that does not read stops it half
    /// way, reported as done, with a journal left: a damaged database is refused before
    /// anything is written (no backup, no journal), every page read once
    /// (`cipher_integrity_check` where it applies, else `quick_check`).
    private static func requireEveryPageReads(_ database: SQLCipherDatabase, path: String) throws {
        let check = DatabaseChecks.everyPageReads(database)
        guard check.passed else {
            throw SQLCipherError(kind: .damaged, resultCode: .SQLITE_CORRUPT,
                                 message: "The database is damaged (\(check.name) finds pages that do not read), so its key cannot be changed: the rekey would stop half way. Nothing was changed; run `verify` to see which pages, and restore it from a backup.",
                                 path: path)
        }
    }

    /// How every database here is opened: it must exist (never created by accident),
    /// with the cipher settings it was made with.
    private static func existing(cipher: CipherSettings = CipherSettings(), app: AppRegistrations = AppRegistrations()) -> SQLCipherConfiguration {
        var configuration = SQLCipherConfiguration()
        configuration.createIfMissing = false
        configuration.cipher = cipher
        configuration.app = app
        return configuration
    }

    /// `sqlite3_rekey` rewrites every page in one transaction, keeping the old pages in
    /// a journal beside the database; when that journal cannot be written (a full disk,
    /// a read-only folder) it rolls back and still returns SQLITE_OK, leaving only the
    /// reopen to notice, with no cause. So check first, and say what is missing.
    private static func requireRoomForRekey(_ path: String) throws {
        let folder = DirectoryLock.parent(of: path)
        if !FileProbe.isWritable(folder) {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 message: "Rekeying writes a journal beside the database, but its folder \(folder) is not writable (\(Errno(rawValue: errno))); make it writable, then try again. Nothing was changed.",
                                 path: path)
        }
        try DiskSpace.requireRoom(beside: path, bytes: neededForRekey(path), writing: "Rekeying writes a journal")
    }

    /// The journal a rekey writes: each page (at least 512 bytes) plus 8 bytes, and a
    /// header sector.
    private static func neededForRekey(_ path: String) -> Int64 {
        let size = FileProbe(path: path).size
        return size + size / 512 * 8 + 8192
    }

    /// The room a copy of `database` takes with `pageSize`-byte encrypted pages (nil:
    /// the linked SQLCipher's default), measured from its rows (`CopyRoom`).
    static func copySize(of database: SQLCipherDatabase, pageSize: Int?) throws -> Int64 {
        let pageSize = pageSize ?? SQLCipherLibrary.defaultPageSize
        return try naming(database.path) { try CopyRoom.estimate(database, pageSize: pageSize, reserve: CopyRoom.encryptedPageReserve) }
    }

    /// Why no other process may have a database open when it is encrypted in place.
    private static let encryptConsequence = "would go on reading and writing the plaintext file once the encrypted copy takes its name"

    /// - Parameters:
    ///   - checkpointing: empty a WAL file into the database first (see
    ///     `checkpointIfWAL`); without, the caller does before it copies.
    ///   - app: what only the app registers; a schema naming a collation none of it
    ///     registers is refused here, before anything is written.
    private static func openPlaintextSource(_ path: String, lockTimeout: Duration? = nil, checkpointing: Bool = true,
                                            app: AppRegistrations) throws -> SQLCipherDatabase {
        var configuration = existing(app: app)
        if let lockTimeout { configuration.busyTimeout = lockTimeout }
        let database: SQLCipherDatabase
        do {
            database = try SQLCipherOpener.open(path: path, key: nil, configuration: configuration)
        } catch let error as SQLCipherError where error.kind == .keyRequired {
            throw SQLCipherError(kind: .wrongOperation, resultCode: .SQLITE_NOTADB,
                                 message: "The database is already encrypted (or is not a database); to change its key, use `rekey`.", path: path)
        }
        try requireStandIns(for: database, given: app)
        if checkpointing { try checkpointIfWAL(database) }
        return database
    }

    /// Moves a WAL file's content into the database, so a copy (and a renamed-over
    /// original) misses nothing.
    private static func checkpointIfWAL(_ database: SQLCipherDatabase) throws {
        if try database.fetchString(sql: "PRAGMA journal_mode")?.lowercased() == "wal" {
            try database.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Exports `source` into a new database at `destination` (written beside it and
    /// renamed into place when `replacing`), proves the copy, and returns what it holds.
    private static func exportVerified(from source: SQLCipherDatabase, to destination: String, key: DatabaseKey?, cipher: CipherSettings,
                                       app: AppRegistrations, replacing: Bool) throws -> ExportSummary {
        // A plaintext copy stays private (0600) whatever file it overwrites.
        let replacement = replacing ? try DatabaseFileReplacement(replacing: destination, purpose: "exporting", options: .init(leaving: "as it was", keeping: [])) : nil
        let target = replacement?.temporary ?? destination
        if let failure = FileProbe.createPrivateFile(at: target) {
            throw SQLCipherError(kind: .fileSystem, resultCode: failure == .fileExists ? .SQLITE_CANTOPEN : .SQLITE_IOERR,
                                 message: failure == .fileExists
                                     ? "The output file already exists; choose another name or remove it."
                                     : "The output file cannot be created (\(failure)).",
                                 path: destination)
        }
        do {
            let (expected, journalMode) = try naming(source.path) {
                (try DatabaseContent(reading: source), try source.fetchString(sql: "PRAGMA main.journal_mode")?.lowercased())
            }
            do {
                try export(source, to: target, key: key, cipher: cipher, summary: expected)
            } catch let error as SQLCipherError where error.path == nil {
                // A statement of the export failed: reading a page of the database, or
                // writing the copy (a full disk, a folder that cannot take its journal).
                let unreadable = [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode)
                throw error.at(path: unreadable ? source.path : destination)
            }
            let configuration = existing(cipher: cipher, app: app)
            let (written, actual) = try { () throws -> (ExportSummary, DatabaseContent) in
                // Closed before the rename below: a WAL copy's connection takes its -wal
                // and -shm away with it, under the name they were made for.
                let copy = try SQLCipherOpener.open(path: target, key: key, configuration: configuration)
                // sqlcipher_export writes a rollback-journal database; a WAL source gives
                // a WAL copy (the mode is stored in the file, and apps rely on it).
                if journalMode == "wal" { try copy.execute(sql: "PRAGMA journal_mode = WAL") }
                let content = try DatabaseContent(reading: copy)
                let indexChecks = DatabaseChecks.virtualTableChecks(copy)
                if content.difference(from: expected) == nil, let problem = indexProblem(indexChecks, of: copy, source: source) {
                    throw SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR,
                                         message: "The exported copy's \(problem), so it was discarded; the original is unchanged.", path: destination)
                }
                var written = ExportSummary(content)
                written.notChecked = indexChecks.filter { !$0.checkedFully }
                if let key {
                    written.cipher = try EffectiveCipherSettings.read(from: copy)
                    written.cipher?.describeKey(key)
                }
                return (written, content)
            }()
            if let difference = actual.difference(from: expected) {
                throw SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR,
                                     message: "The exported copy has \(difference) than the original, so it was discarded; the original is unchanged.",
                                     path: destination)
            }

            if let replacement { try replacement.complete() } else { try DurableFile.synchronize(target) }
            return written
        } catch let error as SQLCipherError {
            DurableFile.removeIfPresent(target)
            throw error.withoutInternalStatement("Copying the database", outcome: "the copy was discarded and the original is unchanged.")
        } catch {
            DurableFile.removeIfPresent(target)
            throw error
        }
    }

    /// Refuses, before anything is read or written, a database whose schema names a
    /// collation only the app registers (`AppCollation`) that the connection does not
    /// have — neither a stand-in, an extension loaded nor the host registered it
    /// (`AppCollation.missing`): SQLite can neither read an index ordered by it nor
    /// build one.
    static func requireStandIns(for source: SQLCipherDatabase, given app: AppRegistrations) throws {
        let missing = try naming(source.path) { try AppCollation.missing(in: source) }
        guard let first = missing.first else { return }
        throw SQLCipherError(
            kind: .unregisteredCollation, resultCode: .SQLITE_ERROR,
            advice: Advice(situation: "The database's schema uses the collation \"\(first.name)\" (in \(first.objects.joined(separator: ", "))), which only the app that made it registers, so it cannot be read and copied as it is",
                           remedy: .standInForCollation(first.name), note: "Nothing was changed."),
            path: source.path)
    }

    /// What is wrong with the full-text and R*Tree indexes of `copy`, as its
    /// `copyChecks` found (`DatabaseChecks.virtualTableChecks`), worded to follow "The copy's", or nil when
    /// each passes, or its check did not run and pass in `source` too: a copy is proven to
    /// be the database by its rows (every table's, the indexes' own storage tables
    /// included, compared with the database's row for row: `keepRowids`), so an index
    /// the database already had as it is (damaged, or filled by the app with only some
    /// rows), or that could not be checked there (a read-only database, a tokenizer only
    /// the app registers), is the database's, not a fault of the copy.
    static func indexProblem(_ copyChecks: [VerificationCheck], of copy: SQLCipherDatabase, source: SQLCipherDatabase) -> String? {
        let failed = copyChecks.filter { !$0.passed }
        guard !failed.isEmpty else { return nil }
        let passedInSource = Set(DatabaseChecks.virtualTableChecks(source).filter { $0.passed && $0.ran && $0.checkedFully }.map(\.name))
        guard let check = failed.first(where: { passedInSource.contains($0.name) }) else { return nil }
        if case MigrationKitError.virtualTableIndexDamaged(_, _, let result)? = check.failure as? MigrationKitError {
            return "\(check.name) does not match the rows it indexes (\(result))"
        }
        return "\(check.name) fails its check (\(check.detail))"
    }

    /// Runs `body`, naming `path` in an error of the database layer that names no file.
    private static func naming<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLCipherError where error.path == nil {
            throw error.at(path: path)
        }
    }

    private static let exportSchema = "migrationkit_export"

    /// Exports `source` into a new (empty) file at `path`, with the header fields of
    /// `summary` that `sqlcipher_export` does not copy.
    static func export(_ source: SQLCipherDatabase, to path: String, key: DatabaseKey?, cipher: CipherSettings, summary: DatabaseContent) throws {
        let attach = try source.prepare("ATTACH DATABASE ? AS \(exportSchema) KEY ?")
        // KEY '' attaches a plaintext database; a key is bound straight from wiped storage.
        try attach.bind([.text(SQLiteFileURI.plainPath(path)), .text("")])
        if let key {
            try key.withKeyText { try attach.bind(secret: $0, asText: false, at: 2) }
        }
        _ = try attach.step()
        defer { Interruption.unstoppable { try? source.execute(sql: "DETACH DATABASE \(exportSchema)") } }
        try SQLCipherLibrary.silenceLog(on: source)
        try CipherSettingsApplier.apply(cipher, to: source, schema: exportSchema)
        do {
            // The copy's keys are derived at its first read, with the process's salt mask:
            // setting auto_vacuum reads its (empty) first page, so it runs under the guard
            // too, or a format detection on another thread (SQLCipher 2.0 beta's zero
            // mask) would give the copy HMAC keys no later open derives.
            _ = try SaltMaskGuard.deriving(cipher, on: source) {
                // sqlcipher_export copies schema and rows but not these three header fields.
                if summary.autoVacuum != 0 { try source.execute(sql: "PRAGMA \(exportSchema).auto_vacuum = \(summary.autoVacuum)") }
                return try source.fetchValue(sql: "SELECT sqlcipher_export('\(exportSchema)')")
            }
        } catch let error as SQLCipherError {
            throw error.recoveringInnerResultCode()
        }
        try source.execute(sql: "PRAGMA \(exportSchema).user_version = \(summary.userVersion)")
        try source.execute(sql: "PRAGMA \(exportSchema).application_id = \(summary.applicationID)")
        try keepSequenceTable(from: source)
        try keepRowids(from: source)
        try requireKeyedRows(from: source)
    }

    /// `sqlite_sequence` where the database has one and the copy does not: SQLite makes it
    /// with the first `AUTOINCREMENT` table and never drops it, and `sqlcipher_export`
    /// copies it only through such a table, so a database whose `AUTOINCREMENT` tables
    /// are all gone (diesel's, once a migration dropped them) keeps it, rows or none, and
    /// its copy would not. The copy makes it as SQLite does, through a table of its own
    /// made and dropped at once, and takes the rows, each at its rowid.
    private static func keepSequenceTable(from source: SQLCipherDatabase) throws {
        func has(_ schema: String) throws -> Bool {
            try source.fetchInt(sql: "SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'") == 1
        }
        guard try has("main"), try !has(exportSchema) else { return }
        let maker = "\(exportSchema).migrationkit_sequence_maker"
        try source.execute(sql: "CREATE TABLE \(maker) (id INTEGER PRIMARY KEY AUTOINCREMENT)")
        try source.execute(sql: "DROP TABLE \(maker)")
        try source.execute(sql: "INSERT INTO \(exportSchema).sqlite_sequence (rowid, name, seq) SELECT rowid, name, seq FROM main.sqlite_sequence ORDER BY rowid")
    }

    /// Every row of every `WITHOUT ROWID` table of the copy proven against the database's
    /// by its key, value for value (`KeyedTableRows`): the rowid tables' proof cannot
    /// reach them, and FTS5 keeps its term index in one.
    private static func requireKeyedRows(from source: SQLCipherDatabase) throws {
        for table in try KeyedTableRows.all(in: source) where try source.fetchInt(sql: table.twinlessRowQuery(from: "main", in: exportSchema)) == 1 {
            throw SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR,
                                 message: "The exported copy does not keep the rows of table \"\(table.table)\" as they are, so it was discarded; the original is unchanged.")
        }
    }

    /// `sqlcipher_export` copies each table's columns, and SQLite numbers the rows of a
    /// table without an `INTEGER PRIMARY KEY` or an index anew as it copies them: the
    /// copy of a table with deleted rows has other rowids, which an external-content
    /// FTS index and the app's own references point past (`TableRowids`). So every
    /// table of the copy is proven row for row against the database, and one whose rows
    /// moved is copied again, rowids included, with the copy's triggers and foreign keys
    /// off (its triggers would index the rows a second time).
    private static func keepRowids(from source: SQLCipherDatabase) throws {
        func rowsMoved(_ table: TableRowids) throws -> Bool {
            try source.fetchInt(sql: table.twinlessRowQuery(from: "main", in: exportSchema)) == 1
        }
        for table in try TableRowids.all(in: source) where try rowsMoved(table) {
            try source.withTriggersAndForeignKeysOff {
                // Deferred: only the copy is written, and the database may be open read-only.
                try source.execute(sql: "BEGIN")
                do {
                    for statement in table.recopyStatements(from: "main", into: exportSchema) { try source.execute(sql: statement) }
                    try source.execute(sql: "COMMIT")
                } catch {
                    Interruption.unstoppable { try? source.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
            if try rowsMoved(table) {
                throw SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR,
                                     message: "The exported copy does not keep the rowids of table \"\(table.table)\", so it was discarded; the original is unchanged.")
            }
        }
    }
}

extension DatabaseEncryption.ExportSummary {
    /// What `content` holds, its cipher settings unread.
    init(_ content: DatabaseContent) {
        self.init(rowCounts: content.rowCounts, userVersion: content.userVersion, applicationID: content.applicationID,
                  autoVacuum: content.autoVacuum, cipher: nil)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import MigrationKit
import SystemPackage

/// Moves an encrypted database to the linked SQLCipher's own format (a SQLCipher 3
/// file to SQLCipher 4's defaults), or to another page size or KDF iteration count.
///
/// Why not SQLCipher's `PRAGMA cipher_migrate`: it rewrites the file in place, knows
/// only older versions' defaults (custom settings fail like a wrong key), and from 4.5
/// leaves its connection unusable when it fails. Here a new file is written beside the
/// database with `sqlcipher_export`, proven (it opens with the key in the new format
/// and with no compatibility setting, passes `cipher_integrity_check`, `quick_check`
/// and `foreign_key_check`, and has the same schema, row counts, `user_version` and
/// `application_id`), then renamed over the original, keeping its owner, group and
/// mode. A kill at any moment leaves the old file or the complete new one, and format
/// detection opens either with the same key.
///
/// The database's write lock is held from before the copy until after the rename, so
/// no other connection can commit into the old file once it has been copied. The lock
/// is held by the caller's connection while a second connection to the same file does
/// the export: `sqlcipher_export` writes through an attached database, which commits
/// only when the exporting connection's transaction does, and that commit would
/// release the lock.
package enum CipherFormatUpgrade {
    /// The new file's settings; nil keeps the linked library's default.
    package struct Target: Hashable, Sendable {
        /// The new file's page size in bytes (`cipher_page_size`).
        package var pageSize: Int?
        /// The new file's PBKDF2 iteration count (`kdf_iter`).
        package var kdfIterations: Int?

        /// A target; each setting left nil keeps the linked library's default.
        package init(pageSize: Int? = nil, kdfIterations: Int? = nil) {
            self.pageSize = pageSize
            self.kdfIterations = kdfIterations
        }

        var cipherSettings: CipherSettings { CipherSettings(kdfIterations: kdfIterations, pageSize: pageSize) }
    }

    /// What an upgrade did with the database.
    package enum Outcome: String, Sendable {
        /// The new file replaced the original.
        case upgraded
        /// The database already has the target settings; nothing was written.
        case alreadyInTargetFormat
        /// A dry run: nothing was written.
        case dryRun
    }

    /// What was (or would be) done.
    package struct Summary: Sendable {
        /// The database file, symbolic links followed.
        package let path: String
        /// Whether the database was upgraded, already had the target settings, or was
        /// only examined (a dry run).
        package let outcome: Outcome
        /// The settings the database had.
        package let from: EffectiveCipherSettings
        /// After an upgrade, read back from the new file; otherwise the settings the
        /// database has (already in the target format) or would get (a dry run).
        package let to: EffectiveCipherSettings
        /// `PRAGMA journal_mode` of the database, which the new file keeps (WAL stays WAL).
        package let journalMode: String
        /// The database file's size in bytes before the upgrade.
        package let sizeBefore: Int64
        /// Nil when nothing was written.
        package let sizeAfter: Int64?
        /// Every table's row count as proven in the new file; nil when nothing was written.
        package let rowCounts: [String: Int]?
        /// What opens the database in its new settings (or would, after a dry run): the
        /// settings that differ from the linked SQLCipher's defaults, which an app and
        /// later commands must set; empty when the defaults open it.
        package let openingSettings: CipherSettings
        /// The new file's checks that could not run, or not wholly, for want of what only
        /// the app registers; it is proven without them (every row compared).
        package var notChecked: [VerificationCheck] = []
    }

    /// Whether a connection that may write would change files beside the database at
    /// `path` as soon as it reads it: a journal another process left there, which it
    /// applies and removes (`LeftoverJournal`), or a folder this process cannot write,
    /// where it cannot make the `-wal` and `-shm` a WAL database needs. A command that may
    /// end up writing nothing (a dry run, a database already in the target format)
    /// looks at such a database read-only first.
    package static func writingChangesFilesBeside(_ path: String) -> Bool {
        LeftoverJournal.find(beside: path) != nil || !FileProbe.isWritable(DirectoryLock.parent(of: path))
    }

    /// Throws, before anything is opened, unless the linked SQLCipher can write the
    /// SQLCipher 4 format: 3.x has no SHA-512, so the only format it could write is the
    /// one such databases already have.
    package static func requireSupportedLibrary() throws {
        guard let version = SQLCipherLibrary.cipherVersion, SQLCipherFeature.formatFour.isAvailable(in: version), SQLCipherLibrary.defaultCipherSettings != nil else {
            throw SQLCipherError(
                kind: .unsupportedCipherSetting,
                message: "The linked SQLCipher \(SQLCipherLibrary.cipherVersionString ?? "library") cannot write SQLCipher 4's format "
                    + "(it has no SHA-512), so it cannot upgrade a database to it; use a build linked against SQLCipher 4. Nothing was changed.")
        }
    }

    /// Opens the database at `path` (in the format its key decrypts, or with `cipher`)
    /// and upgrades it; see `upgrade(_:to:dryRun:beforeWriting:)`. `app` brings what
    /// only the app registers (`AppRegistrations`: stand-ins for its collations, its extensions).
    @discardableResult
    package static func upgrade(at path: String, key: DatabaseKey, cipher: CipherSettings = CipherSettings(),
                               to target: Target = Target(), dryRun: Bool = false, app: AppRegistrations = AppRegistrations()) throws -> Summary {
        try requireSupportedLibrary()
        try validate(target, key: key)
        var configuration = SQLCipherConfiguration()
        configuration.createIfMissing = false
        configuration.cipher = cipher
        configuration.app = app
        let writer = try refusingPlaintext(path) { try SQLCipherWriter(path: path, key: key, configuration: configuration) }
        return try upgrade(writer, to: target, dryRun: dryRun)
    }

    /// Upgrades the writer's database.
    ///
    /// - Parameters:
    ///   - writer: the open database, with its key. After an upgrade it still holds
    ///     the old file, no longer at its path: do not use it again.
    ///   - target: the format to move to; by default the linked SQLCipher's own.
    ///   - dryRun: report what would change and write nothing.
    ///   - beforeWriting: runs once it is known the database needs the upgrade and its
    ///     owner can be kept, before anything is written to it or beside it; the CLI
    ///     writes its backup there, with the same connection (no second key derivation).
    /// - Throws: `SQLCipherError`: `.unsupportedCipherSetting` on SQLCipher 3 or for an
    ///   impossible target, `.wrongOperation` for a plaintext database, `.busy` when
    ///   another connection holds the database, `.fileSystem` when its owner cannot be
    ///   kept; `FileOperationError` `.inUse` when another process has it open past the
    ///   writer's busy timeout (`DatabaseUsers`). The database is then unchanged.
    @discardableResult
    package static func upgrade(_ writer: SQLCipherWriter, to target: Target = Target(), dryRun: Bool = false,
                               beforeWriting: (SQLCipherWriter) throws -> Void = { _ in }) throws -> Summary {
        try upgrade(writer, to: target, dryRun: dryRun, beforeWriting: beforeWriting, beforeReplacing: {})
    }

    /// `heldLock`: the database's change lock when the caller holds it (a command).
    /// `beforeReplacing` runs after the new file is proven and before the rename; tests
    /// use it to interrupt the upgrade there.
    package static func upgrade(_ writer: SQLCipherWriter, to target: Target, dryRun: Bool, heldLock: DatabaseFileLock? = nil,
                                beforeWriting: (SQLCipherWriter) throws -> Void, beforeReplacing: () throws -> Void) throws -> Summary {
        try requireSupportedLibrary()
        guard let key = writer.key, let from = try writer.effectiveCipherSettings() else { throw plaintextRefusal(writer.path) }
        try validate(target, key: key)
        let path = DurableFile.resolvingSymlinks(writer.path)
        // Not between two steps of a migrate, nor beside a rekey (`DatabaseFileLock`).
        let lock = try DatabaseFileLock.exclusive(path: path, timeout: writer.configuration.busyTimeout, heldBy: heldLock)
        defer { lock.release() }
        let currentJournalMode = try writer.read { try $0.fetchString(sql: "PRAGMA journal_mode")?.lowercased() } ?? "delete"
        // A run killed while the database was out of WAL mode for its copy left this
        // marker: the database was in WAL mode, and its upgraded file will be.
        let walMarker = DurableFile.siblingPath(of: path, purpose: "upgrading-from-wal")
        let markedWAL = FileProbe(path: walMarker).kind == .regularFile
        let journalMode = markedWAL && currentJournalMode == "delete" ? "wal" : currentJournalMode
        let sizeBefore = FileProbe(path: path).size
        let wanted = targetSettings(target, from: from)
        let salt = (wanted.plaintextHeaderSize ?? 0) > 0 ? try writer.read { try $0.fetchString(sql: "PRAGMA cipher_salt") }.flatMap(CipherParameters.salt(hex:)) : nil
        let newSettings = cipherSettings(writing: wanted, salt: salt)
        if hasSameFormat(from, wanted) {
            // Killed after the rename: the new file is already in WAL mode.
            if markedWAL { FileRemoval.remove(walMarker) }
            return Summary(path: path, outcome: .alreadyInTargetFormat, from: from, to: from, journalMode: journalMode,
                           sizeBefore: sizeBefore, sizeAfter: nil, rowCounts: nil, openingSettings: newSettings)
        }
        // A dry run says what the real run would do, refusals included.
        try DurableFile.requireSingleName(path, leaving: "in the old format")
        try writer.read { try DatabaseEncryption.requireStandIns(for: $0, given: writer.configuration.app) }
        // Before the backup: the proven copy would keep them and fail its proof.
        let violations = try writer.read { try foreignKeyViolations(in: $0) }
        if violations > 0 { throw foreignKeyRefusal(violations, path: path) }
        if dryRun {
            return Summary(path: path, outcome: .dryRun, from: from, to: wanted, journalMode: journalMode,
                           sizeBefore: sizeBefore, sizeAfter: nil, rowCounts: nil, openingSettings: newSettings)
        }
        // The same owner, group and mode, so the app's user still opens it.
        let room = try writer.read { try DatabaseEncryption.copySize(of: $0, pageSize: wanted.pageSize) }
        let replacement = try DatabaseFileReplacement(
            replacing: path, purpose: "upgrading",
            options: .init(leaving: "in the old format",
                           room: (room, "The upgrade writes a copy in the new format"),
                           others: (writer.configuration.busyTimeout, Self.consequence)))
        if let failure = FileProbe.createPrivateFile(at: replacement.temporary) {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 message: "The upgraded copy cannot be created beside the database (\(failure)); the folder must be writable. Nothing was changed.",
                                 path: replacement.temporary)
        }
        do {
            try beforeWriting(writer)
            let busyTimeout = writer.configuration.busyTimeout
            let app = writer.configuration.app
            let proven = try writer.writeWithoutTransaction { source in
                try replace(source, by: replacement, key: key, newSettings: newSettings, wanted: wanted,
                            leavingWAL: currentJournalMode == "wal", makingWAL: journalMode == "wal", walMarker: walMarker,
                            busyTimeout: busyTimeout, app: app, beforeReplacing: beforeReplacing)
            }
            return Summary(path: path, outcome: .upgraded, from: from, to: proven.settings, journalMode: journalMode,
                           sizeBefore: sizeBefore, sizeAfter: FileProbe(path: path).size, rowCounts: proven.summary.rowCounts,
                           openingSettings: newSettings, notChecked: proven.summary.notChecked)
        } catch {
            replacement.discard()
            throw error
        }
    }

    // MARK: - Pieces

    /// Under the write lock: export, prove, rename. The lock ends with the connection's
    /// transaction, after the rename; until then the old file takes no commit.
    private static func replace(
        _ source: SQLCipherDatabase, by replacement: DatabaseFileReplacement, key: DatabaseKey, newSettings: CipherSettings,
        wanted: EffectiveCipherSettings, leavingWAL: Bool, makingWAL: Bool, walMarker: String,
        busyTimeout: Duration, app: AppRegistrations, beforeReplacing: () throws -> Void
    ) throws -> (settings: EffectiveCipherSettings, summary: DatabaseEncryption.ExportSummary) {
        var replaced = false
        defer {
            // Nothing was written through this connection: ending its transaction only
            // releases the lock. WAL comes back only while the file is still the
            // database; after the rename it is the old copy, and a WAL file made for it
            // would sit beside the new database under the name that one uses. Until one
            // of them is in WAL mode, the marker stays for the next run. A cleanup: it
            // runs even when the process is being stopped.
            Interruption.unstoppable {
                if source.isInsideTransaction { try? source.execute(sql: "ROLLBACK TRANSACTION") }
                if makingWAL, replaced || (try? source.fetchString(sql: "PRAGMA journal_mode = WAL"))?.lowercased() == "wal" {
                    FileRemoval.remove(walMarker)
                }
            }
        }
        if leavingWAL {
            _ = FileProbe.createPrivateFile(at: walMarker)
            try leaveWAL(source)
        }
        try source.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        let expected = try DatabaseContent(reading: source)
        let proven: (settings: EffectiveCipherSettings, summary: DatabaseEncryption.ExportSummary)
        do {
            try export(replacement.database, settings: source.cipherSettings, key: key, to: replacement.temporary, newSettings: newSettings,
                       summary: expected, busyTimeout: busyTimeout, app: app)
            proven = try prove(replacement.temporary, key: key, newSettings: newSettings, wanted: wanted, expected: expected,
                               source: source, makeWAL: makingWAL, busyTimeout: busyTimeout, app: app)
        } catch let error as SQLCipherError {
            throw error.withoutInternalStatement("Writing the upgraded copy", outcome: "it was discarded and the database is unchanged.")
        }
        try beforeReplacing()
        try replacement.complete()
        replaced = true
        return proven
    }

    /// Why another process must not have the database open (`DatabaseUsers`): in WAL
    /// mode SQLite would refuse to leave it for the copy, and in either mode the process
    /// would keep the old file after the rename.
    private static let consequence = "would go on using the old file once the upgraded copy takes its name"

    /// A database in WAL mode keeps its -wal and -shm files under its own name, which
    /// the new file will take: old frames there would be replayed into the new file.
    /// So its WAL is emptied into it and it leaves WAL mode for the copy (the new file
    /// is put back in WAL mode, and so is the database if the upgrade fails; a marker
    /// beside it tells the next run, should this one be killed in between). SQLite
    /// refuses the switch while another connection has the database open, which is
    /// also what makes replacing it safe.
    private static func leaveWAL(_ source: SQLCipherDatabase) throws {
        let refusal = SQLCipherError(
            kind: .busy, resultCode: .SQLITE_BUSY,
            message: "The database is in WAL mode and another connection has it open, so it cannot be copied safely; stop the app that uses it. Nothing was changed.")
        do {
            try source.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            guard try source.fetchString(sql: "PRAGMA journal_mode = DELETE")?.lowercased() == "delete" else { throw refusal }
        } catch let error as SQLCipherError where error.kind == .busy || error.resultCode.primaryResultCode == .SQLITE_LOCKED {
            throw refusal
        }
    }

    /// Writes the new file from a second connection to the database (see the type's
    /// comment), in the settings the first one found.
    private static func export(_ path: String, settings: CipherSettings, key: DatabaseKey, to temporary: String, newSettings: CipherSettings,
                               summary: DatabaseContent, busyTimeout: Duration, app: AppRegistrations) throws {
        var configuration = SQLCipherConfiguration()
        configuration.app = app
        configuration.createIfMissing = false
        configuration.foreignKeysEnabled = false
        configuration.busyTimeout = busyTimeout
        configuration.cipher = settings
        let exporter = try SQLCipherOpener.open(path: path, key: key, configuration: configuration)
        try DatabaseEncryption.export(exporter, to: temporary, key: key, cipher: newSettings, summary: summary)
    }

    /// Opens the new file afresh, as any later run will, and checks it against the
    /// original. Returns its settings and content summary; the file is closed again
    /// (a WAL file's -wal and -shm go with its last connection).
    private static func prove(
        _ temporary: String, key: DatabaseKey, newSettings: CipherSettings, wanted: EffectiveCipherSettings,
        expected: DatabaseContent, source: SQLCipherDatabase,
        makeWAL: Bool, busyTimeout: Duration, app: AppRegistrations
    ) throws -> (settings: EffectiveCipherSettings, summary: DatabaseEncryption.ExportSummary) {
        func discarded(_ problem: String) -> SQLCipherError {
            SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR,
                           message: "The upgraded copy \(problem), so it was discarded; the database is unchanged.", path: temporary)
        }
        let proven = try { () throws -> (settings: EffectiveCipherSettings, summary: DatabaseEncryption.ExportSummary) in
            var configuration = SQLCipherConfiguration()
            configuration.createIfMissing = false
            configuration.foreignKeysEnabled = false
            configuration.busyTimeout = busyTimeout
            configuration.cipher = newSettings
            configuration.app = app
            let copy: SQLCipherDatabase
            do {
                copy = try SQLCipherOpener.open(path: temporary, key: key, configuration: configuration)
            } catch let error as SQLCipherError where error.kind == .wrongKey || error.kind == .notADatabase {
                throw discarded("does not open with the key in the new format")
            }
            // With no settings given, detection may have needed a compatibility setting:
            // then the file is not in the library's own format after all.
            guard copy.cipherSettings == newSettings else {
                throw discarded("opens only with other settings than the new format's (\(copy.cipherSettings.pragmas.joined(separator: "; ")))")
            }
            var settings = try EffectiveCipherSettings.read(from: copy)
            settings.describeKey(key)
            guard hasSameFormat(settings, wanted) else {
                throw discarded("has other cipher settings (\(settings.summary)) than asked for (\(wanted.summary))")
            }
            // Every page's HMAC, where its pages have one (an app may have kept them off).
            if DatabaseChecks.cipherPageChecking(copy) == .applies {
                let pages = DatabaseChecks.cipherIntegrityCheck(copy)
                if pages.failure != nil { throw discarded("fails cipher_integrity_check (\(pages.detail))") }
            }
            let pageCheck = DatabaseChecks.quickCheck(copy)
            if case MigrationKitError.quickCheckFailed(let found)? = pageCheck.failure as? MigrationKitError {
                throw discarded("fails quick_check (\(found))")
            }
            if try foreignKeyViolations(in: copy) > 0 {
                let inOriginal = try foreignKeyViolations(in: source)
                throw inOriginal > 0 ? foreignKeyRefusal(inOriginal, path: source.path) : discarded("fails foreign_key_check")
            }
            let actual = try DatabaseContent(reading: copy)
            if let difference = actual.difference(from: expected) { throw discarded("has \(difference) than the original") }
            let indexChecks = DatabaseChecks.virtualTableChecks(copy)
            if let problem = DatabaseEncryption.indexProblem(indexChecks, of: copy, source: source) {
                throw SQLCipherError(kind: .sqlite, resultCode: .SQLITE_ERROR,
                                     message: "The upgraded copy's \(problem), so it was discarded; the database is unchanged.", path: temporary)
            }
            if makeWAL, try copy.fetchString(sql: "PRAGMA journal_mode = WAL")?.lowercased() != "wal" {
                throw discarded("could not be put in WAL mode like the original")
            }
            var summary = DatabaseEncryption.ExportSummary(actual)
            summary.notChecked = ([pageCheck] + indexChecks).filter { !$0.checkedFully }
            return (settings, summary)
        }()
        for suffix in ["-wal", "-shm", "-journal"] where FileProbe(path: temporary + suffix).kind != .missing {
            throw discarded("is still in use (its \(suffix) file remains after it was closed)")
        }
        return proven
    }

    /// A database whose rows break its foreign keys (written with them off): refused, as
    /// `verify` would fail it, before anything is written.
    private static func foreignKeyRefusal(_ count: Int, path: String) -> SQLCipherError {
        SQLCipherError(kind: .failsItsChecks, resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY,
                       message: "The database has \(count) foreign key violation\(count == 1 ? "" : "s"), which the upgraded copy would keep and fail its proof with; fix them first (`verify` lists them). Nothing was changed.",
                       path: path)
    }

    private static func foreignKeyViolations(in database: SQLCipherDatabase) throws -> Int {
        var count = 0
        try database.forEachRow(sql: "PRAGMA foreign_key_check") { _ in count += 1 }
        return count
    }

    /// The new file's settings: what `target` asks, else what the app chose, else the
    /// linked library's defaults. A setting is the app's choice when it differs from the
    /// default of the format the database's settings depart from (`CipherFormat.origin`):
    /// a SQLCipher 3 file's 1024-byte pages are its format's and become 4096, a SQLCipher
    /// 4 file's 16384-byte pages are the app's and stay. A plaintext header (with its
    /// salt) always stays: the app reads the file's first bytes itself. Pages without
    /// HMACs are the app's choice in every format but SQLCipher 1's.
    static func targetSettings(_ target: Target, from source: EffectiveCipherSettings) -> EffectiveCipherSettings {
        let defaults = SQLCipherLibrary.defaultCipherSettings
        let origin = CipherFormat.origin(kdfAlgorithm: source.kdfAlgorithm, hmacAlgorithm: source.hmacAlgorithm,
                                         usesHMAC: source.usesHMAC, kdfIterations: source.kdfIterations).parameters
        func kept<Value: Equatable>(_ value: Value?, formatDefault: Value?, newDefault: Value?) -> Value? {
            value == nil || value == formatDefault ? newDefault : value
        }
        var settings = EffectiveCipherSettings(
            pageSize: target.pageSize ?? kept(source.pageSize, formatDefault: origin?.pageSize, newDefault: defaults?.pageSize),
            kdfIterations: target.kdfIterations
                ?? (source.rawKey ? defaults?.kdfIterations : kept(source.kdfIterations, formatDefault: origin?.kdfIterations, newDefault: defaults?.kdfIterations)),
            usesHMAC: kept(source.usesHMAC ?? true, formatDefault: origin?.usesHMAC, newDefault: defaults?.usesHMAC),
            kdfAlgorithm: kept(source.kdfAlgorithm?.uppercased(), formatDefault: origin?.kdfAlgorithm, newDefault: defaults?.kdfAlgorithm),
            hmacAlgorithm: kept(source.hmacAlgorithm?.uppercased(), formatDefault: origin?.hmacAlgorithm, newDefault: defaults?.hmacAlgorithm),
            cipher: source.cipher, provider: source.provider, plaintextHeaderSize: source.plaintextHeaderSize ?? 0)
        settings.rawKey = source.rawKey
        settings.rawKeyForm = source.rawKeyForm
        return settings
    }

    /// The settings that write the new file and open it afterwards: only those that
    /// differ from the linked library's defaults, so a file in its defaults opens with
    /// none, and the salt of a file with a plaintext header (its own: the app knows it).
    static func cipherSettings(writing wanted: EffectiveCipherSettings, salt: [UInt8]?) -> CipherSettings {
        let defaults = SQLCipherLibrary.defaultCipherSettings
        func differing<Value: Equatable>(_ value: Value?, _ libraryDefault: Value?) -> Value? { value == libraryDefault ? nil : value }
        let header = wanted.plaintextHeaderSize ?? 0
        return CipherSettings(
            kdfIterations: wanted.rawKey ? nil : differing(wanted.kdfIterations, defaults?.kdfIterations),
            pageSize: differing(wanted.pageSize, defaults?.pageSize),
            kdfAlgorithm: differing(wanted.kdfAlgorithm?.uppercased(), defaults?.kdfAlgorithm?.uppercased()),
            hmacAlgorithm: differing(wanted.hmacAlgorithm?.uppercased(), defaults?.hmacAlgorithm?.uppercased()),
            plaintextHeaderSize: header > 0 ? header : nil,
            salt: header > 0 ? salt : nil,
            usesHMAC: differing(wanted.usesHMAC ?? true, defaults?.usesHMAC ?? true))
    }

    /// Whether two sets of settings write the same file format. A raw key skips the
    /// KDF, so its iteration count does not matter.
    static func hasSameFormat(_ lhs: EffectiveCipherSettings, _ rhs: EffectiveCipherSettings) -> Bool {
        lhs.pageSize == rhs.pageSize
            && (lhs.rawKey || lhs.kdfIterations == rhs.kdfIterations)
            && lhs.kdfAlgorithm?.uppercased() == rhs.kdfAlgorithm?.uppercased()
            && lhs.hmacAlgorithm?.uppercased() == rhs.hmacAlgorithm?.uppercased()
            && (lhs.usesHMAC ?? true) == (rhs.usesHMAC ?? true)
            && (lhs.plaintextHeaderSize ?? 0) == (rhs.plaintextHeaderSize ?? 0)
            && lhs.legacyPageHMAC == rhs.legacyPageHMAC
    }

    /// Refuses targets no SQLCipher can write, before anything is opened.
    static func validate(_ target: Target, key: DatabaseKey) throws {
        try key.validate()
        try CipherSettingsApplier.validate(target.cipherSettings)
        if key.kind == .rawKey, target.kdfIterations != nil {
            throw SQLCipherError(kind: .unsupportedCipherSetting,
                                 message: "A raw key is used as it is, with no key derivation, so KDF iterations do not apply to it; leave them out.")
        }
    }

    /// Opens with `body`, turning "a key was given for a plaintext database" into the
    /// refusal that points to `encrypt`.
    static func refusingPlaintext<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLCipherError where error.kind == .notEncrypted {
            throw plaintextRefusal(path)
        }
    }

    static func plaintextRefusal(_ path: String) -> SQLCipherError {
        SQLCipherError(kind: .wrongOperation, resultCode: .SQLITE_NOTADB,
                       message: "The database is not encrypted, so it has no cipher format to upgrade; use `encrypt` to encrypt it (in the linked SQLCipher's format).",
                       path: path)
    }
}

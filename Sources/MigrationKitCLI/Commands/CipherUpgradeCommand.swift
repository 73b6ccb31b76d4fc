import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct CipherUpgradeCommand: UsesProjectConnectionAndBackup, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "cipher-upgrade",
        abstract: "Move an encrypted database to the linked SQLCipher's own format (SQLCipher 3 files to SQLCipher 4's), proven before it replaces the original.",
        discussion: """
            The key and cipher options open the database as it is (with no cipher option its format is detected). \
            The new file gets the linked SQLCipher's format; what the app chose is kept (a page size, KDF \
            iterations or algorithm other than its old format's default, a plaintext header with its salt), unless \
            --to-page-size or --to-kdf-iter says otherwise. Every setting that changes is listed, with what opens \
            the file afterwards. Stop the app that uses the database first.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions
    @OptionGroup var collations: CollationOptions

    @Option(name: .customLong("to-page-size"), help: ArgumentHelp("The new file's cipher page size in bytes (default: the linked SQLCipher's, 4096 on 4.x).", valueName: "n"))
    var toPageSize: Int?

    @Option(name: .customLong("to-kdf-iter"), help: ArgumentHelp("The new file's PBKDF2 iterations (default: the linked SQLCipher's, 256000 on 4.x).", valueName: "n"))
    var toKdfIterations: Int?

    @Flag(name: .customLong("dry-run"), help: "Report what would change, and write nothing (no backup either).")
    var dryRun = false

    func validate() throws {
        if connection.key.plaintext {
            throw ValidationError("A plaintext database has no cipher format to upgrade; use `encrypt` to encrypt it.")
        }
        if let toPageSize, !(512...65536).contains(toPageSize) || toPageSize & (toPageSize - 1) != 0 {
            throw ValidationError("--to-page-size must be a power of two from 512 to 65536.")
        }
        if let toKdfIterations, toKdfIterations < 1 {
            throw ValidationError("--to-kdf-iter must be at least 1.")
        }
    }

    var fleetVerb: String { "Upgrading" }

    func run(in world: CommandWorld) throws {
        // Before a key is asked for: SQLCipher 3 cannot write the format at all.
        try CipherFormatUpgrade.requireSupportedLibrary()
        try runOnEachDatabase(reporter: Reporter(output, on: world.surroundings.console), in: world)
    }

    func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> CipherUpgradeDocument {
        let start = ContinuousClock.now
        var settings = try ConnectionSettings.resolving(connection, access: .change, reporter: reporter, in: world)
        settings.configuration.collationStandIns = collations.standIns
        guard settings.key != nil else { throw CLIError(.missingOption, "cipher-upgrade needs the database's key.") }
        try MigrationSession.holdChangeLock(on: settings.path, timeout: settings.configuration.busyTimeout, in: world)
        let target = CipherFormatUpgrade.Target(pageSize: toPageSize, kdfIterations: toKdfIterations)
        // A dry run, and a database already in the target format, write nothing. A
        // connection that may write changes files beside the database the moment it
        // reads it (it applies a journal left there and removes it; in a folder it cannot
        // write, it cannot even open a WAL database), so then the database is first
        // looked at as `status` looks at it, and opened to write only for an upgrade.
        if dryRun || CipherFormatUpgrade.writingChangesFilesBeside(settings.path) {
            var look = settings
            look.configuration.readOnly = true
            let preview = try CipherFormatUpgrade.upgrade(try openWriter(look, in: world), to: target, dryRun: true, heldLock: world.locks.lock(on: settings.path),
                                                          beforeWriting: { _ in }, beforeReplacing: {})
            if dryRun || preview.outcome == .alreadyInTargetFormat {
                let duration = ContinuousClock.now - start
                report(preview, database: settings.path, backup: nil, duration: duration, reporter: reporter)
                return CipherUpgradeDocument(preview, database: settings.path, backup: nil, duration: duration, in: world)
            }
        }
        let writer = try openWriter(settings, in: world)
        var backupPath: String?
        let summary = try CipherFormatUpgrade.upgrade(writer, to: target, dryRun: dryRun, heldLock: world.locks.lock(on: settings.path),
                                                      beforeWriting: { writer in if !backup.skip { backupPath = try backup.create(of: writer, in: world) } },
                                                      beforeReplacing: {})
        let duration = ContinuousClock.now - start
        report(summary, database: settings.path, backup: backupPath, duration: duration, reporter: reporter, advice: world.appExtensionAdvice)
        return CipherUpgradeDocument(summary, database: settings.path, backup: backupPath, duration: duration, in: world)
    }

    /// The host's writer for `settings`, a plaintext database refused as having no format.
    private func openWriter(_ settings: ConnectionSettings, in world: CommandWorld) throws -> SQLCipherWriter {
        do {
            return try world.host.openWriter(settings)
        } catch let error as SQLCipherError where error.kind == .notEncrypted {
            throw SQLCipherError(kind: .wrongOperation, resultCode: .SQLITE_NOTADB,
                                 message: "The database is not encrypted, so it has no cipher format to upgrade; use `encrypt` to encrypt it.", path: settings.path)
        }
    }

    func fleetResult(_ report: CipherUpgradeDocument) -> String {
        if report.dryRun { return "would upgrade from \(report.from.format.rawValue) to \(report.to.format.rawValue)" }
        return report.changed ? "upgraded from \(report.from.format.rawValue) to \(report.to.format.rawValue)" + (report.backup.map { "; backup: \($0)" } ?? "")
            : "already in \(report.to.format.rawValue)'s format"
    }

    private func report(_ summary: CipherFormatUpgrade.Summary, database: String, backup: String?, duration: Duration, reporter: Reporter,
                        advice: AppExtensionAdvice = AppExtensionAdvice()) {
        let journal = summary.journalMode == "wal" ? ", WAL mode kept" : ""
        switch summary.outcome {
        case .alreadyInTargetFormat:
            reporter.line("\(database) is already in the target format (\(summary.to.summary)); nothing to do.")
        case .dryRun:
            reporter.line("Dry run: would upgrade \(database) (\(summary.sizeBefore) bytes\(journal)).")
            reporter.line("  from: \(summary.from.summary)")
            reporter.line("  to:   \(summary.to.summary)")
            reportChanges(summary, reporter: reporter)
            reporter.line("Nothing was written.")
        case .upgraded:
            reporter.line("Upgraded \(database) in \(duration.humanReadable): \(RowCounts.rowsInTables(summary.rowCounts ?? [:])) verified\(journal).")
            reporter.line("  from: \(summary.from.summary) (\(summary.sizeBefore) bytes)")
            reporter.line("  to:   \(summary.to.summary) (\(summary.sizeAfter ?? 0) bytes)")
            reportChanges(summary, reporter: reporter)
            if let backup { reporter.line("Backup (in the old format, same key): \(backup)") }
            collations.noteStandIns(to: reporter)
            if let notChecked = advice.warning(notChecked: summary.notChecked, of: "The upgraded copy") { reporter.warning(notChecked) }
        }
    }
}

extension CipherUpgradeCommand {
    /// Every setting that changes, and what opens the file afterwards when it is not the
    /// library's defaults alone: what an app must now set.
    private func reportChanges(_ summary: CipherFormatUpgrade.Summary, reporter: Reporter) {
        let changes = summary.from.changes(to: summary.to)
        if !changes.isEmpty { reporter.line("  changed: " + changes.joined(separator: ", ")) }
        let advice = CipherOptions.reopeningAdvice(summary.openingSettings, linkedVersion: SQLCipherLibrary.cipherVersion?.major)
            ?? "It opens with no cipher settings from now on (the linked SQLCipher's defaults): an app drops any cipher PRAGMAs it ran for the old format."
        reporter.line(summary.outcome == .dryRun ? "After the upgrade, " + advice.prefix(1).lowercased() + advice.dropFirst() : advice)
    }
}

/// What `cipher-upgrade --json` prints.
struct CipherUpgradeDocument: Encodable, Sendable {
    /// One side's cipher settings.
    struct Settings: Encodable, Sendable {
        let format: CipherFormat
        let pageSize: Int?
        let kdfIterations: Int?
        let kdfAlgorithm: String?
        let hmacAlgorithm: String?
        let usesHMAC: Bool?
        let plaintextHeaderSize: Int?
        let rawKey: Bool
        /// `key`, `keyAndSalt` or `keyHMACKeyAndSalt` (`DatabaseKey.RawKeyForm`); null
        /// for a passphrase, always there beside `rawKey`.
        @AlwaysPresent var rawKeyForm: DatabaseKey.RawKeyForm?

        init(_ settings: EffectiveCipherSettings) {
            format = settings.format
            pageSize = settings.pageSize
            kdfIterations = settings.kdfIterations
            kdfAlgorithm = settings.kdfAlgorithm
            hmacAlgorithm = settings.hmacAlgorithm
            usesHMAC = settings.usesHMAC
            plaintextHeaderSize = settings.plaintextHeaderSize
            rawKey = settings.rawKey
            rawKeyForm = settings.rawKeyForm
        }
    }

    let database: String
    let databaseName: String?
    let from: Settings
    let to: Settings
    /// False when the database was already in the target format, or on a dry run.
    let changed: Bool
    let dryRun: Bool
    let journalMode: String
    let sizeBefore: Int64
    let sizeAfter: Int64?
    let backup: String?
    let durationMs: Int64

    init(_ summary: CipherFormatUpgrade.Summary, database: String, backup: String?, duration: Duration, in world: CommandWorld) {
        self.database = database
        databaseName = world.databaseName
        from = Settings(summary.from)
        to = Settings(summary.to)
        changed = summary.outcome == .upgraded
        dryRun = summary.outcome == .dryRun
        journalMode = summary.journalMode
        sizeBefore = summary.sizeBefore
        sizeAfter = summary.sizeAfter
        self.backup = backup
        durationMs = duration.wholeMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case database, databaseName, from, to, changed, dryRun, journalMode, sizeBefore, sizeAfter, backup, durationMs
    }

    /// Absent values are written as null, so every field is always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(database, forKey: .database)
        try container.encode(databaseName, forKey: .databaseName)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(changed, forKey: .changed)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(journalMode, forKey: .journalMode)
        try container.encode(sizeBefore, forKey: .sizeBefore)
        try container.encode(sizeAfter, forKey: .sizeAfter)
        try container.encode(backup, forKey: .backup)
        try container.encode(durationMs, forKey: .durationMs)
    }
}

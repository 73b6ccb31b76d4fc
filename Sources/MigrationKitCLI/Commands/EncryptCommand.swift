import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct EncryptCommand: UsesProjectConnectionAndBackup, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a plaintext database with the given key (into --output, or in place).",
        discussion: "The key options give the key to encrypt with. Stop the app that uses the database first. In place, a database that already opens with the key is left as it is, so a rerun changes nothing twice.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions
    @OptionGroup var collations: CollationOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("Write the encrypted copy here (must not exist).", valueName: "file"))
    var outputPath: String?

    @Flag(name: .customLong("in-place"), help: "Replace the plaintext database with its encrypted copy, atomically.")
    var inPlace = false

    @Flag(name: .customLong("force"), help: "Replace --output if it exists (never a file this command reads).")
    var force = false

    var fleetVerb: String { "Encrypting" }

    func validate() throws {
        if (outputPath == nil) == !inPlace {
            throw ValidationError("Give --output FILE or --in-place (one of them).")
        }
        if force && inPlace {
            throw ValidationError("--force replaces an existing --output; --in-place replaces the database itself, always.")
        }
        if connection.key.plaintext {
            throw ValidationError("encrypt needs the key to encrypt with; drop --plaintext.")
        }
    }

    func validateFleet(in world: CommandWorld) throws {
        if !inPlace { throw CLIError(.conflictingOptions, "Over several databases, encrypt works --in-place; give --in-place, or one --db-path with --output.") }
    }

    /// The key every database is encrypted with, read once (asked twice at a prompt).
    func readSharedKeys(reporter: Reporter, in world: CommandWorld) throws {
        guard !connection.key.isTemplate else { return }
        _ = try connection.key.resolve(for: nil, promptMessage: "", keyIsNew: true, reporter: reporter, in: world)
    }

    func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> ExportDocument {
        let path = try connection.requiredPath()
        if let outputPath { try OutputFile(path: outputPath, force: force).check(against: connection.filesRead(in: world.surroundings.environment)) }
        var settings = try ConnectionSettings.resolving(connection, access: .change, keyIsNew: true, reporter: reporter, in: world)
        settings.configuration.collationStandIns = collations.standIns
        guard let key = settings.key else { throw CLIError(.missingOption, "encrypt needs a key.") }
        let summary: DatabaseEncryption.ExportSummary
        var backupPath: String?
        if inPlace {
            try MigrationSession.holdChangeLock(on: path, timeout: settings.configuration.busyTimeout, in: world)
            let modeBefore = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0o600
            do {
                // The backup, a plaintext copy of a plaintext database (the state before
                // encryption), is written only once the database is known to be plaintext
                // and replaceable.
                summary = try DatabaseEncryption.encryptInPlace(
                    at: path, key: key, cipher: settings.configuration.cipher, lockTimeout: settings.configuration.busyTimeout,
                    heldLock: world.locks.lock(on: path), app: settings.configuration.app,
                    beforeWriting: {
                        guard !backup.skip else { return }
                        backupPath = try backup.create(of: try SQLCipherWriter(path: path, key: nil, configuration: plaintextConfiguration(settings)), in: world)
                    },
                    beforeReplacing: {})
            } catch let error as any KindedDatabaseError where error.kind != .fileSystem && error.kind != .busy {
                // A rerun: the database is encrypted with this key already.
                guard settings.keyOpens(path, key: key) else { throw error }
                reporter.line("\(path) is already encrypted with this key: nothing to change.")
                return ExportDocument(database: path, databaseName: world.databaseName, output: path, rowCounts: [:], backup: nil,
                                      changed: false, written: nil)
            }
            reporter.line("Encrypted \(path) in place (\(RowCounts.rowsInTables(summary.rowCounts)) verified).")
            if modeBefore & 0o077 != 0 {
                // README: an encrypted file replacing a plaintext one is 0600. An app that
                // read the plaintext file through its group must be told.
                reporter.warning("\(path) is now mode 0600 (it was \(String(format: "%04o", modeBefore))): its group and others can no longer read it. If the app reads it through its group, give that back with `chmod g+r \(path)`.")
            }
        } else if let outputPath {
            summary = try DatabaseEncryption.encrypt(plaintextAt: path, to: outputPath, key: key, cipher: settings.configuration.cipher, overwrite: force,
                                                     app: settings.configuration.app)
            reporter.line("Wrote an encrypted copy of \(path) to \(outputPath) (\(RowCounts.rowsInTables(summary.rowCounts)) verified).")
        } else {
            throw CLIError(.missingOption, "Give --output FILE or --in-place (one of them).")
        }
        // The file's settings, as `status` says them and read back from it: an app opens
        // it only in these (a round trip through decrypt without options gives the
        // linked SQLCipher's defaults, whatever format the app's file had).
        let written = DatabaseCipherDescription(summary.cipher)
        for line in written.lines { reporter.line(line) }
        if let advice = CipherOptions.reopeningAdvice(settings.configuration.cipher, linkedVersion: SQLCipherLibrary.cipherVersion?.major) {
            reporter.line(advice)
        }
        if let backupPath { reporter.line("Backup of the plaintext original: \(backupPath) — delete it once the encrypted database is in use.") }
        collations.noteStandIns(to: reporter)
        if let notChecked = world.appExtensionAdvice.warning(notChecked: summary.notChecked, of: "The encrypted copy") { reporter.warning(notChecked) }
        return ExportDocument(database: path, databaseName: world.databaseName, output: outputPath ?? path, rowCounts: summary.rowCounts,
                              backup: backupPath, changed: true, written: written)
    }

    func fleetResult(_ report: ExportDocument) -> String {
        report.changed ? "encrypted (\(RowCounts.rowsInTables(report.rowCounts)) verified)" + (report.backup.map { "; plaintext backup: \($0)" } ?? "")
            : "already encrypted with this key"
    }

    private func plaintextConfiguration(_ settings: ConnectionSettings) -> SQLCipherConfiguration {
        var configuration = settings.configuration
        configuration.cipher = CipherSettings()
        configuration.createIfMissing = false
        return configuration
    }
}

struct DecryptCommand: UsesProjectConnection, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Write a plaintext copy of an encrypted database (mode 0600), for export or support.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions
    @OptionGroup var collations: CollationOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("The plaintext copy to write; over several databases, name each with {name}: 'exports/{name}.db'.", valueName: "file"))
    var outputPath: String

    @Flag(name: .customLong("force"), help: "Replace --output if it exists.")
    var force = false

    var fleetVerb: String { "Decrypting" }

    /// Each copy is its own: two databases never write one export.
    var perDatabaseOptions: [FleetNaming.PerDatabase] {
        FleetNaming.PerDatabase.keySources(connection.key.given) + [FleetNaming.PerDatabase(option: "--output", value: outputPath)]
    }

    func validateFleet(in world: CommandWorld) throws {
        if !KeySourceValues.namePlaceholders.contains(where: outputPath.contains) {
            throw CLIError(.badOptionValue, "Over several databases, --output names each copy with {name} (each database's name): `--output 'exports/{name}.db'`.")
        }
    }

    func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> ExportDocument {
        let path = try connection.requiredPath()
        let outputPath = try world.names(of: path).substitute(in: self.outputPath, database: path, option: "--output")
        let output = OutputFile(path: outputPath, force: force)
        // Over a fleet run again (after a kill, a failed tenant), a copy a run before
        // wrote and proved is this tenant done, not a file in the way.
        let mayBeDone = world.fleet != nil && !force && FileProbe(path: outputPath).kind == .regularFile
        if !mayBeDone { try output.check(against: connection.filesRead(in: world.surroundings.environment)) }
        var settings = try ConnectionSettings.resolving(connection, access: .change, reporter: reporter, in: world)
        settings.configuration.collationStandIns = collations.standIns
        guard let key = settings.key else {
            throw CLIError(.missingOption, "decrypt needs the database's key; --plaintext databases are already decrypted.")
        }
        if mayBeDone {
            if let copy = DatabaseEncryption.plaintextCopySummary(outputPath, of: path, key: key, cipher: settings.configuration.cipher,
                                                                  app: settings.configuration.app) {
                reporter.line("\(outputPath) is already a plaintext copy of \(path), with its schema and rows: nothing to do.")
                return ExportDocument(database: path, databaseName: world.databaseName, output: outputPath, rowCounts: copy.rowCounts, backup: nil,
                                      changed: false, written: DatabaseCipherDescription(nil))
            }
            try output.check(against: connection.filesRead(in: world.surroundings.environment))
        }
        let summary = try DatabaseEncryption.decrypt(at: path, key: key, cipher: settings.configuration.cipher, to: outputPath, overwrite: force,
                                                     app: settings.configuration.app)
        reporter.line("Wrote a plaintext copy of \(path) to \(outputPath) (\(RowCounts.rowsInTables(summary.rowCounts)) verified). It is not encrypted: keep it private and delete it when done.")
        collations.noteStandIns(to: reporter)
        if let notChecked = world.appExtensionAdvice.warning(notChecked: summary.notChecked, of: "The plaintext copy") { reporter.warning(notChecked) }
        return ExportDocument(database: path, databaseName: world.databaseName, output: outputPath, rowCounts: summary.rowCounts, backup: nil,
                              changed: true, written: DatabaseCipherDescription(nil))
    }

    func fleetResult(_ report: ExportDocument) -> String {
        (report.changed ? "plaintext copy: " : "already exported: ") + "\(report.output) (\(RowCounts.rowsInTables(report.rowCounts)) verified)"
    }
}

struct ExportDocument: Encodable, Sendable {
    let database: String
    @AlwaysPresent var databaseName: String?
    let output: String
    let rowCounts: [String: Int]
    /// The backup written first, or null.
    @AlwaysPresent var backup: String?
    /// False when `encrypt --in-place` found the database already encrypted with the
    /// key, or a fleet's `decrypt` found its copy already written (a rerun), and wrote
    /// nothing.
    let changed: Bool
    /// The written file's cipher settings, as `status --json` gives them; null for a
    /// plaintext copy, and when nothing was written.
    @AlwaysPresent var cipher: AnyEncodable?
    /// The written file's format, as `status --json` gives it (`plaintext` for
    /// `decrypt`'s copy); null when nothing was written.
    @AlwaysPresent var format: CipherFormat?

    init(database: String, databaseName: String?, output: String, rowCounts: [String: Int], backup: String?, changed: Bool,
         written: DatabaseCipherDescription?) {
        self.database = database
        self.databaseName = databaseName
        self.output = output
        self.rowCounts = rowCounts
        self.backup = backup
        self.changed = changed
        cipher = written?.document.map(AnyEncodable.init)
        format = written?.format
    }
}

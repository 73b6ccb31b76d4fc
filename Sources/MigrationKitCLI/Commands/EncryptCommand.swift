import ArgumentParser
import Foundation
import MigrationKitCommands
import MigrationKitSQLCipher

struct EncryptCommand: UsesProjectConnectionAndBackup, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a plaintext database with the given key (into --output, or in place).",
        discussion: "The key options give the key to encrypt with. Stop the app that uses the database first.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("Write the encrypted copy here (must not exist).", valueName: "file"))
    var outputPath: String?

    @Flag(name: .customLong("in-place"), help: "Replace the plaintext database with its encrypted copy, atomically.")
    var inPlace = false

    @Flag(name: .customLong("force"), help: "Replace --output if it exists (never a file this command reads).")
    var force = false

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

    func run() throws {
        let reporter = Reporter(output)
        let path = try connection.requiredPath()
        if let outputPath { try OutputFile(path: outputPath, force: force).check(against: connection.filesRead) }
        let settings = try CommandSupport.connectionSettings(connection, access: .change, keyIsNew: true, reporter: reporter)
        guard let key = settings.key else { throw CLIError(.usage, "encrypt needs a key.") }
        let summary: DatabaseEncryption.ExportSummary
        var backupPath: String?
        if inPlace {
            try CommandSupport.holdChangeLock(on: path, settings: settings)
            let modeBefore = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0o600
            // The backup, a plaintext copy of a plaintext database (the state before
            // encryption), is written only once the database is known to be plaintext
            // and replaceable.
            summary = try DatabaseEncryption.encryptInPlace(at: path, key: key, cipher: settings.configuration.cipher,
                                                            lockTimeout: settings.configuration.busyTimeout) {
                guard !backup.skip else { return }
                backupPath = try backup.create(of: try SQLCipherWriter(path: path, key: nil, configuration: plaintextConfiguration(settings)))
            }
            reporter.line("Encrypted \(path) in place (\(RowCounts.rowsInTables(summary.rowCounts)) verified).")
            if modeBefore & 0o077 != 0 {
                // README: an encrypted file replacing a plaintext one is 0600. An app that
                // read the plaintext file through its group must be told.
                reporter.warning("\(path) is now mode 0600 (it was \(String(format: "%04o", modeBefore))): its group and others can no longer read it. If the app reads it through its group, give that back with `chmod g+r \(path)`.")
            }
        } else if let outputPath {
            summary = try DatabaseEncryption.encrypt(plaintextAt: path, to: outputPath, key: key, cipher: settings.configuration.cipher, overwrite: force)
            reporter.line("Wrote an encrypted copy of \(path) to \(outputPath) (\(RowCounts.rowsInTables(summary.rowCounts)) verified).")
        } else {
            return
        }
        if let advice = CipherOptions.reopeningAdvice(settings.configuration.cipher) { reporter.line(advice) }
        if let backupPath { reporter.line("Backup of the plaintext original: \(backupPath) — delete it once the encrypted database is in use.") }
        try reporter.document(ExportDocument(database: path, databaseName: CommandSupport.databaseName, output: outputPath ?? path, rowCounts: summary.rowCounts, backup: backupPath))
    }

    private func plaintextConfiguration(_ settings: ConnectionSettings) -> SQLCipherConfiguration {
        var configuration = settings.configuration
        configuration.cipher = CipherSettings()
        configuration.createIfMissing = false
        return configuration
    }
}

struct DecryptCommand: UsesProjectConnection, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Write a plaintext copy of an encrypted database (mode 0600), for export or support.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("The plaintext copy to write.", valueName: "file"))
    var outputPath: String

    @Flag(name: .customLong("force"), help: "Replace --output if it exists.")
    var force = false

    func run() throws {
        let reporter = Reporter(output)
        let path = try connection.requiredPath()
        try OutputFile(path: outputPath, force: force).check(against: connection.filesRead)
        let settings = try CommandSupport.connectionSettings(connection, access: .change, reporter: reporter)
        guard let key = settings.key else {
            throw CLIError(.usage, "decrypt needs the database's key; --plaintext databases are already decrypted.")
        }
        let summary = try DatabaseEncryption.decrypt(at: path, key: key, cipher: settings.configuration.cipher, to: outputPath, overwrite: force)
        reporter.line("Wrote a plaintext copy of \(path) to \(outputPath) (\(RowCounts.rowsInTables(summary.rowCounts)) verified). It is not encrypted: keep it private and delete it when done.")
        try reporter.document(ExportDocument(database: path, databaseName: CommandSupport.databaseName, output: outputPath, rowCounts: summary.rowCounts, backup: nil))
    }
}

struct ExportDocument: Encodable {
    let database: String
    @AlwaysPresent var databaseName: String?
    let output: String
    let rowCounts: [String: Int]
    /// The backup written first, or null.
    @AlwaysPresent var backup: String?
}

/// What `rekey --json` prints.
struct RekeyDocument: Encodable {
    let database: String
    @AlwaysPresent var databaseName: String?
    /// The backup written first (still encrypted with the old key), or null.
    @AlwaysPresent var backup: String?
}

struct RekeyCommand: UsesProjectConnectionAndBackup, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt a database with a new key, then prove the new key opens it.",
        discussion: "The key options give the current key; the --new-* options give the new one (or a prompt, asked twice).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup(title: "New key options") var newKey: NewKeyOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if connection.key.plaintext {
            throw ValidationError("The database is not encrypted, so it has no key to change; use `encrypt` to encrypt it.")
        }
    }

    func run() throws {
        let reporter = Reporter(output)
        let path = try connection.requiredPath()
        let settings = try CommandSupport.connectionSettings(connection, access: .change, reporter: reporter)
        guard let oldKey = settings.key else { throw CLIError(.usage, "rekey needs the current key.") }
        // Everything that can refuse the rekey comes before the backup: the current key
        // must open the database, and the new key must be obtainable and different.
        try CommandSupport.holdChangeLock(on: path, settings: settings)
        // Closed before the rekey: SQLite lets a WAL database leave WAL mode only from
        // its one connection.
        var writer: SQLCipherWriter? = try CLIContext.host.openWriter(settings)
        let key = try newKey.resolve(reporter: reporter)
        if key.isSameKey(as: oldKey) {
            throw CLIError(.usage, "The new key is the same as the current one; nothing to change.")
        }
        var backupPath: String?
        try DatabaseEncryption.rekey(at: path, from: oldKey, to: key, cipher: settings.configuration.cipher,
                                     lockTimeout: settings.configuration.busyTimeout) {
            if !backup.skip, let writer { backupPath = try backup.create(of: writer) }
            writer = nil
        }
        reporter.line("Rekeyed \(path): the new key opens it, the old one no longer does.")
        if let backupPath {
            reporter.line("Backup (still encrypted with the OLD key): \(backupPath) — delete it if the old key must stop working everywhere.")
        }
        try reporter.document(RekeyDocument(database: path, databaseName: CommandSupport.databaseName, backup: backupPath))
    }
}

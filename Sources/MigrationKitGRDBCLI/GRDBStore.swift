import Foundation
import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitGRDB
import MigrationKitSecrets

/// The store a GRDB app's commands run on: the writer the host's `openWriter` opened for
/// a command.
package final class GRDBStore: DatabaseStore {
    package let path: String
    let writer: any DatabaseWriter
    let settings: GRDBConnectionSettings
    /// The host that opened it, which opens the scratch databases its replays run on.
    let host: GRDBMigrationCLIHost
    /// This command made the file (`migrate` on a missing database).
    let created: Bool
    /// The runner the command set up, which runs the app's steps on `writer`.
    private let configured: GRDBMigrationRunner
    /// The change locks the command holds: the database's, once the command took it (a
    /// file the open created is locked only once it exists), goes to the runner with each
    /// call, which then takes it no second time.
    private let locks: CommandLocks

    /// Opens the database through the host: refuses a missing file unless creating, and
    /// creates one as the SQLCipher connection does (`NewDatabaseFile`: mode 0600, keyed
    /// and its first page written under the folder's lock), in the format the key opens
    /// (SQLCipher 4's for a new file, the file's own for an existing one, found by the
    /// host's own open: `GRDBDatabaseFile.openFinding`).
    /// `--load-extension` is the `migrationkit` tool's: an app's own binary registers
    /// what only it has (its functions, collations, tokenizers) on the writer its host
    /// opens, with GRDB's `Configuration.prepareDatabase`, as it does for itself.
    init(opening request: OpenRequest, host: GRDBMigrationCLIHost, runner: GRDBMigrationRunner, locks: CommandLocks) throws {
        if let library = request.extensions.first {
            throw CLIError(.notAvailableHere, "--load-extension \(library) is not loaded by \(host.commandName): this app registers its own SQL functions, collations and tokenizers on the database connections its code opens (GRDB's Configuration.prepareDatabase, in the host's openWriter); leave the option out, or load the extension there.")
        }
        let path = request.path
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        if isFolder.boolValue {
            throw CLIError(.unusableFile, "\(path) is a folder, not a database file; give the database file.")
        }
        if !FileManager.default.fileExists(atPath: path) && request.access != .create {
            throw CLIError(.unusableFile, "\(path) does not exist; check the path.")
        }
        // Looked at again (under the change lock, for a command that changes the
        // database): the request's look (`OpenRequest.found`) came before the key was
        // asked for, and answered the command's questions; the open judges the file as
        // it is now, as the SQLCipher opener does.
        let state = try NewDatabaseFile.state(of: path)
        let formats = try Self.formats(of: request, exists: !OpenRequest.isNew(.success(state)))
        let connecting = NewDatabaseFile.Connecting<(writer: any DatabaseWriter, settings: GRDBConnectionSettings)>(
            open: { try Self.open(request, formats: formats, host: host) },
            hasPages: { try GRDBDatabaseFile.hasPages($0.writer) },
            writeFirstPage: { try GRDBDatabaseFile.writeFirstPage($0.writer) },
            close: { try? $0.writer.close() })
        let opened: (writer: any DatabaseWriter, settings: GRDBConnectionSettings)
        switch (state, request.access) {
        case (.existing, _):
            (opened, created) = (try connecting.open(), false)
        case (.missing, .create), (.unfinished, .create):
            (opened, created) = try NewDatabaseFile.create(at: path, timeout: request.lockTimeout, connecting)
        default:
            (opened, created) = (try NewDatabaseFile.openWithoutCreating(at: path, timeout: request.lockTimeout,
                                                                         writing: request.access != .inspect, connecting), false)
        }
        self.path = path
        self.writer = opened.writer
        self.settings = opened.settings
        self.host = host
        configured = runner
        self.locks = locks
    }

    /// The runner, handed the change lock the command holds on the file.
    private var runner: GRDBMigrationRunner {
        var runner = configured
        runner.heldChangeLock = locks.lock(on: path)
        return runner
    }

    /// Only while nothing was kept in it (`NewDatabaseFile.discard`): a step that
    /// committed is kept, as the tool's runner keeps it.
    @discardableResult
    package func discardIfCreated() -> Bool {
        guard created else { return false }
        let removed = NewDatabaseFile.discard(at: path, timeout: settings.lockTimeout) { removeFiles in
            try writer.writeWithoutTransaction { db in
                var removed = false
                try db.inTransaction(.exclusive) {
                    removed = try MigrationBookkeeping.keptNothing(in: db) && removeFiles()
                    return .rollback
                }
                return removed
            }
        }
        if removed { try? writer.close() }
        return removed
    }

    /// The app's writer on the file as it is, keyed in the first of `formats` the key
    /// opens it in.
    private static func open(_ request: OpenRequest, formats: [CipherFormat]?, host: GRDBMigrationCLIHost) throws -> (writer: any DatabaseWriter, settings: GRDBConnectionSettings) {
        func settings(_ format: CipherFormat?) -> GRDBConnectionSettings {
            GRDBConnectionSettings(path: request.path, readOnly: request.opensReadOnly, lockTimeout: request.lockTimeout,
                                   key: request.key, cipherFormat: format)
        }
        #if canImport(SQLCipher)
        if let key = request.key, let formats {
            return try GRDBDatabaseFile.openFinding(path: request.path, key: key, formats: formats) { format in
                (try host.openWriter(settings(format)), settings(format))
            }.writer
        }
        #endif
        return try Self.open(settings(nil), host: host)
    }

    /// The app's writer for a file opened without a key.
    private static func open(_ settings: GRDBConnectionSettings, host: GRDBMigrationCLIHost) throws -> (writer: any DatabaseWriter, settings: GRDBConnectionSettings) {
        do {
            return (try host.openWriter(settings), settings)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            // The app's writer met a file that does not open: the library's verdict.
            throw UnreadableDatabaseError(path: settings.path, keyed: false, triedFormats: nil)
        }
    }

    /// The SQLCipher formats to try the key in: the one `--cipher-compatibility` names,
    /// or SQLCipher 4's for a new file, or those an existing file may be in
    /// (`GRDBDatabaseFile.candidateFormats`); nil without a key. The other cipher
    /// settings are the app's to give, in its own `openWriter`.
    private static func formats(of request: OpenRequest, exists: Bool) throws -> [CipherFormat]? {
        guard request.key != nil else { return nil }
        var others = request.cipher
        others.compatibility = nil
        guard others.isDefault, [nil, 3, 4].contains(request.cipher.compatibility) else {
            throw CLIError(.notAvailableHere, "This app's commands open the database through GRDB, which takes SQLCipher's settings in the app's own code; give only --cipher-compatibility 3 or 4, or none.")
        }
        if let compatibility = request.cipher.compatibility { return [compatibility == 3 ? .sqlcipher3 : .sqlcipher4] }
        #if canImport(SQLCipher)
        return exists ? try GRDBDatabaseFile.candidateFormats(request.path) : [.sqlcipher4]
        #else
        // The tree reads no key for a layer that cannot encrypt (`encrypts`).
        throw CLIError(.notAvailableHere, "\(request.path): a key was given, but GRDB here is built on the system's SQLite, which cannot encrypt.")
        #endif
    }

}

extension GRDBStore {
    package func reading<T>(_ body: (any SQLQuerying) throws -> T) throws -> T {
        try writer.read { try body($0) }
    }

    package func changing<T>(_ body: (any BookkeepingExecuting) throws -> T) throws -> T {
        try writer.write { try body($0) }
    }

    /// SQLite's online backup into a new 0600 file at `destination`, keyed as the
    /// database is (its format too), consistent whatever the journal mode.
    package func copy(to destination: String) throws {
        if let failure = FileProbe.createPrivateFile(at: destination) {
            throw CLIError(.fileOperationFailed, "\(destination) cannot be created (\(failure)); check the folder and its permissions.")
        }
        try GRDBDatabaseFile.backUp(writer, configuration: settings.configuration, into: destination)
    }

    package func close() throws { try writer.close() }

    /// From the file's first bytes, never from what the command was given alone: an
    /// app's `openWriter` that keys the file itself gives `custom` where the format is
    /// not known here.
    package func cipherDescription() throws -> DatabaseCipherDescription {
        let header = DatabaseFileHeader(path: path)
        if header.isPlaintextSQLiteDatabase || (header.size == 0 && settings.key == nil) {
            return DatabaseCipherDescription(format: .plaintext, summary: nil, document: nil)
        }
        let format = settings.cipherFormat ?? .custom
        let summary = settings.cipherFormat.map { "\($0), keyed through GRDB" } ?? "encrypted by the app's own configuration"
        return DatabaseCipherDescription(format: format, summary: summary, document: nil)
    }
}

/// The runner's work, as GRDB's runner does it on an app's writer.
extension GRDBStore {
    /// The runner throws what a failing step threw, as GRDB's migrator does; the
    /// commands say which step failed and where, as for the tool's steps: the failure
    /// the observer heard (`MigrationEvent.didFail`). The ledger's reading served the
    /// decisions before the run; GRDB's migrator reads the ledger itself.
    package func migrate(upTo target: String?, options: MigrateOptions, from reading: LedgerReading?) throws -> MigrationReport {
        var runner = self.runner
        let failure = StepFailure()
        let observer = runner.observer
        runner.observer = { event in
            if case .didFail(let error) = event { failure.error = error }
            observer?(event)
        }
        do {
            return try target.map { try runner.migrate(in: writer, upTo: $0, options: options) } ?? runner.migrate(in: writer, options: options)
        } catch {
            throw failure.error ?? error
        }
    }

    package func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport {
        try runner.rollback(selection, in: writer, acceptModified: acceptModified)
    }

    package func baseline(upTo target: String) throws -> [String] { try runner.baseline(in: writer, upTo: target) }

    package func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool) throws -> OtherToolAdoption {
        try runner.adopt(in: writer, from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations)
    }

    package func erase() throws { try runner.erase(writer) }

    package func schemaChange() throws -> SchemaChange? { try runner.schemaChange(in: writer) }

    /// Through the app's own `openWriter` and GRDB's migrator, on a scratch database in
    /// a private folder (encrypted with a random key where GRDB here encrypts). GRDB's
    /// erase-on-schema-change replays as GRDB's `hasSchemaChanges` does instead: GRDB
    /// decides that, and the runner reproduces it.
    package func replayedSchema(upTo target: String?) throws -> [SchemaDump.Object] {
        let scratch = try ScratchFolder(purpose: "diff")
        defer { withExtendedLifetime(scratch) {} }
        var quiet = configured
        quiet.observer = nil
        let request = OpenRequest(path: scratch.path + "/expected.db", key: GRDBLinkedLibrary.linkedSQLCipherVersion != nil ? ScratchFolder.randomKey() : nil,
                                  access: .create, lockTimeout: .seconds(5))
        let expected = try GRDBStore(opening: request, host: host, runner: quiet, locks: CommandLocks())
        defer { try? expected.close() }
        if let target { _ = try expected.migrate(upTo: target, options: MigrateOptions(), from: nil) }
        return try expected.reading { try SchemaDump.objects(in: $0) }
    }

    package func verificationReport() throws -> VerificationReport { try runner.verificationReport(in: writer) }

    /// The host's own snapshot (`GRDBMigrationCLIHost.schemaSnapshot`), or the canonical dump.
    package func schemaDump() throws -> String {
        guard let snapshot = host.schemaSnapshot else { return try reading { try SchemaDump.canonicalSQL(of: $0) } }
        return try writer.read { try snapshot($0) }
    }
}

/// GRDB's runner, as the command tree sets it up.
extension GRDBMigrationRunner: MigrationRunning {}

/// The step failure an observer heard during one migrate.
private final class StepFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var heard: MigrationStepError?

    var error: MigrationStepError? {
        get { lock.withLock { heard } }
        set { lock.withLock { heard = newValue } }
    }
}

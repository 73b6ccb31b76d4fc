import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher
import MigrationKitSecrets

/// `diff --to`: the migration to the schema a file makes.
extension DiffCommand {
    func writeMigration(to schemaFile: String, reporter: Reporter, in world: CommandWorld) throws {
        let desired = try Self.desiredSchema(schemaFile)
        let current: SchemaMigrationProof.Current
        let currentName: String
        var currentKey: DatabaseKey?
        if connection.dbPath != nil {
            // Not announced when the migration itself is the output: `> 0007_x.sql` must
            // hold nothing else.
            let settings = try ConnectionSettings.resolving(connection, access: .inspect, announcing: writeName != nil, reporter: reporter, in: world)
            let writer = try world.host.openWriter(settings)
            current = .database(writer)
            currentName = writer.path
            currentKey = settings.key
        } else {
            connection.key.warnIfOnCommandLine(reporter: reporter, in: world)
            // The host's Swift steps, or the SQL files of `--migrations`.
            current = .migrations(try world.host.runner ?? SQLCipherMigrationRunner(over: connection.migrations.loadFiles(reporter: reporter)))
            currentName = "what \(connection.migrations.directory) makes"
        }
        let desiredSQL: String
        switch desired {
        case .text(let text):
            desiredSQL = text
        case .database(let probe):
            desiredSQL = try schemaText(of: probe, currentKey: currentKey, reporter: reporter, in: world)
        }
        let proof = SchemaMigrationProof(lintContext: minimum.applied(to: .linkedLibrary), allowsDestructiveChanges: allowDrop,
                                         app: AppRegistrations(extensions: world.extensions, prepareDatabase: world.host.prepareDatabase))
        let proven: SchemaMigrationProof.Proven
        do {
            proven = try proof.migration(from: current, to: desiredSQL)
        } catch let refusal as SchemaMigrationProof.Refusal {
            throw Self.error(for: refusal, schemaFile: schemaFile, current: currentName, advice: world.appExtensionAdvice)
        }
        try Interruption.check()
        let migration = proven.migration
        for finding in proven.warnings {
            reporter.warning("the migration's line \(finding.line): \(finding.rule): \(finding.message) (\(finding.fix))")
        }
        guard !migration.isEmpty else {
            reporter.line("No difference: the schema is what \(schemaFile) makes.")
            return try reporter.document(DiffMigrationDocument(database: connection.dbPath, to: schemaFile, migration: migration, files: nil))
        }
        var created: NextMigrationFile.Created?
        if let writeName {
            created = try NextMigrationFile.write(named: writeName, in: connection.migrations.directory, layout: connection.migrations.givenLayout,
                                                     up: migration.upText, down: migration.downText)
            reporter.line("Created \(created!.files.joined(separator: " and ")): the migration from \(currentName) to what \(schemaFile) makes, applied and rolled back on a scratch copy.")
        } else {
            // The file itself, so `diff --to schema.sql > 0007_x.sql` is a migration.
            reporter.line(String(migration.fileText.dropLast()))
        }
        for change in migration.destructiveChanges { reporter.warning("the migration \(change) (--allow-drop)") }
        try reporter.document(DiffMigrationDocument(database: connection.dbPath, to: schemaFile, migration: migration, files: created?.files))
    }

    /// What `--to` names.
    private enum DesiredSchema {
        /// A schema file's text.
        case text(String)
        /// A database whose schema is the one wanted.
        case database(FileProbe)
    }

    /// The schema file's text, or the database `--to` names (a plaintext SQLite file,
    /// or pages that are not text: an encrypted one), told apart by its first page so
    /// a large database is never read whole. A file that cannot be read is named with
    /// what to do.
    private static func desiredSchema(_ path: String) throws -> DesiredSchema {
        let probe = FileProbe(path: path)
        if probe.looksLikeDatabase { return .database(probe) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = probe.kind == .missing ? "no such file" : probe.kind == .directory ? "it is a directory" : "permission denied, or not a file"
            throw CLIError(.unusableFile, "--to \(path) cannot be read (\(reason)); give a file of CREATE statements, such as schema-dump prints, or a database.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError(.unusableFile, "--to \(path) is neither UTF-8 text nor a database; give a file of CREATE statements, such as schema-dump prints, or a database.")
        }
        return .text(text)
    }

    /// The CREATE statements of the database `--to` names, opened read-only: with no
    /// key when it is plaintext, else with the key --db-path's database was opened with
    /// (read once: `--password-file -` cannot be read twice), or, without --db-path,
    /// the key options' key.
    private func schemaText(of probe: FileProbe, currentKey: DatabaseKey?, reporter: Reporter, in world: CommandWorld) throws -> String {
        let settings: ConnectionSettings
        if probe.isPlaintextSQLiteDatabase || currentKey != nil {
            let configuration = SQLCipherConfiguration(forOpening: probe.path, cipher: connection.cipher, lockTimeout: connection.lockTimeout, access: .inspect, in: world)
            settings = ConnectionSettings(path: probe.path, key: probe.isPlaintextSQLiteDatabase ? nil : currentKey, configuration: configuration)
        } else {
            settings = try ConnectionSettings.resolving(path: probe.path, key: connection.key, cipher: connection.cipher, lockTimeout: connection.lockTimeout,
                                                        access: .inspect, announcing: false, reporter: reporter, in: world)
        }
        let other = try world.host.openWriter(settings)
        return try other.read { try SchemaSnapshot(reading: $0) }.schemaText
    }

    private static func error(for refusal: SchemaMigrationProof.Refusal, schemaFile: String, current: String,
                              advice: AppExtensionAdvice = AppExtensionAdvice()) -> CLIError {
        let nothing = "nothing was written"
        // A schema, or its migration, that needs what only the app registers is not wrong:
        // the scratch databases lack it.
        switch refusal {
        case .desiredSchemaFails(let message), .migrationFails(let message):
            if let need = AppExtensionNeed(sqliteMessage: message) {
                return CLIError(.missingOption, "The schema --to \(schemaFile) makes needs \(need), which only the app registers and the scratch databases diff proves its migration on do not have (\(message)); \(advice.howToBringIt). Nothing was written.")
            }
        default:
            break
        }
        switch refusal {
        case .desiredSchemaFails(let message):
            return CLIError(.unusableFile, "--to \(schemaFile) does not run on an empty database with SQLite \(SQLCipherLibrary.sqliteVersion): \(message); fix the file (it should hold the CREATE statements of the schema you want).")
        case .notSchemaStatements(let statements):
            return CLIError(.unusableFile, "--to \(schemaFile) holds statements that are not CREATE statements (\(SchemaMigrationProof.Refusal.listed(statements))); a schema file holds only the CREATE statements of the schema you want (tables, indexes, views, triggers), as schema-dump prints them.")
        case .destructive(let changes):
            return CLIError(.wouldLoseData, "The migration from \(current) to what \(schemaFile) makes would lose data: it \(changes.joined(separator: "; it ")). Nothing was written; give --allow-drop if that is what you want.")
        case .migrationFails(let message):
            return CLIError(.unprovenMigration, "The migration diff wrote from \(current) to what \(schemaFile) makes fails on a scratch copy (\(message)), so \(nothing); write this change by hand.")
        case .notExpressed(let differences):
            let list = differences.map { "\($0.type) \($0.name)" }.joined(separator: ", ")
            return CLIError(.unprovenMigration, "diff cannot express the change from \(current) to what \(schemaFile) makes: applied on a scratch copy, its migration still leaves \(list) different, so \(nothing); write this change by hand.")
        case .notReversed(let differences):
            let list = differences.map { "\($0.type) \($0.name)" }.joined(separator: ", ")
            return CLIError(.unprovenMigration, "diff cannot write the way back from what \(schemaFile) makes to \(current): rolled back on a scratch copy, its migration leaves \(list) different, so \(nothing); write this change by hand.")
        case .lintErrors(let findings):
            let list = findings.map { "line \($0.line): \($0.rule): \($0.message)" }.joined(separator: "; ")
            return CLIError(.lintErrors, "lint finds errors in the migration diff wrote from \(current) to what \(schemaFile) makes (\(list)), so \(nothing); write this change by hand, or give an older --min-sqlite only if the app never runs on it.")
        case .unknownApplied, .pendingBeforeLatestApplied, .replayFailed:
            // Drift's refusals (the current schema when it is what migrations make).
            return CLIError(.migrationsDoNotMakeSchema, "\(refusal) Nothing was written.")
        }
    }
}

/// What `diff --to --json` prints.
struct DiffMigrationDocument: Encodable {
    @AlwaysPresent var database: String?
    let to: String
    /// The statements of the migration's up section, in order (empty: no difference).
    let up: [String]
    /// Its down section.
    let down: [String]
    /// The changes that lose rows or values (allowed by --allow-drop).
    let destructive: [String]
    /// The files --write created, or null.
    @AlwaysPresent var files: [String]?

    init(database: String?, to: String, migration: SchemaMigration, files: [String]?) {
        self.database = database
        self.to = to
        up = migration.up
        down = migration.down
        destructive = migration.destructiveChanges
        self.files = files
    }
}

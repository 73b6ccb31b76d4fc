import Foundation
import MigrationKit

/// The migration from a database's schema (or a migrations folder's) to a desired
/// schema, proven before anyone sees it: `migrationkit diff --to`.
///
/// Everything runs on scratch databases in a private folder, encrypted with a random
/// key and deleted afterwards; the user's database is only read.
///
/// 1. The desired schema's statements run on an empty database.
/// 2. `SchemaMigration` writes the migration from the current schema to that one.
/// 3. Changes that can lose rows are refused unless allowed.
/// 4. On a scratch database with the current schema, the runner applies the migration
///    (with its foreign-key handling and checks), and the result's canonical schema must
///    equal the desired one; it rolls the migration back, and the schema must equal the
///    current one again. Lint must find no error in it.
package struct SchemaMigrationProof: Sendable {
    /// Where the current schema comes from.
    package enum Current {
        /// The schema of this database (only read).
        case database(SQLCipherWriter)
        /// What these migrations make on an empty database.
        case migrations(SQLCipherMigrationRunner)
    }

    /// A migration that passed every proof, with lint's warnings on it.
    package struct Proven: Sendable {
        /// The migration: empty when the schemas are already the same.
        package let migration: SchemaMigration
        /// Lint's warnings on it (a destructive change allowed, a feature newer than
        /// the oldest SQLite asked for), for the caller to show; errors refuse it.
        package let warnings: [LintFinding]
    }

    /// Why there is no migration to show (the proof's cases of the one schema refusal).
    package typealias Refusal = SchemaRefusal

    /// The oldest SQLite the migration must run on, and lint's judgement of it.
    let lintContext: LintContext
    /// Whether changes that can lose rows are allowed (`--allow-drop`).
    let allowsDestructiveChanges: Bool
    /// What only the app registers, brought to every scratch database (`--load-extension`):
    /// a schema with the app's full-text index or a view calling its function is built,
    /// migrated and rolled back with it.
    package let app: AppRegistrations

    /// - Parameters:
    ///   - lintContext: the SQLite the migration must run on (`--min-sqlite`): the
    ///     statements it may use, and lint's judgement of them.
    ///   - allowsDestructiveChanges: whether a migration that drops or narrows is shown.
    ///   - app: what only the app registers, for every scratch database.
    package init(lintContext: LintContext = .linkedLibrary, allowsDestructiveChanges: Bool = false, app: AppRegistrations = AppRegistrations()) {
        self.lintContext = lintContext
        self.allowsDestructiveChanges = allowsDestructiveChanges
        self.app = app
    }

    /// How every scratch database is opened: with the app's registrations.
    private var scratchConfiguration: SQLCipherConfiguration {
        var configuration = SQLCipherConfiguration()
        configuration.app = app
        return configuration
    }

    /// The proven migration from `current` to the schema `desiredSQL` makes; an empty
    /// one when they are the same schema.
    package func migration(from current: Current, to desiredSQL: String) throws -> Proven {
        let scratch = try ScratchFolder(purpose: "diff")
        defer { withExtendedLifetime(scratch) {} }
        let key = ScratchFolder.randomKey()

        let desired = try SQLCipherWriter(path: scratch.path + "/desired.db", key: key, configuration: scratchConfiguration)
        let statements = SQLStatementSplitter.split(desiredSQL)
        let others = statements.filter { !$0.tokens[0].isWord("CREATE") }
        if !others.isEmpty {
            throw Refusal.notSchemaStatements(others.map { ($0.startLine, $0.tokens[0].text.uppercased()) })
        }
        // A TEMP object lives in one connection and no file: a schema with one would
        // otherwise lose it without a word.
        if let temporary = statements.first(where: { $0.tokens.count > 1 && ($0.tokens[1].isWord("TEMP") || $0.tokens[1].isWord("TEMPORARY")) }) {
            throw Refusal.desiredSchemaFails("line \(temporary.startLine): CREATE \(temporary.tokens[1].text.uppercased()) makes an object no database keeps (it lives only in the connection that made it); remove \(temporary.tokens[1].text.uppercased()), or the statement")
        }
        try desired.write { db in
            for statement in statements {
                do {
                    // SQLite's own tables (`sqlite_sequence`, `sqlite_stat1`, …), which the
                    // shells' `.schema` prints, are made by SQLite itself, never by a schema.
                    if let table = TableDefinition(sql: statement.text), table.name.lowercased().hasPrefix("sqlite_") { continue }
                    if let table = TableDefinition(sql: statement.text), !table.isVirtual,
                       try SchemaSnapshot.isShadowTable(table.name, in: db) { continue }
                    try db.execute(sql: statement.text)
                } catch {
                    // The line SQLite points at (a missing `;` shows on the next line's
                    // first word), else the statement's first.
                    let line = (error as? SQLCipherError)?.location.map { statement.startLine + $0.line - 1 } ?? statement.startLine
                    throw Refusal.desiredSchemaFails("line \(line): \(SQLCipherDatabase.message(of: error))")
                }
            }
            // SQLite creates a view that names a column no table has and fails only when
            // it is read: read each, so a schema that drops a column a view still uses is
            // named here, not applied and broken afterwards.
            for view in try db.fetchStrings(sql: "SELECT name FROM main.sqlite_master WHERE type = 'view' ORDER BY name") {
                do {
                    try db.execute(sql: "SELECT * FROM main.\(quoteIdentifier(view)) LIMIT 0")
                } catch {
                    let line = statements.first { $0.tokens.contains { $0.nameValue?.caseInsensitiveCompare(view) == .orderedSame } && $0.tokens.contains { $0.isWord("VIEW") } }?.startLine
                    throw Refusal.desiredSchemaFails("\(line.map { "line \($0): " } ?? "")view \(view): \(SQLCipherDatabase.message(of: error))")
                }
            }
        }
        let currentWriter: SQLCipherWriter
        switch current {
        case .database(let writer):
            currentWriter = writer
        case .migrations(var runner):
            runner.observer = nil
            currentWriter = try SQLCipherWriter(path: scratch.path + "/current.db", key: key, configuration: scratchConfiguration)
            try runner.migrate(in: currentWriter)
        }
        let desiredSnapshot = try desired.read { try SchemaSnapshot(reading: $0) }
        let (currentSnapshot, migration) = try currentWriter.read { db in
            let snapshot = try SchemaSnapshot(reading: db)
            let migration = try SchemaMigration.between(current: snapshot, desired: desiredSnapshot, oldestSQLite: lintContext.sqliteVersion) { table, column in
                try db.fetchInt(sql: "SELECT EXISTS (SELECT 1 FROM main.\(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NULL)") == 1
            }
            return (snapshot, migration)
        }
        guard !migration.isEmpty else { return Proven(migration: migration, warnings: []) }
        if !allowsDestructiveChanges, !migration.destructiveChanges.isEmpty {
            throw Refusal.destructive(migration.destructiveChanges)
        }

        // A copy of the current schema and a sample of its rows, without the ledger: the
        // migration is its only step. Rows go in before the triggers exist, so none fires.
        let proof = try SQLCipherWriter(path: scratch.path + "/proof.db", key: key, configuration: scratchConfiguration)
        try proof.writeWithoutTransaction { db in
            try db.setForeignKeysEnabled(false)
            defer { try? db.setForeignKeysEnabled(true) }
            try db.execute(sql: "BEGIN")
            for object in currentSnapshot.objects where object.type == "table" { try db.execute(sql: object.sql) }
            try copySample(of: currentSnapshot, from: currentWriter, into: db)
            // A full-text index over another table's rows is filled from them, as the
            // database's own was: otherwise its integrity check fails on the copy.
            for object in currentSnapshot.objects where object.type == "table" {
                if let fill = SchemaMigration.fill(object) { try db.execute(sql: fill) }
            }
            for type in ["index", "view", "trigger"] {
                for object in currentSnapshot.objects where object.type == type { try db.execute(sql: object.sql) }
            }
            try db.execute(sql: "COMMIT")
        }
        let folder = scratch.path + "/migrations"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data(migration.fileText.utf8).write(to: URL(fileURLWithPath: folder + "/0001_diff.sql"))
        let files = try SQLMigrationDirectory(path: folder, layout: .migrationKit).load()
        let runner = try SQLCipherMigrationRunner(steps: files.map { SQLCipherMigrationStep(file: $0) })
        let context = try proof.read { try LintContext.reading($0, for: files) }
        let findings = MigrationLinter(context: context.judgedAgainst(minimum: lintContext.sqliteVersion)).lint(files)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty { throw Refusal.lintErrors(errors) }

        let currentSchema = try proof.read { try SchemaDump.objects(in: $0) }
        let desiredSchema = try desired.read { try SchemaDump.objects(in: $0) }
        do {
            try runner.migrate(in: proof)
        } catch {
            throw Refusal.migrationFails(Self.words(of: error))
        }
        let expressed = SchemaDifference.between(expected: desiredSchema, actual: try proof.read { try SchemaDump.objects(in: $0) })
        if !expressed.isEmpty { throw Refusal.notExpressed(expressed) }
        do {
            try runner.rollbackLastMigration(in: proof)
        } catch {
            throw Refusal.migrationFails(Self.words(of: error))
        }
        let reversed = SchemaDifference.between(expected: currentSchema, actual: try proof.read { try SchemaDump.objects(in: $0) })
        if !reversed.isEmpty { throw Refusal.notReversed(reversed) }
        return Proven(migration: migration, warnings: findings)
    }

    /// How many rows of each table the proof copies: enough to meet the NULLs, the
    /// duplicates and the foreign keys a migration trips over, few enough that a large
    /// database is proven in moments.
    static let sampleRowsPerTable = 1000

    /// The first rows of every ordinary table (a full-text index over another table is
    /// filled from it afterwards), their stored columns only.
    private func copySample(of snapshot: SchemaSnapshot, from source: SQLCipherWriter, into target: SQLCipherDatabase) throws {
        for (table, columns) in snapshot.columns where !columns.isEmpty {
            let names = columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            let rows = try source.read { try $0.fetchAll(sql: "SELECT \(names) FROM main.\(quoteIdentifier(table)) LIMIT \(Self.sampleRowsPerTable)") }
            for row in rows {
                try target.execute(sql: "INSERT INTO main.\(quoteIdentifier(table)) (\(names)) VALUES (\(placeholders))", arguments: row.values)
            }
        }
    }

    /// SQLite's words for a failed step, without the scratch folder's path.
    private static func words(of error: any Error) -> String {
        if let failure = error as? MigrationStepError {
            let line = failure.line.map { "line \($0) of the migration: " } ?? ""
            return (failure.phase == .rollback ? "rolling back, " : "") + line + SQLCipherDatabase.message(of: failure.underlying)
        }
        return SQLCipherDatabase.message(of: error)
    }
}

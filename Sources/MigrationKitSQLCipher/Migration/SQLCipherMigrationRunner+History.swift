import Foundation
import MigrationKit

extension SQLCipherMigrationRunner {
    // MARK: - Baseline

    /// Records every step up to and including `target` as applied without running it,
    /// for a database whose schema predates MigrationKit (Flyway's `baseline`,
    /// golang-migrate's `force`). Steps already recorded are left as they are.
    ///
    /// - Returns: the identifiers newly recorded.
    /// - Throws: `.unknownMigration`; `.databaseAlreadyMigratedBeyond` when a step after
    ///   `target` is applied; `.databaseSuperseded` for a ledger with unknown steps.
    /// The identifiers `baseline(in:upTo:)` would record, reading only.
    package func baselinePlan(in writer: SQLCipherWriter, upTo target: String) throws -> [String] {
        let targetIndex = try registry.index(ofTarget: target)
        return try writer.read { try engine.baselinePlan($0, through: targetIndex) }
    }

    @discardableResult
    package func baseline(in writer: SQLCipherWriter, upTo target: String) throws -> [String] {
        let targetIndex = try registry.index(ofTarget: target)
        return try writer.writeWithoutTransaction { try engine.baseline($0, through: targetIndex) }
    }

    // MARK: - Adopting another tool's database

    /// Takes over a database another migration tool migrated (golang-migrate, dbmate,
    /// sqlx, diesel, goose, Flyway, Prisma, Drizzle, refinery, Cloudflare D1, sql-migrate,
    /// Liquibase, Atlas, yoyo) or an app's own `PRAGMA user_version` ladder: reads
    /// that tool's ledger (`OtherToolLedger`), maps each version it records to the step of
    /// the migration file that carries it (a ladder's N to the first N steps, SQLDelight's
    /// N to every `K.sqm` below N), proves that
    /// the database's schema is what those steps make on an empty scratch database, and
    /// records them as applied, in one transaction. Then `migrate(in:)` runs the rest.
    ///
    /// An app moving off a `user_version` ladder calls it at launch, before
    /// `migrate(in:)`, while `migrationStatus(in:)` shows nothing applied and the ladder
    /// is above 0; once adopted, its ledger says what is applied.
    ///
    /// - Parameters:
    ///   - writer: the database, opened with its key.
    ///   - tool: the tool whose ledger to read; nil reads the only one the database has.
    ///   - retiringLedger: drop the other tool's ledger tables (set `user_version` to 0)
    ///     in the same transaction; by default they stay as they were, and schema
    ///     comparisons leave them out.
    ///   - dryRun: read, map and prove, and write nothing.
    ///   - acceptingCodeMigrations: versions the tool ran as code (Flyway's Java and
    ///     Kotlin migrations) that no file carries are passed over, for a fleet in which
    ///     no database is older than them; by default they are refused, since a
    ///     database not yet past them would never get what they do.
    /// - Throws: `OtherToolAdoptionError` naming every problem (a dirty or failed record,
    ///   a version no file carries, an edited file, a managed database, a schema that
    ///   differs), with nothing written.
    @discardableResult
    public func adopt(in writer: SQLCipherWriter, from tool: OtherTool? = nil, retiringLedger: Bool = false,
                      dryRun: Bool = false, acceptingCodeMigrations: Bool = false) throws -> OtherToolAdoption {
        try writer.writeWithoutTransaction { db in
            try engine.adopt(db, from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations) { steps in
                try replayedSchema(of: steps, configuredLike: writer)
            }
        }
    }

    // MARK: - Erase on schema change (development only)

    /// Whether the database's history no longer matches the registered steps, and why:
    /// applied steps removed or renamed, applied steps edited, or a schema that differs
    /// from what the applied steps produce (found by replaying them into a scratch
    /// database in the same format, as GRDB does, under a random key). Nil when the
    /// history matches.
    package func schemaChange(in writer: SQLCipherWriter) throws -> SchemaChange? {
        try writer.read { db in try engine.schemaChange(db) { try replayedSchema(of: $0, configuredLike: writer) } }
    }

    /// Erases the database when its history no longer matches (see `schemaChange`),
    /// then migrates. For development databases only: erasing deletes every row.
    ///
    /// - Returns: the change that caused an erase (nil when none was needed) and the
    ///   migration report.
    @discardableResult
    func migrateErasingOnSchemaChange(in writer: SQLCipherWriter, options: MigrateOptions = MigrateOptions()) throws -> (erased: SchemaChange?, report: MigrationReport) {
        let change = try schemaChange(in: writer)
        if change != nil { try erase(writer) }
        return (change, try migrate(in: writer, options: options))
    }

    /// Drops every table, view, index and trigger, the ledger and MigrationKit's history,
    /// and resets `user_version`, in one transaction.
    package func erase(_ writer: SQLCipherWriter) throws {
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout, heldBy: heldChangeLock)
        defer { lock.release() }
        try writer.writeWithoutTransaction { try engine.erase($0) }
    }

    /// The schema `steps` produce, applied in order to an empty database in a private
    /// temporary folder removed afterwards: what erase-on-schema-change and `diff`
    /// compare a database with. Encrypted in the writer's format, with a random raw key
    /// (the schema does not depend on the key, and no key is derived for it).
    ///
    /// - Throws: the `MigrationStepError` of a step that fails on the empty database.
    package func replayedSchema(of steps: [SQLCipherMigrationStep], configuredLike writer: SQLCipherWriter) throws -> [SchemaDump.Object] {
        let replayFolder = try ScratchFolder(purpose: "replay")
        defer { withExtendedLifetime(replayFolder) {} }
        let folder = replayFolder.path
        var configuration = writer.configuration
        configuration.createIfMissing = true
        configuration.readOnly = false
        let scratch = try SQLCipherWriter(path: folder + "/replay.db", key: writer.key.map { _ in ScratchFolder.randomKey() },
                                          configuration: configuration)
        defer { try? scratch.close() }
        var replay = try SQLCipherMigrationRunner(steps: steps, host: host, verifier: MigrationVerifier())
        replay.allowOutOfOrder = true
        // The steps' own effects only: no verification of the scratch copy.
        replay.host = MigrationHostIntegration(verifyIntegrity: { _ in }, verifyPostMigration: { _ in })
        try replay.migrate(in: scratch)
        return try scratch.read { try SchemaDump.objects(in: $0) }
    }
}

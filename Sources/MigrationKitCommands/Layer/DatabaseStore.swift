import Foundation
import MigrationKit

/// An open database as the command tree reaches it: the one seam between the commands and
/// a database library, implemented by SQLCipher's (`migrationkit`) and by an app's GRDB
/// writer (the commands a GRDB app embeds), each holding the migration runner a command
/// set up (`CommandMigrations`), under the change locks the command holds.
///
/// Its first part is the database itself: rows read for a check, one transaction of
/// plain SQL, a copy. Its second is what the store's runner does to it, each library its
/// own way (GRDB's migrator runs a GRDB app's steps; the SQLCipher runner its own): the
/// core's engine under both. Planning from a ledger reading needs no store
/// (`CommandMigrations`).
///
/// A store is made by its command line's layer from an `OpenRequest`, with the key
/// derived once, and used by one command at a time through its `MigrationSession`.
package protocol DatabaseStore: AnyObject {
    /// The database file, as the command named it.
    var path: String { get }

    /// Runs `body` in a read of the database: its rows, for checks, lint and dumps
    /// written once for both libraries, and the ledger (`LedgerReading.read`).
    func reading<T>(_ body: (any SQLQuerying) throws -> T) throws -> T

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committed when it
    /// returns: a change of plain SQL that is no migration (`optimize`).
    func changing<T>(_ body: (any BookkeepingExecuting) throws -> T) throws -> T

    /// Writes the database's committed state to a new file at `destination` (mode 0600),
    /// keyed and in the format the database is, consistent whatever its journal mode and
    /// without writing to the database: a backup's copy, or a check's of an older
    /// database.
    func copy(to destination: String) throws

    /// The database's encryption, for `status`.
    func cipherDescription() throws -> DatabaseCipherDescription

    /// Removes the file when this store's open created it and nothing was kept in it; the
    /// store is closed then. Whether it was removed.
    @discardableResult func discardIfCreated() -> Bool

    /// Closes the database (a WAL database is checkpointed into its file).
    func close() throws

    // MARK: - The runner's work

    /// Migrates up to `target` (every step when nil), planning first from `reading` when
    /// the command read the ledger and wrote nothing since.
    func migrate(upTo target: String?, options: MigrateOptions, from reading: LedgerReading?) throws -> MigrationReport
    /// Rolls back `selection` (`.newer`: steps back from a newer version's migrations).
    func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport
    /// Records the migrations up to `target` as applied without running them.
    func baseline(upTo target: String) throws -> [String]
    /// Records what another tool applied, proven against the schema; throws
    /// `OtherToolAdoptionError` with nothing written.
    func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool) throws -> OtherToolAdoption
    /// Erases every object and the ledger.
    func erase() throws
    /// How the schema differs from what its applied steps make (`eraseDatabaseOnSchemaChange`).
    func schemaChange() throws -> SchemaChange?
    /// The schema the steps up to `target` (none when nil) make on an empty database
    /// opened as this one is, which is only read. Throws the `MigrationStepError` of a
    /// step that fails there.
    func replayedSchema(upTo target: String?) throws -> [SchemaDump.Object]
    /// Every check the verifier makes, on the database as it is.
    func verificationReport() throws -> VerificationReport
    /// The schema as `schema-dump` prints it: the host's own snapshot, if it has one.
    func schemaDump() throws -> String
}

/// A database's encryption as `status` reports it.
package struct DatabaseCipherDescription: Sendable {
    /// The format: `sqlcipher4`, …, `plaintext`.
    package var format: CipherFormat
    /// Its settings in one line, or nil for a plaintext database.
    package var summary: String?
    /// Its settings for `--json` (the SQLCipher layer's `EffectiveCipherSettings`), or nil.
    package var document: (any Encodable & Sendable)?

    package init(format: CipherFormat, summary: String?, document: (any Encodable & Sendable)?) {
        self.format = format
        self.summary = summary
        self.document = document
    }

    /// The lines `status` prints for it, which a command that wrote a database prints
    /// for the file it wrote (`encrypt`): "  cipher:  SQLCipher 4 defaults: …" and
    /// "  format:  sqlcipher4".
    package var lines: [String] {
        ["  cipher:  \(summary ?? "none (plaintext database)")", "  format:  \(format.rawValue)"]
    }
}

/// A layer's own value in a `--json` document, encoded as the layer encodes it.
package struct AnyEncodable: Encodable, Sendable {
    private let value: any Encodable & Sendable

    package init(_ value: any Encodable & Sendable) {
        self.value = value
    }

    package func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

import Foundation
import MigrationKit

/// An open database as the command tree reaches it: the one seam between the commands and
/// a database library, implemented by SQLCipher's writer (`migrationkit`) and by an app's
/// GRDB writer (the commands a GRDB app embeds). Everything a command does to a database
/// is a migration runner's work on it (`MigrationRunning`, whose writer a store is) or is
/// written once over these few requirements: reading rows for a check, one transaction of
/// SQL, a copy.
///
/// A store is made by its command line's layer from an `OpenRequest`
/// (`CommandMigrations.open`), with the key derived once, and used by one command at a time
/// through its `MigrationSession`.
package protocol DatabaseStore: AnyObject {
    /// The database file, as the command named it.
    var path: String { get }

    /// Runs `body` in a read of the database: its rows, for checks, lint and dumps
    /// written once for both libraries.
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

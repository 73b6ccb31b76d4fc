import MigrationKitCommands
import MigrationKitSQLCipher

/// Backups of a SQLCipher writer, for the commands only SQLCipher has (encrypt, rekey,
/// cipher-upgrade, restore), in the folder and number the backup options say.
extension BackupOptions {
    /// Writes a backup of the writer's database. `sparing` names files pruning must
    /// keep (the backup being restored).
    func create(of writer: SQLCipherWriter, sparing: Set<String> = [], in world: CommandWorld) throws -> String {
        try writing({ try DatabaseBackup.create(of: writer, in: $0, keep: $1, sparing: $2) }, sparing: sparing, in: world)
    }

    /// Keeps the raw bytes of a database file that cannot be opened, as a backup.
    func createRawCopy(ofFileAt path: String, sparing: Set<String> = [], in world: CommandWorld) throws -> String {
        try writing({ try DatabaseBackup.createRawCopy(ofFileAt: path, in: $0, keep: $1, sparing: $2) }, sparing: sparing, in: world)
    }
}

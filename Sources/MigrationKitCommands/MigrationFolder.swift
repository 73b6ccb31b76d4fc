import MigrationKit

extension MigrationsOptions {
    /// The SQL migration files of `--migrations`, as every command line reads them.
    /// Warns about files that look like migrations but are not read, and about a folder
    /// with no migration at all (a mistyped --migrations otherwise reads "up to date").
    package func loadFiles(reporter: Reporter) throws -> [SQLMigrationFile] {
        let folder = SQLMigrationDirectory(path: directory)
        let files = try folder.load()
        for lookalike in folder.ignoredLookalikes() { reporter.warning(lookalike) }
        if files.isEmpty {
            reporter.warning("\(directory) holds no migration files (NAME.sql, or NAME.up.sql and NAME.down.sql); check --migrations.")
        }
        return files
    }
}

import MigrationKit

extension MigrationsOptions {
    /// The SQL migration files of `--migrations`, as every command line reads them.
    /// Warns about files that look like migrations but are not read, and about a folder
    /// with no migration at all (a mistyped --migrations otherwise reads "up to date").
    package func loadFiles(reporter: Reporter) throws -> [SQLMigrationFile] {
        let read = try readFiles()
        for warning in read.warnings { reporter.warning(warning) }
        return read.files
    }

    /// `loadFiles`' work with its warnings returned, not printed: for a thread of its
    /// own, whose caller prints them once the thread is done.
    func readFiles() throws -> (files: [SQLMigrationFile], warnings: [String]) {
        let folder = self.folder
        let files = try folder.load()
        var warnings = folder.ignoredLookalikes()
        if files.isEmpty {
            warnings.append("\(directory) holds no migration files (NAME.sql, or NAME.up.sql and NAME.down.sql); check --migrations.")
        }
        return (files, warnings)
    }
}

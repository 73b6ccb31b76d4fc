import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeyOptions

/// `{name}` in a key source: each database of a fleet names its own key. Here rather
/// than beside the key options because a database's name follows its symbolic links,
/// which the file layer resolves (`DurableFile`).
extension KeyOptions {
    /// These options with `{name}` replaced by the name of the database at `path`: its
    /// file name without the last extension (`tenants/acme.db` is `acme`). Only
    /// `CommandSupport.resolveKey` calls it, for every command.
    package func forDatabase(at path: String) -> KeyOptions {
        var options = self
        options.given = given.forDatabase(named: Self.databaseName(path))
        return options
    }

    /// The name of the file a path names: a symbolic link (an alias such as
    /// `current.db`) stands for its target, whose key it is.
    package static func databaseName(_ path: String) -> String {
        let real = DurableFile.resolvingSymlinks(path)
        let file = real.split(separator: "/").last.map(String.init) ?? real
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }
}

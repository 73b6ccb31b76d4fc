#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where every database file MigrationKit creates is made, whichever connection then
/// opens it: empty, readable and writable by its owner only (0600), so SQLite (which
/// creates files 0644 and gives journals the database's mode) never exposes a database
/// or its journals to other users.
package enum PrivateFile {
    /// Creates the file at `path`, which must not exist. Returns nil, or the `errno`
    /// that says why it could not be created.
    ///
    /// The path reaches the kernel as written: normalised, `app.db/` would create
    /// `app.db` instead of failing.
    package static func create(at path: String) -> Int32? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        return nil
    }
}

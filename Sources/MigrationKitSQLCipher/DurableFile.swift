#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// File operations for replacing a database (or writing a file the tool creates) so
/// that a crash at any instant leaves either the old file or the new one, whole:
/// write beside, flush, rename over, flush the directory.
public enum DurableFile {
    /// Flushes a file's data to disk.
    public static func synchronize(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("flush", path) }
    }

    /// Flushes a directory, making a rename inside it durable.
    public static func synchronizeDirectory(containing path: String) throws {
        let directory = DirectoryLock.parent(of: path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("flush", directory) }
    }

    /// Atomically puts `source` in place of `destination` (same directory), durably.
    public static func replace(_ destination: String, with source: String) throws {
        try synchronize(source)
        guard rename(source, destination) == 0 else { throw failure("rename", source) }
        try synchronizeDirectory(containing: destination)
    }

    /// Writes `bytes` to a new file at `path` with mode 0600, whole or not at all.
    /// With `replacing` false an existing file is an error and is left alone.
    public static func writePrivate(_ bytes: [UInt8], to destination: String, replacing: Bool) throws {
        let path = resolvingSymlinks(destination)
        if !replacing, FileProbe(path: path).kind != .missing {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 message: "The file already exists; choose another name or remove it.", path: path)
        }
        let temporary = siblingPath(of: path, purpose: "write")
        _ = unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", path) }
        var written = 0
        var writeError: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    writeError = errno
                    return
                }
                written += count
            }
        }
        close(descriptor)
        do {
            if writeError != 0 { throw failure("write", path, errnoValue: writeError) }
            try replace(path, with: temporary)
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }

    /// The file a path names, symbolic links followed; the path itself when it does not
    /// exist. In-place work (encrypt, restore, overwrite) must replace the target: a
    /// rename over a symbolic link would replace the link and leave the real file as it
    /// was (a plaintext database staying plaintext beside an encrypted link).
    public static func resolvingSymlinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether two paths name the same file (same device and inode), links followed.
    public static func sameFile(_ lhs: String, _ rhs: String) -> Bool {
        var left = stat()
        var right = stat()
        guard stat(lhs, &left) == 0, stat(rhs, &right) == 0 else { return false }
        return left.st_dev == right.st_dev && left.st_ino == right.st_ino
    }

    /// A hidden path beside `path`, for a file that will be renamed over it: same
    /// directory, so the rename is atomic; fixed name per purpose, so a leftover from
    /// an interrupted run is found and replaced rather than piling up.
    public static func siblingPath(of path: String, purpose: String) -> String {
        let directory = DirectoryLock.parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return (directory == "." && !path.hasPrefix("./") ? "" : directory + "/") + ".\(name).migrationkit-\(purpose)"
    }

    /// Removes a file if it exists (with its SQLite journal), ignoring absence.
    public static func removeIfPresent(_ path: String) {
        _ = unlink(path)
        _ = unlink(path + "-journal")
    }

    static func failure(_ operation: String, _ path: String, errnoValue: Int32 = errno) -> SQLCipherError {
        let code: ResultCode = errnoValue == ENOSPC ? .SQLITE_FULL : .SQLITE_IOERR
        return SQLCipherError(kind: .fileSystem, resultCode: code,
                              message: "Could not \(operation) the file (\(FileProbe.describe(errno: errnoValue))).", path: path)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import MigrationKit
import MigrationKitSecrets
import SystemPackage

/// Reads a key file under the rules in `Keys/README.md`.
///
/// The whole file is the key text, read by the `KeyText` rule. The file must be a regular
/// file of at most `KeySource.maximumKeyLength` bytes that neither group nor others can
/// write (someone who can write it can swap the key, e.g. to one they know, before a
/// rekey). If group or others can read it, the key is still used but a warning gives the
/// `chmod 600` fix, as `psql` does for `.pgpass`.
struct KeyFile {
    let path: String
    /// How the file's text gives the key: the text form, or a passphrase in hex.
    var form: KeyText.Form = .text
    /// The SQLCipher the key is read for, when known (`KeyText.key`).
    var library: SQLCipherVersion?

    func read(warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        // Look at the type before opening: opening a FIFO for reading would wait for a
        // writer, and opening a device can have side effects.
        let pathMode: mode_t
        do {
            pathMode = try Self.stat(path).mode.rawValue
        } catch {
            throw openError(error.rawValue)
        }
        try checkType(pathMode)

        // O_NONBLOCK as a second guard in case the path is swapped for a FIFO in between.
        let fd: FileDescriptor
        do {
            fd = try Self.openFile(path, options: [.nonBlocking, .noControllingTerminal, .closeOnExec])
        } catch {
            throw openError(error.rawValue)
        }
        defer { try? fd.close() }
        // From here on, only what the open descriptor says counts. The C struct: the
        // sentences below read its st_mode.
        let status: stat
        do {
            status = try fd.stat().rawValue
        } catch {
            throw unreadable(error.rawValue)
        }
        try checkType(status.st_mode)

        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw KeyError(
                code: .keyFileWritableByOthers,
                message: "Key file \(path) is writable by \(whom(group: status.st_mode & S_IWGRP != 0, others: status.st_mode & S_IWOTH != 0)), so someone else could replace the key; make it private with `chmod 600 \(path)`.",
                path: path)
        }
        if status.st_size > KeySource.maximumKeyLength {
            throw tooLarge()
        }

        let text: SecretBytes
        switch BoundedReader.read(fd: fd.rawValue, limit: KeySource.maximumKeyLength) {
        case .text(let bytes): text = bytes
        case .tooLarge: throw tooLarge()  // it grew after fstat
        case .failed(let code): throw unreadable(code)
        }
        if status.st_mode & (S_IRGRP | S_IROTH) != 0 {
            warn(KeyWarning(
                code: .keyFileReadableByOthers,
                message: "Key file \(path) is readable by \(whom(group: status.st_mode & S_IRGRP != 0, others: status.st_mode & S_IROTH != 0)); make it private with `chmod 600 \(path)`.",
                path: path))
        }
        return try KeyText.key(
            from: text, origin: "key file \(path)", path: path, form: form, library: library,
            empty: KeyError(
                code: .keyFileEmpty,
                message: form == .hex
                    ? "Key file \(path) is empty; write the passphrase's bytes into it as hex digits, two per byte."
                    : "Key file \(path) is empty; write the passphrase (or x'<64 hex digits>' for a raw key) into it.",
                path: path),
            warn: warn)
    }

    private func checkType(_ mode: mode_t) throws {
        switch mode & S_IFMT {
        case S_IFREG:
            return
        case S_IFDIR:
            throw KeyError(
                code: .keyFileIsDirectory,
                message: "Key file \(path) is a directory; give the path of the file that holds the key.",
                path: path)
        default:
            throw notRegular()
        }
    }

    private func openError(_ code: Int32) -> KeyError {
        switch code {
        case ENOENT, ENOTDIR:
            return KeyError(
                code: .keyFileNotFound,
                message: "Key file \(path) does not exist; check the path, or create it as described in Keys/README.md.",
                path: path)
        case ENXIO:
            // A Unix socket: it cannot be opened like a file.
            return notRegular()
        default:
            return unreadable(code)
        }
    }

    // MARK: - The path as written

    // Through the C string, not `FilePath(path)`: that normalises the path first (drops
    // a trailing `/`, merges `//`), so `--password-file key/` would read `key` instead
    // of being refused as open(2) refuses it (ENOTDIR).

    /// `stat(2)` of `path` as written.
    private static func stat(_ path: String) throws(Errno) -> Stat {
        do {
            return try path.withCString { try Stat($0) }
        } catch {
            throw error as? Errno ?? Errno(rawValue: EIO)
        }
    }

    /// `open(2)` of `path` as written, read-only.
    private static func openFile(_ path: String, options: FileDescriptor.OpenOptions) throws(Errno) -> FileDescriptor {
        do {
            return try path.withCString { try FileDescriptor.open($0, .readOnly, options: options) }
        } catch {
            throw error as? Errno ?? Errno(rawValue: EIO)
        }
    }

    private func unreadable(_ code: Int32) -> KeyError {
        KeyError(
            code: .keyFileUnreadable,
            message: code == EACCES || code == EPERM
                ? "Key file \(path) cannot be read (permission denied); run as the user it belongs to or, if it is yours, make it readable with `chmod 600 \(path)`."
                : "Key file \(path) cannot be read (\(errnoDescription(code))).",
            path: path)
    }

    private func notRegular() -> KeyError {
        KeyError(
            code: .keyFileNotRegular,
            message: "Key file \(path) is not a regular file (a FIFO, socket or device); to pass the key through a pipe, use - to read it from standard input.",
            path: path)
    }

    private func tooLarge() -> KeyError {
        KeyError(
            code: .keyFileTooLarge,
            message: "Key file \(path) is larger than \(KeySource.maximumKeyLength) bytes, so it is not a key file; check the path.",
            path: path)
    }

    private func whom(group: Bool, others: Bool) -> String {
        switch (group, others) {
        case (true, true): return "its group and others"
        case (true, false): return "its group"
        default: return "others"
        }
    }
}

private extension FileDescriptor.OpenOptions {
    /// `O_NOCTTY`, which swift-system 1.8.1 does not name: a key path that turns out to
    /// be a terminal must not become this process's controlling terminal.
    static var noControllingTerminal: Self { Self(rawValue: O_NOCTTY) }
}

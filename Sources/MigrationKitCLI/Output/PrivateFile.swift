import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes files the tool creates with mode 0600, whole or not at all: the data goes to
/// a temporary file beside the target, is flushed to disk, and is renamed over it.
enum PrivateFile {
    /// Creates a folder (and its parents) unless it exists, turning Foundation's error
    /// into one sentence: a symbolic-link loop or a file in the way would otherwise
    /// surface as an NSCocoaErrorDomain dump.
    static func createDirectory(_ path: String, purpose: String, mode: Int? = nil) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError(.fileError, "\(path): This is a file, not a folder; give another path for the \(purpose).")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: mode.map { [.posixPermissions: $0] })
        } catch {
            throw CLIError(.fileError, "\(path): The \(purpose) cannot be created; check the path (a symbolic link that leads nowhere or in a loop, or a file where a folder should be) and its permissions.")
        }
    }

    static func write(_ data: Data, to path: String, replacing: Bool) throws {
        if !replacing && FileManager.default.fileExists(atPath: path) {
            throw CLIError(.fileError, "\(path) already exists; choose another name or remove it.")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CLIError(.fileError, "\(path) cannot be written (\(String(cString: strerror(errno)))); check that its folder exists and is writable.")
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw CLIError(.fileError, "\(path) could not be written (\(String(cString: strerror(failure)))).")
        }
    }
}

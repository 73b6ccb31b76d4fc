import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private temporary directory for one test, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init() throws {
        let base = FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("migrationkit-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Traversable by others, so tests can run a child as an unprivileged user.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `contents` to `name` and gives it exactly `mode` (whatever the umask).
    @discardableResult
    public func write(_ name: String, _ contents: String, mode: Int = 0o600) throws -> String {
        try write(name, Data(contents.utf8), mode: mode)
    }

    @discardableResult
    public func write(_ name: String, _ contents: Data, mode: Int = 0o600) throws -> String {
        let path = self.path(name)
        try contents.write(to: URL(fileURLWithPath: path))
        guard chmod(path, mode_t(mode)) == 0 else { throw POSIXError(.EPERM) }
        return path
    }

    deinit {
        // Restore write permission first, in case a test made something read-only.
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }
}

/// Whole-file bytes, to prove a failure left a file exactly as it was.
public func fileBytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

/// The file's permission bits.
public func fileMode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

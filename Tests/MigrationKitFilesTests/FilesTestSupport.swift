import Foundation
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a file through an open file of its own. `flock` locks belong to
/// an open file, not to a process, so a second open in this process stands for another
/// process: it waits for the change lock, and the change lock waits for it.
final class OtherFlock: @unchecked Sendable {
    private var descriptor: Int32

    /// Locks `path` now, or fails the test.
    init(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0, "cannot open \(path)", sourceLocation: sourceLocation)
        try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0, "\(path) is already locked", sourceLocation: sourceLocation)
    }

    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    /// Whether someone holds an exclusive `flock` on `path` now: a new open of it cannot
    /// take one without waiting.
    static func isLocked(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }
}

/// The names in a folder, sorted.
func names(in folder: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
}

/// A file's text, nil when it is missing.
func text(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

/// `stat(2)` of a path, links not followed.
func status(_ path: String) -> stat? {
    var info = stat()
    return lstat(path, &info) == 0 ? info : nil
}

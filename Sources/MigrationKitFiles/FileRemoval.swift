#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Removing files by name: work files, markers, journals, stale backups. This package's
/// one caller of `unlink(2)`, which swift-system 1.8.1 does not wrap, so every removal
/// behaves alike. (Folders are removed through `FileManager` in `ScratchFolder` and
/// `Interruption`.)
package enum FileRemoval {
    /// Removes the name `path`, and says whether it did. A failure (absence included)
    /// leaves `errno` set for a caller that needs the reason.
    @discardableResult
    package static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Removes each of `paths`, whatever became of the others: cleanup after a failure
    /// or of leftovers, where a file that is already gone is the goal reached.
    package static func remove(_ paths: [String]) {
        for path in paths { remove(path) }
    }
}

import Foundation
import Glibc
import MigrationKitFiles

#if canImport(Glibc)
#endif

/// Folders the tool creates (a migrations folder, a backup folder). Files it writes go
/// through `DurableFile.writePrivate` (mode 0600, whole or not at all).
enum Folders {
    /// Creates a folder (and its parents) unless it exists, turning Foundation's error
    /// into one sentence: a symbolic-link loop or a file in the way would otherwise
    /// surface as an NSCocoaErrorDomain dump.
    package static func create(_ path: String, purpose: String, mode: Int) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError(.unusableFile, "\(path): This is a file, not a folder; give another path for the \(purpose).")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: mode])
        } catch {
            throw CLIError(.unusableFile, "\(path): The \(purpose) cannot be created; check the path (a symbolic link that leads nowhere or in a loop, or a file where a folder should be) and its permissions.")
        }
    }
}

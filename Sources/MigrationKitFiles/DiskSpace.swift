import MigrationKit

/// Room on the disk for what a command writes beside a database before it changes it
/// (a rekey's journal, the copy `encrypt --in-place` or `cipher-upgrade` puts in its
/// place), asked before anything is written: SQLite says only "database or disk is
/// full", late, about a file the user never named.
package enum DiskSpace {
    /// Throws unless `needed` bytes are free on the disk holding `path`.
    ///
    /// - Parameter writing: what the command writes, as the start of the sentence
    ///   ("Encrypting in place writes an encrypted copy").
    /// - Throws: `FileOperationError` of kind `.fileSystem` (SQLITE_FULL), naming the
    ///   database, the bytes needed and the bytes free.
    package static func requireRoom(beside path: String, bytes needed: Int64, writing: String) throws {
        guard let free = FileProbe.freeBytes(in: DirectoryLock.parent(of: path)), free < needed else { return }
        throw FileOperationError(
            kind: .fileSystem, resultCode: .SQLITE_FULL,
            message: "\(writing) beside the database, which needs about \(needed) bytes, but only \(free) bytes are free on that disk; free some space, then run the command again. Nothing was changed.",
            path: path)
    }
}

import Foundation
import MigrationKit
import MigrationKitFiles

/// A `-wal` with frames, or a hot `-journal`, beside a database that no process has
/// open: what SQLite applies to the file the moment a connection reads it, and, when
/// that connection closes, checkpoints into it and deletes.
///
/// Applying it is right when it is the database's own (a process killed mid-change),
/// and destroys the database when it is not: a `-wal` restored beside another copy of
/// the file, or mixed up while copying an app's folder, is encrypted with another salt,
/// so its pages read as a wrong key, and once checkpointed the file is damaged for
/// good. A look (`status`, `verify`) must not even apply its own. So a database with a
/// leftover journal is first opened on a private copy (`JournalProof`): a command that
/// only reads goes on reading that copy, and one that writes opens the file itself only
/// once the copy proved that the journal belongs to it.
///
/// A process that has the database open holds SQLite's locks on it (a WAL connection
/// always, a rollback-journal writer while its journal has content), and its journal is
/// live, not left over: SQLite's own locking keeps a reader from changing it. This
/// process counts too: the caller has no connection to the file yet, so a lock of this
/// process is another connection's (an app's, a concurrent runner's).
struct LeftoverJournal {
    /// The journal files, `-wal` and/or `-journal`, as they are beside the database.
    let files: [String]

    /// The leftover journal beside `path`, or nil when there is none to apply (no
    /// journal, an empty one, a `-journal` whose header a persistent journal mode has
    /// zeroed) or a connection, of any process, has the database open.
    static func find(beside path: String) -> LeftoverJournal? {
        let wal = path + "-wal"
        let journal = path + "-journal"
        var files: [String] = []
        if FileProbe(path: wal).size > 0 { files.append(wal) }
        // A rollback journal is hot only while its header is there: journal_mode =
        // PERSIST zeroes it instead of deleting the file.
        let journalProbe = FileProbe(path: journal)
        if journalProbe.size > 0, journalProbe.header(count: 8).contains(where: { $0 != 0 }) { files.append(journal) }
        guard !files.isEmpty else { return nil }
        // SQLite's locks of any process; MigrationKit's own change lock, which this
        // process may hold before it opens the database, says nothing of the journal.
        let me = getpid()
        let holders = (LockHolder.of(path, includingThisProcess: true) + LockHolder.of(path + "-shm", includingThisProcess: true))
            .filter { $0.pid != me || $0.kind == .sqlite }
        return holders.isEmpty ? LeftoverJournal(files: files) : nil
    }
}

/// A private copy of a database and its leftover journal (`LeftoverJournal`), on which
/// SQLite may apply the journal as it likes: in a `ScratchFolder` (mode 0700, removed
/// with the last reference, and on a signal), each file 0600. Its pages stay encrypted
/// as they are in the original.
final class PrivateDatabaseCopy {
    /// The folder, kept alive by the connections that read the copy.
    let folder: ScratchFolder
    /// The copy of the database, with its journal beside it once added.
    let path: String
    private let original: String
    private let journal: LeftoverJournal

    /// - Parameter withJournal: false for the database file alone (`addJournal()` adds it).
    init(of original: String, journal: LeftoverJournal, withJournal: Bool = true) throws {
        folder = try ScratchFolder(purpose: "look")
        path = folder.path + "/database"
        self.original = original
        self.journal = journal
        try copying { try Self.copy(original, to: path) }
        if withJournal { try addJournal() }
    }

    /// Puts the copy of the journal beside the copy of the database.
    ///
    /// - Throws: `JournalWentAway` when a journal file is gone: its owner (a process
    ///   that took no lock yet when it was found) finished with it, and the database is
    ///   to be looked at again.
    func addJournal() throws {
        for file in journal.files where FileProbe(path: file).kind == .missing { throw JournalWentAway() }
        try copying {
            for file in journal.files { try Self.copy(file, to: path + file.dropFirst(original.count)) }
        }
    }

    /// A journal found beside the database was gone when it was copied.
    struct JournalWentAway: Error {}

    private func copying(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw JournalWentAway()
        } catch {
            let names = journal.files.map { String($0.split(separator: "/").last ?? "") }.joined(separator: " and ")
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_IOERR,
                                 message: "\(names) beside the database must be read without changing it, on a private copy, and the copy failed (\(error.localizedDescription)); make room in \(FileManager.default.temporaryDirectory.path), or set TMPDIR to a folder with room.",
                                 path: original)
        }
    }

    private static func copy(_ source: String, to destination: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
    }
}

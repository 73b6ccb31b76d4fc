import Foundation
import MigrationKit
import MigrationKitFiles

/// What a process that ended without closing the database left beside it, which no
/// process has open now: a `-wal` with frames or a hot `-journal`, which SQLite applies to
/// the file the moment a connection reads it and, when that connection closes,
/// checkpoints into it and deletes; or only an empty `-wal` and a `-shm` (a WAL
/// connection killed after a checkpoint), which hold nothing to apply but which any
/// connection to the file changes all the same: the first one rebuilds the `-shm`, and
/// the last one deletes both, even when its key turns out wrong.
///
/// Applying a journal is right when it is the database's own (a process killed
/// mid-change), and destroys the database when it is not: a `-wal` restored beside another
/// copy of the file, or mixed up while copying an app's folder, is encrypted with another
/// salt, so its pages read as a wrong key, and once checkpointed the file is damaged for
/// good. A look (`status`, `verify`) must not even apply its own, nor remove what it did
/// not make. So such a database is first opened on a private copy (`PrivateDatabaseCopy`):
/// a command that only reads goes on reading that copy, and one that writes opens the file
/// itself only once the copy proved the key, and that the journal belongs to it.
///
/// A process that has the database open holds SQLite's locks on it (a WAL connection
/// always, a rollback-journal writer while its journal has content), and its journal is
/// live, not left over: SQLite's own locking keeps a reader from changing it. This
/// process counts too: the caller has no connection to the file yet, so a lock of this
/// process is another connection's (an app's, a concurrent runner's).
struct LeftoverJournal {
    /// The journal files with something to apply, `-wal` and/or `-journal`, as they are
    /// beside the database: copied beside the private copy, and proven to belong to it.
    let files: [String]
    /// Every file left beside the database, those with nothing to apply (an empty
    /// `-wal`, a `-shm`, never copied: SQLite rebuilds a `-shm`) included, for sentences.
    let leftBehind: [String]

    /// Whether any file holds something to apply: otherwise the private copy is the
    /// database file alone, and there is nothing to prove.
    var hasFrames: Bool { !files.isEmpty }

    /// The leftovers beside `path`, or nil when there are none (no `-wal` or `-shm`, and
    /// no `-journal` or one whose header a persistent journal mode has zeroed, which
    /// SQLite leaves alone) or a connection, of any process, has the database open.
    static func find(beside path: String) -> LeftoverJournal? {
        let wal = path + "-wal"
        let shm = path + "-shm"
        let journal = path + "-journal"
        var files: [String] = []
        var leftBehind: [String] = []
        let walProbe = FileProbe(path: wal)
        if walProbe.size > 0 { files.append(wal) }
        if walProbe.kind != .missing { leftBehind.append(wal) }
        if FileProbe(path: shm).kind != .missing { leftBehind.append(shm) }
        // A rollback journal is hot only while its header is there: journal_mode =
        // PERSIST zeroes it instead of deleting the file.
        let journalProbe = FileProbe(path: journal)
        if journalProbe.size > 0, journalProbe.header(count: 8).contains(where: { $0 != 0 }) {
            files.append(journal)
            leftBehind.append(journal)
        }
        guard !leftBehind.isEmpty else { return nil }
        // SQLite's locks of any process; MigrationKit's own change lock, which this
        // process may hold before it opens the database, says nothing of the journal.
        let me = getpid()
        let holders = (LockHolder.of(path, includingThisProcess: true) + LockHolder.of(shm, includingThisProcess: true))
            .filter { $0.pid != me || $0.kind == .sqlite }
        return holders.isEmpty ? LeftoverJournal(files: files, leftBehind: leftBehind) : nil
    }

    /// None: for a database read on a private copy for another reason (see
    /// `PrivateDatabaseCopy.Reason`), with nothing beside it.
    static let none = LeftoverJournal(files: [], leftBehind: [])
}

/// A private copy of a database and its leftover journal (`LeftoverJournal`), on which
/// SQLite may apply the journal as it likes: in a `ScratchFolder` (mode 0700, removed
/// with the last reference, and on a signal), each file 0600. Its pages stay encrypted
/// as they are in the original. Also what a look reads when the database is in WAL mode
/// and this process cannot write the file or its folder, with nothing beside it
/// (`LeftoverJournal.none`): SQLite would make a `-wal` and `-shm` there that only a
/// connection which may write removes again, or fail for want of them.
final class PrivateDatabaseCopy {
    /// The folder, kept alive by the connections that read the copy.
    let folder: ScratchFolder
    /// The copy of the database, with its journal beside it once added.
    let path: String
    private let original: String
    private let journal: LeftoverJournal

    /// Nil when a file to copy was gone by then: a journal's owner (a process that took
    /// no lock yet when it was found) finished with it, and the database is to be looked
    /// at again. Only the copying answers so, so that no other missing file (one the
    /// host's `prepareDatabase` looks for on the copy, say) is taken for a journal gone,
    /// which would open the file itself with an unproven journal beside it.
    ///
    /// - Parameter withJournal: false for the database file alone (`addJournal()` adds it).
    init?(of original: String, journal: LeftoverJournal, withJournal: Bool = true) throws {
        folder = try ScratchFolder(purpose: "look")
        path = folder.path + "/database"
        self.original = original
        self.journal = journal
        guard try copying({ try Self.copy(original, to: path) }) else { return nil }
        if withJournal, try !addJournal() { return nil }
    }

    /// Puts the copy of the journal beside the copy of the database; false when a
    /// journal file is gone (see `init`), and the database is to be looked at again.
    func addJournal() throws -> Bool {
        if journal.files.contains(where: { FileProbe(path: $0).kind == .missing }) { return false }
        return try copying {
            for file in journal.files { try Self.copy(file, to: path + file.dropFirst(original.count)) }
        }
    }

    /// Runs `body`, which copies files found beside the database; false when one was
    /// gone by then.
    private func copying(_ body: () throws -> Void) throws -> Bool {
        do {
            try body()
            return true
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            return false
        } catch {
            throw SQLCipherError(kind: .fileSystem, resultCode: .SQLITE_IOERR,
                                 message: "\(whyCopied), and the copy failed (\(error.localizedDescription)); make room in \(FileManager.default.temporaryDirectory.path), or set TMPDIR to a folder with room.",
                                 path: original)
        }
    }

    /// Why the database is read on a copy, for the sentence of a copy that failed.
    private var whyCopied: String {
        guard !journal.leftBehind.isEmpty else {
            return "The database is in WAL mode and this user cannot write its file or folder, where SQLite keeps the -wal and -shm a reader needs, so it must be read on a private copy"
        }
        let names = journal.leftBehind.map { String($0.split(separator: "/").last ?? "") }
        return "\(names.joined(separator: " and ")) beside the database must be read without changing \(names.count == 1 ? "it" : "them"), on a private copy"
    }

    private static func copy(_ source: String, to destination: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
    }
}

/// The `-wal` and `-shm` beside a database as they were when looked at, for a look that
/// must tell which of them its own connection made (`SQLCipherOpener.openInPlace`).
struct WALFiles {
    /// The database they are beside.
    let database: String
    /// Which of the two exist.
    let present: Set<String>

    init(of database: String) {
        self.database = database
        present = Set([database + "-wal", database + "-shm"].filter { FileProbe(path: $0).kind != .missing })
    }

    /// Removes `made`, files a closed connection of this process made beside the
    /// database and could not remove itself (it could not write the file), unless
    /// another connection, of any process, has the database open or a frame is in the
    /// `-wal`: they are then that connection's.
    func removeIfUnused(_ made: Set<String>) {
        let holders = LockHolder.of(database, includingThisProcess: true) + LockHolder.of(database + "-shm", includingThisProcess: true)
        guard !holders.contains(where: { $0.kind == .sqlite }), FileProbe(path: database + "-wal").size == 0 else { return }
        FileRemoval.remove(made.sorted())
    }
}

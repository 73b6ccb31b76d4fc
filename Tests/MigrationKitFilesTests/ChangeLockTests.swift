import Foundation
@testable import MigrationKitFiles
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The change lock (`DatabaseFileLock`) that orders the commands changing a database
/// across several transactions, and the note (`ChangeNote`) that says what its holder
/// is doing.
@Suite struct ChangeLockTests {
    /// The lock orders the writers of one process too (two threads of an app, two
    /// in-process commands): a second taker waits, and is busy past its timeout.
    @Test func aSecondTakerInTheSameProcessWaits() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "pages")
        let first = try DatabaseFileLock.exclusive(path: database, timeout: .zero)
        #expect(first.locks(database))
        #expect {
            try DatabaseFileLock.exclusive(path: database, timeout: .milliseconds(100))
        } throws: { ($0 as? FileOperationError)?.kind == .busy }
        first.release()
        first.release()
        #expect(!OtherFlock.isLocked(database))
        let second = try DatabaseFileLock.exclusive(path: database, timeout: .zero)
        #expect(OtherFlock.isLocked(database))
        second.release()
    }

    /// A command takes the lock once and hands it to the library calls it makes: a hold
    /// borrowed from it (and one borrowed from that) neither waits nor lets the file go.
    @Test func aHoldBorrowedFromTheCallersLockLeavesItLocked() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "pages")
        let other = try folder.write("other.db", "pages")
        let command = try DatabaseFileLock.exclusive(path: database, timeout: .zero)
        let library = try DatabaseFileLock.exclusive(path: database, timeout: .zero, heldBy: command)
        let deeper = try DatabaseFileLock.exclusive(path: database, timeout: .zero, heldBy: library)
        #expect(deeper.locks(database))
        deeper.release()
        library.release()
        #expect(OtherFlock.isLocked(database), "a borrowed hold let the command's lock go")
        // Another file's lock is taken, not borrowed.
        let elsewhere = try DatabaseFileLock.exclusive(path: other, timeout: .zero, heldBy: command)
        #expect(OtherFlock.isLocked(other))
        elsewhere.release()
        #expect(!OtherFlock.isLocked(other))
        command.release()
        #expect(!OtherFlock.isLocked(database))
        #expect(!library.locks(database))
    }

    /// Another holder past the timeout: `.busy`, naming the file, after waiting the
    /// whole timeout.
    @Test func anotherHolderPastTheTimeoutIsBusy() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "pages")
        let other = try OtherFlock(database)
        defer { other.release() }
        let started = ContinuousClock.now
        #expect {
            try DatabaseFileLock.exclusive(path: database, timeout: .milliseconds(200))
        } throws: { error in
            guard let error = error as? FileOperationError else { return false }
            return error.kind == .busy && error.path == database && error.message.contains("longer than the lock timeout")
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    /// A waiter gets the lock as soon as the holder lets go, within its timeout.
    @Test func aWaiterGetsTheLockWhenTheHolderLetsGo() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "pages")
        let other = try OtherFlock(database)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { other.release() }
        let lock = try DatabaseFileLock.exclusive(path: database, timeout: .seconds(30))
        defer { lock.release() }
        #expect(OtherFlock.isLocked(database))
    }

    /// `encrypt --in-place` renames a new file over the database while a `migrate` waits
    /// for the lock: the waiter locks the file that now has the name, not the old one,
    /// which no command touches again.
    @Test func aFileReplacedWhileWaitingIsTheOneLocked() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "old")
        let replacement = try folder.write(".app.db.migrationkit-encrypting", "new")
        let oldFile = open(database, O_RDONLY | O_CLOEXEC)
        defer { close(oldFile) }
        let other = try OtherFlock(database)
        let waiting = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            waiting.wait()
            usleep(100_000)
            rename(replacement, database)
            other.release()
        }
        waiting.signal()
        let lock = try DatabaseFileLock.exclusive(path: database, timeout: .seconds(30))
        defer { lock.release() }
        #expect(text(database) == "new")
        #expect(OtherFlock.isLocked(database), "the new file is not locked")
        #expect(flock(oldFile, LOCK_EX | LOCK_NB) == 0, "the lock stayed on the replaced file")
    }

    /// A database that does not exist yet is neither waited for nor made: its creation
    /// is ordered by the folder's lock (`DirectoryLock`), and an empty file left by a lock
    /// would pass for a database being created.
    @Test func aMissingDatabaseIsNeitherLockedNorCreated() throws {
        let folder = try TemporaryDirectory()
        let lock = try DatabaseFileLock.exclusive(path: folder.path("new.db"), timeout: .zero)
        lock.release()
        #expect(try names(in: folder).isEmpty)
    }

    /// The note beside the database says what its holder does, for readers that meet
    /// the lock; a note naming another process (a killed run's) says nothing. It is
    /// private, and the same through a symbolic link to the database.
    @Test func theNoteSaysWhatItsOwnProcessIsDoing() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "pages")
        let note = DurableFile.resolvingSymlinks(folder.url.path) + "/.app.db.migrationkit-changing"
        #expect(ChangeNote.path(for: database) == note)
        #expect(symlink(database, folder.path("link.db")) == 0)
        #expect(ChangeNote.path(for: folder.path("link.db")) == note)

        ChangeNote.write("migrate: applying 0002_books (2 of 2)", at: note)
        #expect(try fileMode(note) == 0o600)
        #expect(ChangeNote.activity(of: getpid(), on: database) == "migrate: applying 0002_books (2 of 2)")
        #expect(ChangeNote.activity(of: getpid() + 1, on: database) == nil)
        ChangeNote.write("migrate: verifying", at: note)
        #expect(ChangeNote.activity(of: getpid(), on: database) == "migrate: verifying")
        FileRemoval.remove(note)
        #expect(!FileManager.default.fileExists(atPath: note))
        #expect(ChangeNote.activity(of: getpid(), on: database) == nil)
    }
}

/// The folder lock (`DirectoryLock`) under which a new database is created, keyed and
/// given its first page, so two creators never key one empty file with two salts.
@Suite struct DirectoryLockTests {
    /// The second creator waits; past its timeout it is `.busy`; once the first lets go
    /// (or is released), it gets the lock at once.
    @Test func aSecondCreatorWaitsForTheFirst() throws {
        let folder = try TemporaryDirectory()
        let first = try #require(try DirectoryLock.acquire(directory: folder.url.path, timeout: .zero))
        #expect {
            try DirectoryLock.acquire(directory: folder.url.path, timeout: .milliseconds(100))
        } throws: { ($0 as? FileOperationError)?.kind == .busy }
        first.release()
        do {
            let second = try #require(try DirectoryLock.acquire(directory: folder.url.path, timeout: .zero))
            withExtendedLifetime(second) {}
        }
        // Released with its last reference.
        let third = try DirectoryLock.acquire(directory: folder.url.path, timeout: .zero)
        #expect(third != nil)
    }

    /// A failed run's database is discarded only under the folder's lock: while another
    /// creator holds it past the timeout, the file stays and the connection's check is
    /// never asked (`NewDatabaseFile.discard`); once it lets go, the file goes.
    @Test func aCreatedDatabaseIsDiscardedOnlyUnderTheFoldersLock() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "pages")
        let creator = try #require(try DirectoryLock.acquire(directory: folder.url.path, timeout: .zero))
        var asked = false
        #expect(!NewDatabaseFile.discard(at: database, timeout: .milliseconds(50)) { removeFiles in
            asked = true
            return removeFiles()
        })
        #expect(!asked)
        #expect(FileManager.default.fileExists(atPath: database))
        creator.release()
        #expect(NewDatabaseFile.discard(at: database, timeout: .zero) { removeFiles in removeFiles() })
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// A folder that cannot be opened is not locked: creation goes on as SQLite alone
    /// would, and fails there with SQLite's own reason.
    @Test func aFolderThatCannotBeOpenedIsNotLocked() throws {
        let folder = try TemporaryDirectory()
        #expect(try DirectoryLock.acquire(directory: folder.path("missing"), timeout: .zero) == nil)
    }

    @Test(arguments: [("app.db", "."), ("/app.db", "/"), ("data/app.db", "data"), ("/srv/data/app.db", "/srv/data")])
    func theFolderOfAPath(_ path: String, _ parent: String) {
        #expect(DirectoryLock.parent(of: path) == parent)
    }
}

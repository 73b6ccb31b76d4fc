import MigrationKit

/// Replacing a database file by a new one made beside it: the one way `restore`, `encrypt
/// --in-place`, `cipher-upgrade` and an export over an existing output do it, whose
/// differences are options here rather than four compositions of the same steps.
///
/// 1. `init` refuses what would make the replacement wrong before anything is written:
///    a file with other names (a rename would leave them on the old file), an owner that
///    cannot be kept, too little room, another process that has the database open; and
///    removes the new file an interrupted run left under the same hidden name.
/// 2. The caller writes the new file at `temporary` and proves it.
/// 3. `complete()` waits again for other processes (one may have opened the database
///    during the copy), removes the old file's journals when asked, and renames the new
///    file over it, durably, taking over what `keeping` says. A crash at any instant
///    leaves the old file or the new one, whole.
///
/// The caller holds the database's change lock throughout (`DatabaseFileLock`).
package struct DatabaseFileReplacement {
    /// What differs between the jobs that replace a database.
    package struct Options {
        /// What the database stays, in words, if the replacement were refused after
        /// others renamed ("still plaintext", "in the old format").
        var leaving: String
        /// What the new file takes over from the old one (`DurableFile.replace`):
        /// owner and group, refused up front when they cannot be given; the mode too
        /// where the new file must not be more private than the old one was.
        var keeping: DurableFile.KeptAttributes = [.owner, .mode]
        /// The room the new file needs beside the database, and what the command writes,
        /// for the sentence ("Encrypting in place writes an encrypted copy"); nil: not
        /// checked.
        var room: (bytes: Int64, writing: String)?
        /// How long to wait for other processes to close the database, and what they
        /// would do if the file were replaced under them; nil: not asked (the new file
        /// is an output no one else has open).
        var others: (timeout: Duration, consequence: String)?
        /// Removes the old file's `-journal`, `-wal` and `-shm` before the rename: a new
        /// file must not meet the old one's journal on its next open.
        var removesJournals = false

        package init(leaving: String, keeping: DurableFile.KeptAttributes = [.owner, .mode], room: (bytes: Int64, writing: String)? = nil,
                     others: (timeout: Duration, consequence: String)? = nil, removesJournals: Bool = false) {
            self.leaving = leaving
            self.keeping = keeping
            self.room = room
            self.others = others
            self.removesJournals = removesJournals
        }
    }

    /// The database file, its symbolic links followed.
    package let database: String
    /// Where the new file is written: a hidden sibling, so the rename is atomic.
    package let temporary: String
    private let options: Options

    /// - Parameters:
    ///   - path: the database to replace.
    ///   - purpose: names the hidden file (`.NAME.migrationkit-PURPOSE`), the same for
    ///     every run of the job, so an interrupted run's file is found and replaced.
    package init(replacing path: String, purpose: String, options: Options) throws {
        database = DurableFile.resolvingSymlinks(path)
        temporary = DurableFile.siblingPath(of: database, purpose: purpose)
        self.options = options
        discard()
        try DurableFile.requireSingleName(database, leaving: options.leaving)
        if options.keeping.contains(.owner) { try DurableFile.requireOwnerCanBeKept(of: database) }
        if let room = options.room { try DiskSpace.requireRoom(beside: database, bytes: room.bytes, writing: room.writing) }
        try waitForOthers()
    }

    /// Renames the new file, written and proven, over the database.
    package func complete() throws {
        do {
            try waitForOthers()
            if options.removesJournals { FileRemoval.remove(["-journal", "-wal", "-shm"].map { database + $0 }) }
            try DurableFile.replace(database, with: temporary, keeping: options.keeping)
        } catch {
            discard()
            throw error
        }
    }

    /// Removes the new file and what SQLite kept beside it: the replacement failed (or
    /// an earlier run left them).
    package func discard() {
        DurableFile.removeIfPresent(temporary)
        FileRemoval.remove([temporary + "-wal", temporary + "-shm", temporary + "-journal"])
    }

    private func waitForOthers() throws {
        guard let others = options.others else { return }
        try DatabaseUsers.waitUntilAlone(database, timeout: others.timeout, consequence: others.consequence)
    }
}

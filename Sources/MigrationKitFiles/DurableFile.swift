import MigrationKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemPackage

/// File operations for replacing a database (or writing a file the tool creates) so
/// that a crash at any instant leaves either the old file or the new one, whole:
/// write beside, flush, rename over, flush the directory.
package enum DurableFile {
    /// Flushes a file's data to disk.
    package static func synchronize(_ path: String) throws {
        try openAndFlush(path, options: .closeOnExec)
    }

    /// Flushes a directory, making a rename inside it durable.
    static func synchronizeDirectory(containing path: String) throws {
        try openAndFlush(DirectoryLock.parent(of: path), options: [.directory, .closeOnExec])
    }

    /// Opens `path` read-only and flushes it.
    private static func openAndFlush(_ path: String, options: FileDescriptor.OpenOptions) throws {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileProbe.openFile(path, .readOnly, options: options)
        } catch {
            throw failure("open", path, errno: error)
        }
        defer { try? descriptor.close() }
        if let failure = flush(descriptor, of: path) { throw failure }
    }

    /// Flushes an open file's data to disk; the failure, if any, names `path`.
    static func flush(_ descriptor: FileDescriptor, of path: String) -> FileOperationError? {
        // fsync(2): swift-system 1.8.1 has no flush of a descriptor.
        fsync(descriptor.rawValue) == 0 ? nil : failure("flush", path)
    }

    /// What a replacement takes over from the file it replaces.
    package struct KeptAttributes: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// The owner and the group.
        package static let owner = KeptAttributes(rawValue: 1)
        /// The permission bits.
        static let mode = KeptAttributes(rawValue: 2)
    }

    /// Atomically puts `source` in place of `destination` (same directory), durably.
    ///
    /// An in-place replacement must not change who can use the file: a database that
    /// belonged to an app's service user and was group-readable would otherwise come
    /// back owned by whoever ran the command, mode 0600, and the app could no longer
    /// open it. So by default `source` first takes over the owner, group and mode of the
    /// file it replaces; when the owner cannot be given (chown is not permitted), the
    /// replacement is refused and `destination` is left as it was.
    ///
    /// - Parameter keeping: less for files that must stay private whatever they
    ///   replace: none for outputs MigrationKit writes (a decrypted copy, a written
    ///   file: 0600 and the caller's).
    package static func replace(_ destination: String, with source: String, keeping: KeptAttributes = [.owner, .mode]) throws {
        // The last guard; commands check it before they write anything (a backup included).
        try requireSingleName(destination, leaving: "as it was")
        if !keeping.isEmpty { try takeOverOwnership(of: destination, for: source, includingMode: keeping.contains(.mode)) }
        try synchronize(source)
        // rename(2): swift-system 1.8.1 has no rename, and this is the one place that renames.
        guard rename(source, destination) == 0 else { throw failure("rename", source) }
        try synchronizeDirectory(containing: destination)
    }

    /// Refuses to replace a file that has other names (hard links, a link count above
    /// one): a rename gives this name a new file and leaves every other name on the old
    /// one, which would then stay plaintext, or in the old format, while the command
    /// reported success. Every in-place command asks this before it writes anything,
    /// its backup included.
    ///
    /// - Parameter leaving: what the other names would keep, in words ("plaintext").
    package static func requireSingleName(_ path: String, leaving: String) throws {
        let probe = FileProbe(path: path)
        // The C struct: the sentence below reads its st_nlink.
        guard probe.kind == .regularFile, let status = probe.status?.rawValue, status.st_nlink > 1 else { return }
        let others = status.st_nlink - 1
        throw FileOperationError(
            kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
            message: "The file has \(status.st_nlink) names (hard links): replacing it would give this name a new file and leave the other\(others == 1 ? "" : " \(others)") on the old one, \(leaving). Remove the other names (`find / -xdev -samefile \(path)` lists them), or work on a copy with one name. Nothing was changed.",
            path: path)
    }

    /// Refuses, before any work, a replacement of `original` whose owner and group
    /// could not be kept (see `replace`): tries it on an empty file beside it, which is
    /// removed again. The replacement itself is still checked when it happens.
    static func requireOwnerCanBeKept(of original: String) throws {
        let probe = siblingPath(of: original, purpose: "owner-probe")
        FileRemoval.remove(probe)
        guard FileProbe.createPrivateFile(at: probe) == nil else { return }  // the real write will say why
        defer { FileRemoval.remove(probe) }
        try takeOverOwnership(of: original, for: probe)
    }

    /// Gives `replacement` the owner and group (and, with `includingMode`, the permission
    /// bits) of `original`; nothing when `original` does not exist. Commands that spend
    /// a long time writing a replacement call it on the still-empty file first, so a
    /// database whose owner cannot be kept is refused before any work (or backup).
    static func takeOverOwnership(of original: String, for replacement: String, includingMode: Bool = false) throws {
        let originalProbe = FileProbe(path: original)
        // The C struct: the sentence below reads its st_uid and st_gid.
        guard let wanted = originalProbe.status?.rawValue else {
            if originalProbe.failure == .noSuchFileOrDirectory { return }
            throw failure("examine", original, errno: originalProbe.failure ?? .ioError)
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try FileProbe.openFile(replacement, .readOnly, options: .closeOnExec)
        } catch {
            throw failure("open", replacement, errno: error)
        }
        defer { try? descriptor.close() }
        let current: stat
        do {
            current = try descriptor.stat().rawValue
        } catch {
            throw failure("examine", replacement, thrown: error)
        }
        if current.st_uid != wanted.st_uid || current.st_gid != wanted.st_gid {
            // Owner before mode: changing the owner clears set-user/group-ID bits.
            // fchown(2) and fchmod(2): swift-system 1.8.1 wraps neither.
            guard fchown(descriptor.rawValue, wanted.st_uid, wanted.st_gid) == 0 else {
                let code = Errno(rawValue: errno)
                guard code == .notPermitted else { throw failure("change the owner of", replacement, errno: code) }
                throw FileOperationError(
                    kind: .fileSystem, resultCode: .SQLITE_PERM,
                    message: "The file belongs to \(describeOwner(uid: wanted.st_uid, gid: wanted.st_gid)), and this user (uid \(geteuid())) is not permitted to give its replacement that owner and group (chown); run the command as that user, or as root. Nothing was changed.",
                    path: original)
            }
        }
        if includingMode, current.st_mode & 0o7777 != wanted.st_mode & 0o7777 {
            guard fchmod(descriptor.rawValue, wanted.st_mode & 0o7777) == 0 else { throw failure("change the mode of", replacement) }
        }
    }

    /// "user alice (uid 1000) and group staff (gid 50)", names where the system has them.
    private static func describeOwner(uid: uid_t, gid: gid_t) -> String {
        let user = FileProbe.userName(uid)
        let group = FileProbe.groupName(gid)
        return "user \(user.map { "\($0) (uid \(uid))" } ?? "uid \(uid)") and group \(group.map { "\($0) (gid \(gid))" } ?? "gid \(gid)")"
    }

    /// Writes `bytes` to a new file at `path` with mode 0600, whole or not at all.
    /// With `replacing` false an existing file is an error and is left alone.
    ///
    /// - Parameter ownedLike: a file whose owner and group the new file takes before it
    ///   appears (a new key beside the app's old one, written by root, which the app must
    ///   still read); refused, writing nothing, where they cannot be given.
    package static func writePrivate(_ bytes: [UInt8], to destination: String, replacing: Bool, ownedLike: String? = nil) throws {
        let path = resolvingSymlinks(destination)
        if !replacing, FileProbe(path: path).kind != .missing {
            throw FileOperationError(kind: .fileSystem, resultCode: .SQLITE_CANTOPEN,
                                 message: "The file already exists; choose another name or remove it.", path: path)
        }
        let temporary = siblingPath(of: path, purpose: "write")
        FileRemoval.remove(temporary)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileProbe.openFile(temporary, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                                                permissions: [.ownerReadWrite])
        } catch {
            throw failure("create", path, thrown: error)
        }
        do {
            do {
                // writeAll retries short writes and EINTR.
                try descriptor.closeAfter { _ = try descriptor.writeAll(bytes) }
            } catch {
                throw failure("write", path, thrown: error)
            }
            if let ownedLike { try takeOverOwnership(of: ownedLike, for: temporary) }
            try replace(path, with: temporary, keeping: [])
        } catch {
            FileRemoval.remove(temporary)
            throw error
        }
    }

    /// The file a path names, symbolic links followed; the path itself when it does not
    /// exist. In-place work (encrypt, restore, overwrite) must replace the target: a
    /// rename over a symbolic link would replace the link and leave the real file as it
    /// was (a plaintext database staying plaintext beside an encrypted link).
    package static func resolvingSymlinks(_ path: String) -> String {
        // realpath(3): swift-system 1.8.1 cannot resolve links.
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether two paths name the same file (same device and inode), links followed.
    package static func sameFile(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = FileIdentity(path: lhs), let right = FileIdentity(path: rhs) else { return false }
        return left == right
    }

    /// A hidden path beside `path`, for a file that will be renamed over it: same
    /// directory, so the rename is atomic; fixed name per purpose, so a leftover from
    /// an interrupted run is found and replaced rather than piling up.
    package static func siblingPath(of path: String, purpose: String) -> String {
        let directory = DirectoryLock.parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return (directory == "." && !path.hasPrefix("./") ? "" : directory + "/") + ".\(name).migrationkit-\(purpose)"
    }

    /// Whether a file name is one of MigrationKit's own files beside a database: a
    /// backup (`app.db.backup-20261121T235330.385Z`, exactly) or a hidden work file or
    /// marker (`.app.db.migrationkit-…`). A user's `team.backup-ops.db` is neither: a
    /// fleet's pattern must not skip it.
    package static func isMigrationKitFile(named name: String) -> Bool {
        if name.hasPrefix("."), name.contains(".migrationkit-") { return true }
        guard let marker = name.range(of: ".backup-", options: .backwards) else { return false }
        return BackupName.parse(String(name[marker.upperBound...])) != nil
    }

    /// Removes a file if it exists (with its SQLite journal), ignoring absence: a
    /// `FileRemoval.remove` of both names, kept here for the callers that clean up a
    /// copy being written beside a database.
    package static func removeIfPresent(_ path: String) {
        FileRemoval.remove([path, path + "-journal"])
    }

    /// `failure` for what a swift-system call threw (an `Errno`).
    package static func failure(_ operation: String, _ path: String, thrown error: any Error) -> FileOperationError {
        failure(operation, path, errno: error as? Errno ?? .ioError)
    }

    package static func failure(_ operation: String, _ path: String, errno failure: Errno = Errno(rawValue: errno)) -> FileOperationError {
        let code: SQLiteResultCode = failure == .noSpace ? .SQLITE_FULL : .SQLITE_IOERR
        return FileOperationError(kind: .fileSystem, resultCode: code,
                              message: "Could not \(operation) the file (\(failure)).", path: path)
    }
}

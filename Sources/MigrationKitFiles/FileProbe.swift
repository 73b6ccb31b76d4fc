#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MigrationKit
import SystemPackage

/// What a path holds, read without opening it as a database, so an error can say
/// "is a directory" or "is not encrypted" instead of SQLite's generic text.
///
/// Where this module (and the CLI) asks the file system about a path: its kind, size,
/// owner, mode, identity, header and writability. Through swift-system's `stat`, so
/// callers read named fields instead of `st_mode & S_IFMT`. Also where this module
/// opens a path (`openFile`). Not the only `stat(2)` of the project: the key file
/// (`MigrationKitKeys`' `KeyFile`) and the core's migrations folder
/// (`SQLMigrationDirectory`) examine their own paths.
///
/// A path reaches the kernel exactly as the user wrote it, through the C string:
/// `FilePath(path)` would normalise it first (drop a trailing `/`, merge `//`), so
/// `app.db/` would name `app.db` instead of failing with ENOTDIR, and `lstat("link/")`
/// would examine the link instead of what it leads to.
package struct FileProbe {
    package enum Kind { case missing, regularFile, directory, other }

    package let path: String
    package let kind: Kind
    package let size: Int64
    /// Why the path could not be examined; nil when it was.
    package let failure: Errno?
    /// What `stat(2)` (or `lstat(2)`) said; nil when the path could not be examined,
    /// and `failure` says why.
    package let status: Stat?

    /// - Parameter followingSymlinks: false to examine a symbolic link itself
    ///   (`lstat`), as the CLI does to tell a link from what it leads to.
    package init(path: String, followingSymlinks: Bool = true) {
        self.path = path
        let status: Stat
        do {
            status = try Self.stat(path, followingSymlinks: followingSymlinks)
        } catch {
            kind = .missing
            size = 0
            failure = error
            self.status = nil
            return
        }
        self.status = status
        failure = nil
        size = status.size
        switch status.type {
        case .regular: kind = .regularFile
        case .directory: kind = .directory
        default: kind = .other
        }
    }

    /// `stat(2)` (or `lstat(2)`) of `path` as written, not as `FilePath` would normalise it.
    static func stat(_ path: String, followingSymlinks: Bool = true) throws(Errno) -> Stat {
        do {
            return try path.withCString { try Stat($0, followTargetSymlink: followingSymlinks) }
        } catch {
            throw error as? Errno ?? Errno(rawValue: EIO)
        }
    }

    /// `open(2)` of `path` as written, not as `FilePath` would normalise it: the one way
    /// this module opens a path, so a failure arrives as the `Errno` that says why.
    static func openFile(
        _ path: String, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions? = nil
    ) throws(Errno) -> FileDescriptor {
        do {
            return try path.withCString { try FileDescriptor.open($0, mode, options: options, permissions: permissions) }
        } catch {
            throw error as? Errno ?? Errno(rawValue: EIO)
        }
    }

    /// The file's device and inode, nil when it could not be examined.
    var identity: FileIdentity? {
        status.map(FileIdentity.init)
    }

    /// Whether the path is a symbolic link (only ever true when links were not followed).
    package var isSymbolicLink: Bool {
        status?.type == .symbolicLink
    }

    /// The first `count` bytes of the file (fewer when it is shorter).
    package func header(count: Int = 16) -> [UInt8] {
        guard let descriptor = try? Self.openFile(path, .readOnly, options: .closeOnExec) else { return [] }
        defer { try? descriptor.close() }
        var bytes = [UInt8](repeating: 0, count: count)
        // One read: a regular file's first bytes come whole.
        guard let readCount = try? bytes.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) else { return [] }
        return Array(bytes.prefix(readCount))
    }

    /// Whether the file starts with SQLite's plaintext magic string (the core's
    /// `DatabaseFileHeader` decides, for every connection).
    package var hasPlaintextSQLiteHeader: Bool { DatabaseFileHeader(path: path).hasPlaintextSQLiteHeader }

    /// Whether the whole 100-byte header is a plain SQLite one (`DatabaseFileHeader`).
    package var isPlaintextSQLiteDatabase: Bool { DatabaseFileHeader(path: path).isPlaintextSQLiteDatabase }

    /// Whether the size could be a database's: a whole number of pages (`DatabaseFileHeader`).
    package var sizeLooksLikePages: Bool { DatabaseFileHeader(path: path).sizeLooksLikePages }

    /// Whether the file is a database rather than text (a schema file, a key file):
    /// a plain SQLite header, or whole pages whose first 512 bytes hold control bytes
    /// no text has, as an encrypted page's random bytes always do. Reads one page at
    /// most, however large the file.
    package var looksLikeDatabase: Bool {
        if isPlaintextSQLiteDatabase { return true }
        guard kind == .regularFile, sizeLooksLikePages else { return false }
        return header(count: 512).contains { $0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains($0) }
    }

    /// Creates an empty file readable and writable by its owner only (`PrivateFile`, the
    /// core's one place for it). Fails if the file exists; returns why it failed.
    package static func createPrivateFile(at path: String) -> Errno? {
        PrivateFile.create(at: path).map(Errno.init(rawValue:))
    }

    /// The device a path lives on, nil when it cannot be examined.
    static func device(of path: String) -> UInt64? {
        FileProbe(path: path).identity?.device
    }

    /// Whether this process may write `path` (`access(2)`, which swift-system does not
    /// wrap: it answers for the real user and the file system's read-only flag at
    /// once). When not, `errno` says why.
    package static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0
    }

    /// Bytes free for this user on the file system holding `path`, nil when unknown.
    /// (`statvfs(2)`: swift-system has no file-system statistics.)
    package static func freeBytes(in path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        // Saturating: a file system may report sizes whose product overflows.
        let (bytes, overflow) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(by: Int64(clamping: info.f_frsize))
        return overflow ? .max : bytes
    }

    /// "12.3 MB", for sentences about room on a disk.
    static func megabytes(_ bytes: Int64) -> String {
        bytes < 1_000_000 ? "\(bytes) bytes" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    /// The file attributes (`chattr`) that keep every user, root included, from
    /// changing a file whatever its mode says.
    struct Attributes: OptionSet, Sendable {
        let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `chattr +i` (FS_IMMUTABLE_FL): no write, rename or removal.
        package static let immutable = Attributes(rawValue: 0x10)
        /// `chattr +a` (FS_APPEND_FL): opened for writing only to append.
        static let appendOnly = Attributes(rawValue: 0x20)
    }

    /// The file's `chattr` attributes among `Attributes`, read with the FS_IOC_GETFLAGS
    /// ioctl on a descriptor opened for reading (which an immutable file allows); none
    /// where the file cannot be opened or its file system keeps no such attributes.
    static func attributes(of path: String) -> Attributes {
        #if os(Linux)
        // FS_IOC_GETFLAGS is _IOR('f', 1, long), a macro Swift does not import; the
        // kernel writes an int.
        let getFlags: UInt = 0x8008_6601
        guard let descriptor = try? openFile(path, .readOnly, options: [.nonBlocking, .closeOnExec]) else { return [] }
        defer { try? descriptor.close() }
        var flags: Int32 = 0
        guard ioctl(descriptor.rawValue, getFlags, &flags) == 0 else { return [] }
        return Attributes(rawValue: flags).intersection([.immutable, .appendOnly])
        #else
        return []
        #endif
    }

    /// Why this process may not write the file at `path`, and what would let it, as the
    /// rest of a sentence about the file: "cannot be changed: it is on a read-only file
    /// system; …", "cannot be changed: it is immutable (chattr +i); …" (an attribute that
    /// holds for root too), or "cannot be changed by this user: " and the owner and mode.
    /// "Make it writable (chmod u+w)" helps only the file's owner; anyone else needs to
    /// be told whose it is.
    package static func whyNotWritable(_ path: String) -> String {
        var file = statvfs()
        if statvfs(path, &file) == 0, file.f_flag & UInt(ST_RDONLY) != 0 {
            return "cannot be changed: it is on a read-only file system; copy it to a writable one, or remount that one read-write"
        }
        let attributes = attributes(of: path)
        if attributes.contains(.immutable) {
            return "cannot be changed: it is immutable (chattr +i), which no mode or owner overrides; remove the attribute with `chattr -i \(path)` (as root), then try again"
        }
        if attributes.contains(.appendOnly) {
            return "cannot be changed: it is append-only (chattr +a), so it can only grow, and a database is changed in place; remove the attribute with `chattr -a \(path)` (as root), then try again"
        }
        return "cannot be changed by this user: " + ownerAndMode(path)
    }

    /// The owner and mode part of `whyNotWritable`.
    private static func ownerAndMode(_ path: String) -> String {
        return ownerAndMode(path, may: "write", chmod: "u+w", making: "writable")
    }

    /// Why this process may not read the file at `path`, and what would let it, when
    /// that is why it does not open; nil when it may read it (or there is no file). As
    /// `whyNotWritable`: the owner and mode, since only the owner can change them.
    package static func whyNotReadable(_ path: String) -> String? {
        guard access(path, F_OK) == 0, access(path, R_OK) != 0, errno == EACCES else { return nil }
        return ownerAndMode(path, may: "read", chmod: "u+r", making: "readable")
    }

    /// The file's mode, and who may change it: its owner with `chmod`, anyone else by
    /// running the command as the owner. `may` is what this user may not do ("write").
    private static func ownerAndMode(_ path: String, may: String, chmod: String, making: String) -> String {
        // The C struct: the sentences below read its st_ fields.
        let probe = FileProbe(path: path)
        guard let info = probe.status?.rawValue else { return "it cannot be examined (\(probe.failure ?? Errno(rawValue: EIO)))" }
        let mode = "mode " + String(info.st_mode & 0o777, radix: 8).leftPadded(to: 4)
        if info.st_uid == geteuid() {
            return "it is \(mode), without \(may) permission for its owner; make it \(making) with `chmod \(chmod) \(path)`"
        }
        let owner = Self.userName(info.st_uid)
        let who = owner.map { "\($0) (uid \(info.st_uid))" } ?? "uid \(info.st_uid)"
        let asOwner = info.st_uid == 0 ? "as root (sudo)" : "as \(owner.map { "\($0) (sudo -u \($0) …)" } ?? "uid \(info.st_uid)")"
        return "it belongs to \(who), is \(mode), and this user (uid \(geteuid())) may not \(may) it; run the command \(asOwner), the user the database belongs to"
    }

    /// A user's name, where the system has one (`getpwuid_r`: fleets ask from several
    /// threads at once, and `getpwuid`'s result is shared).
    static func userName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// A group's name, where the system has one (`getgrgid_r`, as `userName`).
    static func groupName(_ gid: gid_t) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else { return nil }
        return String(cString: name)
    }

}

/// A file's device and inode: what makes two paths one file, and what a lock or a
/// list of databases keys on.
package struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    package init(_ status: Stat) {
        device = UInt64(status.deviceID.rawValue)
        inode = UInt64(status.inode.rawValue)
    }

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the file at `path`, links followed; nil when it cannot be examined.
    package init?(path: String) {
        guard let identity = FileProbe(path: path).identity else { return nil }
        self = identity
    }
}

private extension String {
    /// "644" as "0644".
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

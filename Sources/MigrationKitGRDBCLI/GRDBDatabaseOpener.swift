import Foundation
import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB
import MigrationKitSecrets

#if canImport(Glibc)
import Glibc
#endif

/// How a command means to use the database.
enum GRDBDatabaseAccess {
    /// Change it, creating it when missing (migrate).
    case create
    /// Change an existing database (rollback).
    case change
    /// Only read it (status, verify, schema-dump): opened read-only when the file is
    /// not writable, so inspecting a read-only copy works.
    case inspect
}

/// The writer a command works on, and whether this command created its file.
struct GRDBOpenedDatabase {
    let path: String
    let writer: any DatabaseWriter
    let created: Bool
    /// The file's SQLCipher format, when the command was given its key (nil otherwise).
    let cipherFormat: CipherFormat?

    /// `sqlcipher4`, `sqlcipher3`, `plaintext` (as `migrationkit status` says them), or
    /// `encrypted` when the app's `openWriter` keyed the file itself: from the file's
    /// first bytes, never from what the command was given alone.
    var formatDescription: String {
        let file = FileHandle(forReadingAtPath: path)
        defer { try? file?.close() }
        let header = (try? file?.read(upToCount: 16)) ?? nil
        if header == nil || header == Data("SQLite format 3\0".utf8) || header?.isEmpty == true { return CipherFormat.plaintext.rawValue }
        return cipherFormat?.rawValue ?? "encrypted"
    }

    /// Removes the file this command created, and its journals.
    func discardCreated() {
        Self.removeFiles(of: path)
    }

    /// Removes a database file and its journals.
    static func removeFiles(of path: String) {
        GRDBDatabaseFile.removeFiles(of: path)
    }
}

/// Opens the database through the host: refuses a missing file unless migrating, and
/// creates one for migrate with mode 0600 (SQLite would follow the umask). On a GRDB
/// built on SQLCipher, the key is read first, so a missing key leaves no file behind.
enum GRDBDatabaseOpener {
    static func open(_ options: GRDBConnectionOptions, access: GRDBDatabaseAccess, reporter: Reporter) throws -> GRDBOpenedDatabase {
        let path = try options.requiredPath()
        GRDBCLIContext.current.path = path
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        if isFolder.boolValue {
            throw CLIError(.fileError, "--db-path \(path) is a folder, not a database file; give the database file.")
        }
        if !exists && access != .create {
            throw CLIError(.fileError, "--db-path \(path) does not exist; check the path (only migrate creates a database).")
        }
        #if GRDBSQLCipher
        let key = try GRDBDatabaseKeying.key(options.key, path: path, creating: !exists, reporter: reporter)
        #else
        let key: DatabaseKey? = nil
        #endif
        var created = false
        if !exists {
            try createPrivateFile(path)
            created = true
        }
        do {
            var format: CipherFormat?
            #if GRDBSQLCipher
            if let key { format = created ? .sqlcipher4 : try GRDBDatabaseFile.existingFormat(path, key: key) }
            #endif
            let settings = GRDBConnectionSettings(
                path: path,
                readOnly: access == .inspect && !FileManager.default.isWritableFile(atPath: path),
                lockTimeout: .milliseconds(Int64(options.lockTimeout * 1000)),
                key: key,
                cipherFormat: format)
            let writer: any DatabaseWriter
            do {
                writer = try GRDBCLIContext.host.openWriter(settings)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                // The app's writer met a file that does not open: the library's verdict.
                throw UnreadableDatabaseError(path: path, keyed: key != nil, triedFormats: nil)
            }
            return GRDBOpenedDatabase(path: path, writer: writer, created: created, cipherFormat: format)
        } catch {
            if created { GRDBOpenedDatabase.removeFiles(of: path) }
            throw error
        }
    }

    private static func createPrivateFile(_ path: String) throws {
        if let failure = PrivateFile.create(at: path) {
            throw CLIError(.fileError, "--db-path \(path) cannot be created (\(String(cString: strerror(failure)))); check the folder and its permissions.")
        }
    }
}

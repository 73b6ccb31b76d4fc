import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher
import MigrationKitSecrets

/// A command's request as SQLCipher's settings: what the commands only SQLCipher has
/// (encrypt, decrypt, rekey, cipher-upgrade, and `diff --to`'s proof) open with.
extension ConnectionSettings {
    /// SQLCipher's settings for what a command asked, on `host`'s connections (its
    /// `prepareDatabase`).
    init(_ request: OpenRequest, host: MigrationCLIHost) {
        self.init(request)
        configuration.prepareDatabase = host.prepareDatabase
    }

    /// SQLCipher's settings for what a command asked.
    private init(_ request: OpenRequest) {
        var configuration = SQLCipherConfiguration()
        configuration.busyTimeout = request.lockTimeout
        configuration.cipher = request.cipher
        configuration.memorySecurity = request.memorySecurity
        configuration.extensions = request.extensions
        switch request.access {
        case .create:
            configuration.createIfMissing = true
        case .change:
            configuration.createIfMissing = false
        case .inspect:
            configuration.createIfMissing = false
            configuration.givesWayToChanges = !request.readerWaits
            // Always: the opener itself decides how a look leaves the file as it was (a
            // writable file gets a read-write connection with query_only, so SQLite
            // removes the -wal and -shm it made; a journal left beside it is read on a
            // private copy).
            configuration.readOnly = true
        }
        self.init(path: request.path, key: request.key, configuration: configuration)
    }

    /// The settings to open the database `options` name, the key resolved once
    /// (`OpenRequest.resolving`).
    static func resolving(_ options: ConnectionOptions, access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true,
                          reporter: Reporter, in world: CommandWorld) throws -> ConnectionSettings {
        ConnectionSettings(try OpenRequest.resolving(options, access: access, keyIsNew: keyIsNew, announcing: announcing, reporter: reporter, in: world),
                           host: world.host)
    }

    /// As `resolving(_:…)`, from parsed option groups.
    static func resolving(path: String, key: KeyOptions, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess,
                          keyIsNew: Bool = false, announcing: Bool = true, reporter: Reporter,
                          in world: CommandWorld) throws -> ConnectionSettings {
        ConnectionSettings(try OpenRequest.resolving(path: path, key: key, cipher: cipher, lockTimeout: lockTimeout, access: access,
                                                     keyIsNew: keyIsNew, announcing: announcing, reporter: reporter, in: world),
                           host: world.host)
    }

    /// Whether `key` opens the database at `path` (with these settings' cipher options),
    /// tried read-only so that trying changes nothing: how a rerun of `rekey` or
    /// `encrypt --in-place` knows the work is already done.
    func keyOpens(_ path: String, key: DatabaseKey) -> Bool {
        var configuration = configuration
        configuration.readOnly = true
        configuration.createIfMissing = false
        return (try? SQLCipherWriter(path: path, key: key, configuration: configuration)) != nil
    }
}

extension SQLCipherConfiguration {
    /// How to open the database at `path` for `access`, with no key yet.
    init(forOpening path: String, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess, in world: CommandWorld) {
        self = ConnectionSettings(OpenRequest(path: path, key: nil, cipher: cipher, lockTimeout: lockTimeout, access: access, in: world),
                                  host: world.host).configuration
    }
}

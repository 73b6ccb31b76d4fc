import Foundation
import MigrationKit
import MigrationKitSecrets

/// The request a command's parsed options make.
extension OpenRequest {
    /// The request for the database `options` name: announces it, resolves its key once
    /// (printing the key options' warnings) and says how its memory is protected.
    ///
    /// - Parameters:
    ///   - keyIsNew: the key will encrypt the file for the first time (encrypt); migrate
    ///     creating a missing database says so through `access`.
    ///   - announcing: the first line names the database (`CommandWorld.announce`); false
    ///     only where standard output is the data itself (`schema-dump` without --output).
    ///   - found: what the command found at the path when it first looked (`find(at:)`);
    ///     nil looks now, before the key is asked for.
    package static func resolving(_ options: ConnectionOptions, access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true,
                                  found: Finding? = nil, reporter: Reporter, in world: CommandWorld) throws -> OpenRequest {
        try resolving(path: try options.requiredPath(), key: options.key, cipher: options.cipher, lockTimeout: options.lockTimeout,
                      access: access, keyIsNew: keyIsNew, announcing: announcing, found: found, reporter: reporter, in: world)
    }

    /// As `resolving(_:…)`, from parsed option groups (commands such as `check` name their
    /// database with another option than --db-path).
    package static func resolving(path: String, key keyOptions: KeyOptions, cipher: CipherOptions, lockTimeout: Double,
                                  access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true, found: Finding? = nil,
                                  reporter: Reporter, in world: CommandWorld) throws -> OpenRequest {
        if announcing { world.announce(path, reporter: reporter) }
        keyOptions.warnIfOnCommandLine(reporter: reporter, in: world)
        let found = found ?? find(at: path)
        let creating = access == .create && isNew(found)
        let key = try keyOptions.resolve(for: path, promptMessage: keyIsNew || creating ? "New key for \(path): " : "Key for \(path): ",
                                         keyIsNew: keyIsNew || creating, reporter: reporter, in: world)
        let request = OpenRequest(path: path, key: key, cipher: cipher, lockTimeout: lockTimeout, access: access,
                                  readerWaits: world.settings?.values[.lockTimeout]?.origin != .defaultValue, found: found, in: world)
        MemoryProtectionNotes(keyResolved: key != nil, memorySecurityAsked: request.memorySecurity).print(to: reporter, layer: world.layer)
        return request
    }

    /// How to open the database at `path` for `access`, with the key, cipher options
    /// and lock timeout given, and the command's extensions; turns on the layer's memory
    /// security when asked.
    ///
    /// - Parameter readerWaits: a reader waits out the lock timeout only when one was
    ///   asked for; otherwise it gives way to another process's change at once and
    ///   says who is changing the database (README: readers never wait).
    package init(path: String, key: DatabaseKey?, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess,
                 readerWaits: Bool = false, found: Finding? = nil, in world: CommandWorld) {
        let memorySecurity = world.layer.enableMemorySecurity(asked: cipher.memorySecurity == true)
        self.init(path: path, key: key, access: access, lockTimeout: .milliseconds(Int64(lockTimeout * 1000)),
                  readerWaits: readerWaits, cipher: cipher.settings, memorySecurity: memorySecurity, extensions: world.extensions, found: found)
    }
}

import ArgumentParser
import MigrationKitSQLCipher

/// SQLCipher parameters for databases not made with the linked library's defaults.
public struct CipherOptions: ParsableArguments {
    @Option(name: .customLong("cipher-compatibility"), help: ArgumentHelp("Open or create in SQLCipher 3's or 4's format (3 or 4).", valueName: "3|4"))
    public var compatibility: Int?

    @Option(name: .customLong("kdf-iter"), help: ArgumentHelp("PBKDF2 iterations the database was keyed with.", valueName: "n"))
    public var kdfIterations: Int?

    @Option(name: .customLong("cipher-page-size"), help: ArgumentHelp("The database's cipher page size in bytes.", valueName: "n"))
    public var pageSize: Int?

    public init() {}

    public func validate() throws {
        if let compatibility, !(3...4).contains(compatibility) {
            throw ValidationError("--cipher-compatibility must be 3 or 4.")
        }
        if let kdfIterations, kdfIterations < 1 {
            throw ValidationError("--kdf-iter must be at least 1.")
        }
        if let pageSize, !(512...65536).contains(pageSize) || pageSize & (pageSize - 1) != 0 {
            throw ValidationError("--cipher-page-size must be a power of two from 512 to 65536.")
        }
    }

    var settings: CipherSettings {
        CipherSettings(compatibility: compatibility, kdfIterations: kdfIterations, pageSize: pageSize)
    }
}

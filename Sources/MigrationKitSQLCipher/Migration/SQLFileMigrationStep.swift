import CLibCrypto
import Foundation
import MigrationKit

extension SQLCipherDatabase: SQLFileExecuting {
    /// Runs a migration file's section; a failing statement is reported at its line
    /// in the file (`SQLFileStatementError`, around the `SQLCipherError`).
    public func execute(section: SQLSection) throws {
        do {
            try execute(sql: section.sql)
        } catch let error as SQLCipherError {
            throw SQLFileStatementError(
                sourcePath: section.path,
                sourceLine: error.location.map { section.fileLine(forSectionLine: $0.line) },
                underlying: error)
        }
    }

    public static func sha256Hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { migrationkit_sha256($0.baseAddress, $0.count, &digest) }
        return MigrationChecksum.hex(digest)
    }

    /// The lowercase hex SHA-384 of `bytes`: sqlx's checksum of a migration file, which
    /// adopting a database sqlx migrated compares (`OtherToolLedger`).
    static func sha384Hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 48)
        bytes.withUnsafeBytes { migrationkit_sha384($0.baseAddress, $0.count, &digest) }
        return MigrationChecksum.hex(digest)
    }
}

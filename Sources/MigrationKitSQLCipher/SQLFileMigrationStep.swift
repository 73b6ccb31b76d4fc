import Crypto
import MigrationKit

/// A statement in a migration file failed. Carries the file and the line of the
/// failing statement, re-based from the section to the whole file.
public struct SQLFileStatementError: SourceLocatedError, CustomStringConvertible {
    public let sourcePath: String
    public let sourceLine: Int?
    /// SQLite's error for the statement.
    public let underlying: SQLCipherError

    /// The message and the statement; the location is reported by whoever prints
    /// `sourcePath:sourceLine` in front (the runner's `MigrationStepError` does).
    public var description: String {
        underlying.message + (underlying.statementExcerpt.map { " in " + $0 } ?? "")
    }
}

extension MigrationStep where Database == SQLCipherDatabase {
    /// A step that runs a migration file's up SQL, and its down SQL (when it has one)
    /// to roll back. Its checksum is the SHA-256 of the up SQL with its line endings
    /// made `\n`, to detect a shipped migration that was edited afterwards: a checkout
    /// that turned the files to CRLF (git's autocrlf) edits nothing.
    public init(file: SQLMigrationFile) {
        let up = file.up
        var rollback: (@Sendable (SQLCipherDatabase) throws -> Void)?
        if let down = file.down {
            rollback = { db in try Self.run(down, in: db) }
        }
        self.init(
            identifier: file.identifier,
            sourceFile: file.path,
            checksum: Self.checksum(of: file.up.sql),
            merging: file.merging,
            apply: { db in try Self.run(up, in: db) },
            rollback: rollback)
        // What versions that hashed the bytes as they were recorded for a CRLF file.
        if file.up.sql.utf8.contains(UInt8(ascii: "\r")) {
            equivalentChecksums = [Self.hexDigest(of: Array(file.up.sql.utf8))]
        }
    }

    /// Lowercase hex SHA-256 of the SQL's UTF-8 bytes, with `\r\n` made `\n` (and a `\r`
    /// that ends the text, the rest of a CRLF a section's last line was split from,
    /// dropped; any other `\r` made `\n`).
    public static func checksum(of sql: String) -> String {
        var bytes = Array(sql.utf8)
        if bytes.contains(UInt8(ascii: "\r")) {
            var normalized: [UInt8] = []
            normalized.reserveCapacity(bytes.count)
            for (index, byte) in bytes.enumerated() {
                if byte == UInt8(ascii: "\r") {
                    if index + 1 == bytes.count || bytes[index + 1] == UInt8(ascii: "\n") { continue }
                    normalized.append(UInt8(ascii: "\n"))
                } else {
                    normalized.append(byte)
                }
            }
            bytes = normalized
        }
        return hexDigest(of: bytes)
    }

    static func hexDigest(of bytes: [UInt8]) -> String {
        // Straight into one byte buffer: a String per byte, joined, cost more than the
        // hash itself, and every command loading a long history pays it per file.
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(SHA256.byteCount * 2)
        for byte in SHA256.hash(data: bytes) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    private static func run(_ section: SQLSection, in db: SQLCipherDatabase) throws {
        do {
            try db.execute(sql: section.sql)
        } catch let error as SQLCipherError {
            throw SQLFileStatementError(
                sourcePath: section.path,
                sourceLine: error.location.map { section.fileLine(forSectionLine: $0.line) },
                underlying: error)
        }
    }
}

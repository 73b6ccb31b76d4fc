import CLibCrypto

/// The digests MigrationKit compares with what it or another tool recorded: a migration's
/// checksum (SHA-256), sqlx's (SHA-384), Liquibase's changeset checksums (MD5) and Atlas's
/// `atlas.sum` (a SHA-256 chain). Computed by OpenSSL's libcrypto, the library SQLCipher
/// itself encrypts with, for both database layers and for the folder readers that run
/// before either is there. Checksums of files the team keeps, never a protection of a
/// secret.
package enum Digest {
    /// The SHA-256 of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { migrationkit_sha256($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// The SHA-384 of `bytes`: sqlx's checksum of a migration file.
    package static func sha384(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 48)
        bytes.withUnsafeBytes { migrationkit_sha384($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// The MD5 of `bytes`: what Liquibase's changeset checksums
    /// (`DATABASECHANGELOG.MD5SUM`) are made of.
    package static func md5(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeBytes { migrationkit_md5($0.baseAddress, $0.count, &digest) }
        return digest
    }
}

/// A SHA-256 fed in pieces and read part-way: Atlas's `atlas.sum` takes the digest of
/// everything so far after each file and goes on.
final class SHA256Chain {
    private let context: OpaquePointer

    // OpenSSL fails these calls only when it cannot allocate a context: out of memory,
    // where Swift's own allocations end the process too.
    init() {
        guard let context = migrationkit_sha256_start() else { fatalError("OpenSSL could not allocate a SHA-256 context") }
        self.context = context
    }

    deinit { migrationkit_digest_end(context) }

    /// Adds `bytes` to what the digest is of.
    func add(_ bytes: [UInt8]) {
        guard bytes.withUnsafeBytes({ migrationkit_digest_add(context, $0.baseAddress, $0.count) }) == 1 else {
            fatalError("OpenSSL could not add to a SHA-256")
        }
    }

    /// The digest of everything added so far; more may be added afterwards.
    var digestSoFar: [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        guard migrationkit_digest_read(context, &digest) == 1 else { fatalError("OpenSSL could not copy a SHA-256 context") }
        return digest
    }
}

import MigrationKitFiles
import MigrationKitKeys

/// The `--verbose` notes on how this process protects the key in memory: what
/// `ProcessHardening`, `SecretBytes` and SQLCipher's memory security achieved. A key
/// that could not be locked in RAM is worth knowing about, not worth failing for (an
/// unprivileged user's `RLIMIT_MEMLOCK` may be small), so it is a note, never an error.
struct MemoryProtectionNotes {
    let keyResolved: Bool
    let memorySecurityAsked: Bool

    /// - Parameter layer: the layer that opens the command's databases, whose SQLCipher
    ///   the notes describe.
    func print(to reporter: Reporter, layer: any CommandLayer) {
        guard reporter.verbose else { return }
        for line in lines(process: ProcessHardening.current, lockFailures: SecretBytes.memoryLockFailures,
                          memorySecurity: layer.memorySecurity, cipherVersion: layer.library.cipherVersion) {
            reporter.note(line)
        }
    }

    package func lines(process: ProcessHardening.State, lockFailures: Int, memorySecurity: Bool?, cipherVersion: String?) -> [String] {
        var lines: [String] = []
        lines.append(process.isHardened
            ? "memory: core dumps are off and other processes of this user cannot read this one (not dumpable, core file limit 0)."
            : "memory: this process can still be dumped or traced (the host turned hardening off, or the system refused it).")
        if keyResolved {
            if lockFailures == 0 {
                lines.append("memory: the key is locked in RAM (never swapped) and left out of core dumps.")
            } else {
                let limit = process.memoryLockLimit.map { "\($0 / 1024) KiB" } ?? "unlimited"
                lines.append("memory: \(lockFailures) key buffer(s) could not be locked in RAM (RLIMIT_MEMLOCK is \(limit)), so they may reach swap; raise the limit (ulimit -l) to lock them.")
            }
        }
        switch memorySecurity {
        case nil:
            lines.append(cipherVersion.map { "memory: SQLCipher \($0) has no cipher_memory_security switch." }
                ?? "memory: the linked SQLite is not SQLCipher: the database is not encrypted, and there is no cipher_memory_security.")
        case true?:
            lines.append("memory: SQLCipher's cipher_memory_security is on (--memory-security): its buffers are wiped when freed, and locked in RAM while used as far as RLIMIT_MEMLOCK allows.")
        case false?:
            lines.append("memory: SQLCipher's cipher_memory_security is off (\(memorySecurityAsked ? "refused by the library" : "the default, as in SQLCipher; --memory-security turns it on, at a price")): its freed buffers are not wiped.")
        }
        return lines
    }
}

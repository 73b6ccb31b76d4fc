import CProcessControl
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps a process that holds database keys out of reach of core dumps and of other
/// processes of the same user, as `ssh-agent` and `gpg-agent` do:
///
/// - `prctl(PR_SET_DUMPABLE, 0)`: no core file, and no other process of the same user
///   may `ptrace` it or read its `/proc/PID/mem` (root still can);
/// - `RLIMIT_CORE` 0, soft and hard: no core file even if something makes the process
///   dumpable again.
///
/// The key buffers themselves are locked in RAM and left out of dumps by `SecretBytes`.
/// Both calls are per process and cannot be undone by an unprivileged process, which
/// is why an app embedding the commands can opt out (`MigrationCLIHost.hardensProcess`).
package enum ProcessHardening {
    /// What the process looks like now, for verbose output and tests.
    package struct State: Sendable, Equatable {
        /// Whether core files and same-user `ptrace` can reach the process.
        var isDumpable: Bool
        /// The soft `RLIMIT_CORE` in bytes, nil for unlimited.
        var coreFileLimit: Int64?
        /// The soft `RLIMIT_MEMLOCK` in bytes, nil for unlimited: how much `SecretBytes`
        /// (and SQLCipher's memory security) may lock in RAM.
        package var memoryLockLimit: Int64?

        /// Whether both protections are in place.
        package var isHardened: Bool { !isDumpable && coreFileLimit == 0 }
    }

    /// Applies both protections and returns the resulting state. Failures are not
    /// errors: the state says what holds.
    @discardableResult
    package static func apply() -> State {
        _ = migrationkit_disable_core_files()
        _ = migrationkit_set_dumpable(0)
        return current
    }

    /// The process's current state.
    package static var current: State {
        let core = migrationkit_core_file_limit()
        let memoryLock = migrationkit_memory_lock_limit()
        return State(
            isDumpable: migrationkit_get_dumpable() != 0,
            coreFileLimit: core < 0 ? nil : Int64(core),
            memoryLockLimit: memoryLock < 0 ? nil : Int64(memoryLock))
    }
}

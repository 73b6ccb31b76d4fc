import ArgumentParser
import MigrationKitFiles

/// `--shard INDEX/COUNT`: one share of a fleet, for schedulers that run the same
/// command on several machines (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`,
/// Nomad, GNU parallel over ssh), so MigrationKit plugs into them instead of growing a
/// scheduler of its own.
///
/// A database's shard is a function of its name alone (`{name}`: its real file's name
/// without the extension; `{folder}` or `{path}` when the key options tell the fleet's
/// databases apart by those), hashed with 64-bit FNV-1a and taken modulo `COUNT`: every
/// database falls in exactly one shard whatever order, machine or mount point lists it,
/// and a shard run again after a failure (a retried pod) takes exactly the same share.
/// Indexes count from 0, as `JOB_COMPLETION_INDEX` does.
struct FleetShard: ExpressibleByArgument, CustomStringConvertible, Sendable {
    let index: Int
    let count: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (0..<count).contains(index) else {
            return nil
        }
        self.index = index
        self.count = count
    }

    var description: String { "\(index)/\(count)" }

    /// Whether the database with these names is in this shard, by the value of `form`
    /// (`FleetNaming.shardForm`: `{name}` unless the key options tell the databases
    /// apart by another).
    func contains(_ names: DatabaseNames, by form: String) -> Bool {
        Self.fnv1a(names.value(of: form) ?? names.name) % UInt64(count) == UInt64(index)
    }

    /// 64-bit FNV-1a of the name's UTF-8 bytes: simple, and the same on every machine
    /// and in every release (Swift's own `Hasher` is seeded per process).
    static func fnv1a(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

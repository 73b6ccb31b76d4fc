import ArgumentParser
import Foundation
import MigrationKitFiles
import MigrationKitKeys

/// The options that name a fleet — many databases for one command — and how to work
/// through it: the same group on every command that works on one database at a time
/// (`FleetCommand`), so a selector learned on `migrate` works on `rekey` and `verify`.
package struct FleetOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("db-glob"), help: ArgumentHelp("Every database file this pattern matches, such as 'tenants/*.db' (quoted; repeatable). Each database is done all or nothing.", valueName: "pattern"))
    var globs: [String] = []

    @Option(name: .customLong("db-list"), help: ArgumentHelp("Every database this file names, one path a line (`-`: standard input).", valueName: "file"))
    package var list: String?

    @Option(name: .customLong("shard"), help: ArgumentHelp("Only this share of the databases named, for a scheduler running one command per machine: INDEX from 0 to COUNT-1 (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX). Each database's share follows from its name alone.", valueName: "index/count"))
    var shard: FleetShard?

    @Option(name: .customLong("jobs"), help: ArgumentHelp("With several databases: how many to work on at once (default: the number of CPU cores).", valueName: "n"))
    var jobs: Int?

    static let maximumJobs = 256

    package func validate() throws {
        if let jobs, !(1...Self.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs must be between 1 and \(Self.maximumJobs).")
        }
    }

    /// Whether these options, with the `--db-path`s given, name more than one database,
    /// or a list or share of them.
    func namesFleet(dbPaths: [String]) -> Bool {
        dbPaths.count > 1 || namesFleetBeyondPaths
    }

    /// `--db-glob`, `--db-list` or `--shard`: a fleet however many databases it holds.
    var namesFleetBeyondPaths: Bool { !globs.isEmpty || list != nil || shard != nil }

    /// The databases the command works on, in order, and how many were named before
    /// `--shard` took its share.
    ///
    /// A database file named in migrationkit.toml or the environment is one app's
    /// database; `--db-glob` or `--db-list` names the fleet, so only `--db-path` flags
    /// join it.
    ///
    /// - Parameter pathsAreFlags: the `--db-path`s came from flags, not from settings.
    /// - Parameter standardInput: the command's, which `--db-list -` reads.
    /// - Parameter perDatabase: the options whose values name something per database
    ///   (a key file, an export): every database of the list must give each its own
    ///   (`FleetNaming`), and `--shard` follows the name they tell the databases apart by.
    func databases(dbPaths: [String], pathsAreFlags: Bool, perDatabase: [FleetNaming.PerDatabase], standardInput: StandardInput) throws -> (paths: [String], listed: Int, roots: [String: String]) {
        let namesByPattern = !globs.isEmpty || list != nil
        let givenPaths = pathsAreFlags || !namesByPattern ? dbPaths : []
        let listed = try FleetDatabases(paths: givenPaths, globs: globs, list: try list.map { try FleetDatabases.readList($0, standardInput: standardInput) } ?? [])
        let naming = FleetNaming(paths: listed.paths, roots: listed.roots)
        try naming.requireDistinct(perDatabase)
        guard let shard else { return (listed.paths, listed.paths.count, listed.roots) }
        let form = try naming.shardForm(for: perDatabase)
        return (naming.names.filter { shard.contains($0.names, by: form) }.map(\.path), listed.paths.count, listed.roots)
    }

    /// How many databases to work on at once: never more than there are, so the
    /// summary says how many ran at a time.
    func jobCount(databases: Int) -> Int {
        min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, max(1, databases))
    }

    /// `--db-list -` reads standard input, which a key read from it would need too.
    ///
    /// - Parameter readers: the options that read standard input, by flag.
    func checkStandardInput(readBy readers: [String]) throws {
        guard list == "-", let reader = readers.first else { return }
        throw CLIError(.conflictingOptions, "--db-list - and \(reader) - both read standard input; give the list or the key in a file.")
    }
}

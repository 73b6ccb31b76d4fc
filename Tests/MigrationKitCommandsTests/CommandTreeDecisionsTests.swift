import Foundation
@testable import MigrationKitCommands
import MigrationKitTestSupport
import Testing

/// What the command tree decides by itself, whatever its database layer: how a fleet is
/// shared out and reported, and how the project file is read. (The commands themselves
/// are tested through both layers: MigrationKitCLITests and MigrationKitCLIProcessTests,
/// and the GRDB package's tests.)
@Suite struct CommandTreeDecisionsTests {
    /// Every database falls in exactly one shard, by its name alone, whatever the folder
    /// that lists it; a share is the same when run again.
    @Test func shardsCoverEveryDatabaseOnceByNameAlone() throws {
        let shards = (0..<4).map { FleetShard(argument: "\($0)/4")! }
        let names = (0..<200).map { "tenant-\($0)" }
        func named(_ path: String) -> DatabaseNames { DatabaseNames(of: path) }
        for name in names {
            #expect(shards.filter { $0.contains(named("/srv/a/\(name).db"), by: "{name}") }.count == 1, "\(name)")
            #expect(shards.map { $0.contains(named("/srv/a/\(name).db"), by: "{name}") } == shards.map { $0.contains(named("other/\(name).sqlite"), by: "{name}") })
        }
        // Far from all in one shard: FNV-1a spreads the names.
        for shard in shards { #expect(names.filter { shard.contains(named($0 + ".db"), by: "{name}") }.count > 20) }
        for bad in ["4/4", "-1/4", "1", "1/0", "a/b", "1/2/3"] { #expect(FleetShard(argument: bad) == nil, "\(bad)") }
        #expect(FleetShard.fnv1a("") == 0xcbf2_9ce4_8422_2325)
    }

    /// What `{name}`, `{folder}` and `{path}` stand for, and a pattern's folder, which
    /// `{path}` is taken under.
    @Test func aDatabaseGoesByItsNameItsFolderAndItsPathUnderTheRoot() {
        let perFolder = DatabaseNames(of: "/srv/tenants/acme/main.db", root: "/srv/tenants")
        #expect(perFolder.name == "main" && perFolder.folder == "acme" && perFolder.path == "acme/main")
        #expect(DatabaseNames(of: "/srv/eu/acme.db", root: "/srv").path == "eu/acme")
        #expect(DatabaseNames(of: "/elsewhere/acme.db", root: "/srv").path == nil)
        #expect(FleetDatabases.folder(of: "tenants/*/main.db") == "tenants")
        #expect(FleetDatabases.folder(of: "/srv/t/*.db") == "/srv/t")
        #expect(FleetDatabases.folder(of: "*.db") == ".")
        #expect(FleetDatabases.folder(of: "/srv/t/acme.db") == "/srv/t")
    }

    /// Two databases that would read one key file, or fall in one shard by a shared
    /// name, are refused, naming both; the forms that tell them apart are accepted, and
    /// `--shard` follows the most specific one the key options use.
    @Test func aFleetWhoseDatabasesShareANameIsRefusedWhereTheNameMatters() throws {
        let paths = ["/srv/tenants/acme/main.db", "/srv/tenants/globex/main.db"]
        let naming = FleetNaming(paths: paths, roots: Dictionary(uniqueKeysWithValues: paths.map { ($0, "/srv/tenants") }))
        let byName = [FleetNaming.PerDatabase(option: "--password-file", value: "keys/{name}.key")]
        #expect(throws: CLIError.self) { try naming.requireDistinct(byName) }
        do {
            try naming.requireDistinct(byName)
        } catch let error as CLIError {
            #expect(error.message.contains("/srv/tenants/acme/main.db and /srv/tenants/globex/main.db would share one name: --password-file keys/{name}.key names keys/main.key for both"), "\(error.message)")
        }
        #expect(throws: CLIError.self) { try naming.shardForm(for: byName) }
        for form in ["{folder}", "{path}"] {
            let distinct = [FleetNaming.PerDatabase(option: "--password-file", value: "keys/\(form).key")]
            try naming.requireDistinct(distinct)
            #expect(try naming.shardForm(for: distinct) == form)
        }
        // A key every database shares names nothing per database: no collision to refuse.
        try naming.requireDistinct(FleetNaming.PerDatabase.keySources(.init(byName: ["password-file": "keys/shared.key"])))
    }

    /// The progress line says what is done, what failed and what is left, in seconds
    /// under a minute and a half and in minutes above.
    @Test func theProgressLineEstimatesWhatIsLeft() {
        #expect(FleetRun.progress(done: 0, total: 200, failed: 0, elapsed: .seconds(3)) == "[0/200] databases done")
        #expect(FleetRun.progress(done: 50, total: 200, failed: 1, elapsed: .seconds(10)) == "[50/200] databases done, 1 failed, about 30 s left")
        #expect(FleetRun.progress(done: 10, total: 200, failed: 0, elapsed: .seconds(60)) == "[10/200] databases done, about 19 min left")
        #expect(FleetRun.progress(done: 200, total: 200, failed: 0, elapsed: .seconds(60)) == "[200/200] databases done")
    }

    /// A table's columns line up, the last column is never padded, and a very long cell
    /// does not push every other row off the screen.
    @Test func tablesAlignTheirColumns() {
        let lines = FleetSummary.columns([["DATABASE", "TIME", "RESULT"], ["a.db", "1.2 s", "done"], ["tenants/b.db", "15 ms", "failed"]])
        #expect(lines == ["DATABASE      TIME   RESULT", "a.db          1.2 s  done", "tenants/b.db  15 ms  failed"])
        let long = String(repeating: "x", count: 100)
        #expect(FleetSummary.columns([[long, "a"], ["b", "c"]])[1] == "b" + String(repeating: " ", count: 59) + "  c")
    }

    /// The project file's paths are its own folder's, a table is one database's, and a
    /// mistake is named with the file and line.
    @Test func theProjectFileIsReadRelativeToItsFolderAndNamesItsMistakes() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("migrationkit.toml").path
        try Data("migrations = \"db/migrations\"\n\n[databases.app]\ndb-path = \"db/app.db\"\n".utf8).write(to: URL(fileURLWithPath: path))
        let file = try ProjectFile.load(path: path, named: true, commandName: "migrationkit")
        let settings = try file.settings(database: "app")
        let root = URL(fileURLWithPath: folder.url.path).standardizedFileURL.path
        #expect(settings.name == "app")
        #expect(settings.entries[.dbPath]?.value == root + "/db/app.db")
        #expect(settings.entries[.migrations]?.value == root + "/db/migrations")
        #expect(try ProjectFile.locate(explicit: nil, from: folder.url.appendingPathComponent("deeper/still").path) == path)

        try Data("db-path = \"a.db\"\npassword = \"hunter2\"\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try ProjectFile.load(path: path, named: true, commandName: "migrationkit")
        } throws: { error in
            let message = (error as? CLIError)?.message ?? ""
            return message.hasPrefix("\(path):2:") && !message.contains("hunter2")
        }
    }
}

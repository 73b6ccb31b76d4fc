// Case 10 of `make bench` (Benchmarks/README.md): GRDB's own `DatabaseMigrator` against
// `GRDBMigrationRunner` with its defaults (verification on), in one process on the same
// GRDB (the system's SQLite), the same steps, rounds interleaved so that drift on a
// shared machine hits both alike. Prints a Markdown table: the median of each side's
// rounds and the runner's ratio to GRDB's, against the target of issue 51 (1.10).
//
//   grdb-migrator-bench [ROUNDS]      (BENCH_GRDB_ROUNDS, default 5; BENCH_GRDB_SCALE
//                                      divides every size, for a smoke run; BENCH_DIR,
//                                      default the temporary folder, holds the files)
import Foundation
import GRDB
import MigrationKit
import MigrationKitGRDB

let environment = ProcessInfo.processInfo.environment
let rounds = Int(CommandLine.arguments.dropFirst().first ?? environment["BENCH_GRDB_ROUNDS"] ?? "") ?? 5
// At most 300: every case keeps at least one step and one row.
let scale = min(300, max(1, Int(environment["BENCH_GRDB_SCALE"] ?? "") ?? 1))
let folder = URL(fileURLWithPath: environment["BENCH_DIR"] ?? NSTemporaryDirectory())
    .appendingPathComponent("grdb-migrator-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// The two migrators, registered from the same list of steps.
enum Migrator: String, CaseIterable {
    case grdb = "DatabaseMigrator"
    case runner = "GRDBMigrationRunner"

    /// Registers `steps` and migrates `writer`, as an app's launch does.
    func migrate(_ steps: [(String, @Sendable (Database) throws -> Void)], _ writer: any DatabaseWriter) throws {
        switch self {
        case .grdb:
            var migrator = DatabaseMigrator()
            for (identifier, body) in steps { migrator.registerMigration(identifier, migrate: body) }
            try migrator.migrate(writer)
        case .runner:
            var runner = GRDBMigrationRunner()
            for (identifier, body) in steps { runner.registerMigration(identifier, migrate: body) }
            try runner.migrate(writer)
        }
    }
}

func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

func remove(_ database: String) {
    for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
}

func copy(_ source: String, to destination: String) throws {
    remove(destination)
    try FileManager.default.copyItem(atPath: source, toPath: destination)
}

var results: [(name: String, grdb: Double, runner: Double)] = []
/// The cases to run, by their row's number in the table (BENCH_GRDB_CASES, "4" or "1,2";
/// default every one), and the sides (BENCH_GRDB_SIDE, `grdb` or `runner`; default both):
/// to profile one row and one side alone.
let selectedCases = environment["BENCH_GRDB_CASES"].map { Set($0.split(separator: ",").compactMap { Int($0) }) }
let sides = Migrator.allCases.filter { side in environment["BENCH_GRDB_SIDE"].map { $0 == "\(side)" } ?? true }
var caseNumber = 0

/// One case: `prepare` (untimed) makes a round's database, `run` is timed, for each
/// migrator in turn, `rounds` times; the medians, in seconds, added to `results`.
@MainActor func measure(_ name: String, prepare: (Migrator) throws -> any DatabaseWriter, run: (Migrator, any DatabaseWriter) throws -> Void,
                        perRun divisor: Double = 1) throws {
    caseNumber += 1
    guard selectedCases?.contains(caseNumber) ?? true else { return }
    var times: [Migrator: [Double]] = [:]
    for _ in 0..<rounds {
        for migrator in sides {
            let writer = try prepare(migrator)
            let start = ContinuousClock.now
            try run(migrator, writer)
            let elapsed = ContinuousClock.now - start
            try writer.close()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            times[migrator, default: []].append(seconds / divisor)
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    results.append((name, median(times[.grdb] ?? [0]), median(times[.runner] ?? [0])))
}

// The steps of each case.

let history = (1...100).map { index -> (String, @Sendable (Database) throws -> Void) in
    ("v\(index)", { db in try db.execute(sql: "CREATE TABLE t\(index) (id INTEGER PRIMARY KEY, name TEXT)") })
}
let smallSteps = (1...(300 / scale)).map { index -> (String, @Sendable (Database) throws -> Void) in
    ("step\(index)", { db in
        let parent = index == 1 ? "" : ", parentId INTEGER REFERENCES s\(index - 1)(id)"
        try db.execute(sql: "CREATE TABLE s\(index) (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT ''\(parent)); CREATE INDEX s\(index)_name ON s\(index)(name)")
    })
}
let rewriteRows = 300_000 / scale
let events: (String, @Sendable (Database) throws -> Void) = ("events", { db in
    try db.execute(sql: """
        CREATE TABLE events (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, kind TEXT NOT NULL);
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(rewriteRows))
        INSERT INTO events SELECT i, datetime(1700000000 + i, 'unixepoch'), CASE i % 3 WHEN 0 THEN 'view' WHEN 1 THEN 'click' ELSE 'buy' END FROM c;
        CREATE INDEX events_kind ON events(kind);
        """)
})
let rewrite: (String, @Sendable (Database) throws -> Void) = ("rewrite events", { db in
    // sqlite.org's 12-step table change: the new table, the rows copied, the old one dropped.
    try db.execute(sql: """
        CREATE TABLE events_new (id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('view', 'click', 'buy')));
        INSERT INTO events_new SELECT id, CAST(strftime('%s', created_at) AS INTEGER), kind FROM events;
        DROP TABLE events;
        ALTER TABLE events_new RENAME TO events;
        CREATE INDEX events_kind ON events(kind);
        """)
})
let insertRows = 50_000 / scale
let insert: (String, @Sendable (Database) throws -> Void) = ("insert notes", { db in
    try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, words INTEGER NOT NULL)")
    let statement = try db.makeStatement(sql: "INSERT INTO notes (body, words) VALUES (?, ?)")
    for index in 0..<insertRows {
        let body = "note \(index) of the benchmark"
        try statement.execute(arguments: [body, body.split(separator: " ").count])
    }
})

// An app's launch with 100 applied migrations and nothing to do, 100 launches a round:
// opening the database, registering the steps and migrating; and the last two alone,
// on one open queue.
let launched = path("launch.sqlite")
try Migrator.grdb.migrate(history, try DatabaseQueue(path: launched))
let launches = 100.0
try measure("app launch, 100 applied, nothing to do: open, register, migrate", prepare: { _ in try DatabaseQueue() }, run: { migrator, _ in
    for _ in 0..<Int(launches) {
        let queue = try DatabaseQueue(path: launched)
        try migrator.migrate(history, queue)
        try queue.close()
    }
}, perRun: launches)
try measure("the same, register and migrate alone", prepare: { _ in try DatabaseQueue(path: launched) }, run: { migrator, writer in
    for _ in 0..<Int(launches) { try migrator.migrate(history, writer) }
}, perRun: launches)

try measure("\(smallSteps.count) small migrations, DatabaseQueue", prepare: { migrator in
    remove(path("small-\(migrator).sqlite"))
    return try DatabaseQueue(path: path("small-\(migrator).sqlite"))
}, run: { migrator, writer in try migrator.migrate(smallSteps, writer) })

try measure("\(smallSteps.count) small migrations, DatabasePool", prepare: { migrator in
    remove(path("pool-\(migrator).sqlite"))
    return try DatabasePool(path: path("pool-\(migrator).sqlite"))
}, run: { migrator, writer in try migrator.migrate(smallSteps, writer) })

let rewriteTemplate = path("rewrite-template.sqlite")
try Migrator.grdb.migrate([events], try DatabaseQueue(path: rewriteTemplate))
try measure("\(rewriteRows)-row rewrite (12-step)", prepare: { migrator in
    try copy(rewriteTemplate, to: path("rewrite-\(migrator).sqlite"))
    return try DatabaseQueue(path: path("rewrite-\(migrator).sqlite"))
}, run: { migrator, writer in try migrator.migrate([events, rewrite], writer) })

// The same rewrite, with the integrity half of the verification left to the app (as an
// app that cannot read its file back at launch leaves it), to show what the rest costs.
try measure("the same, integrity check left to the app", prepare: { migrator in
    try copy(rewriteTemplate, to: path("rewrite-\(migrator).sqlite"))
    return try DatabaseQueue(path: path("rewrite-\(migrator).sqlite"))
}, run: { migrator, writer in
    switch migrator {
    case .grdb: try migrator.migrate([events, rewrite], writer)
    case .runner:
        var runner = GRDBMigrationRunner()
        runner.host = MigrationHostIntegration(verifyIntegrity: { _ in })
        for (identifier, body) in [events, rewrite] { runner.registerMigration(identifier, migrate: body) }
        try runner.migrate(writer)
    }
})

// A small change to a large database: a new table of two rows beside the rewrite's
// 300,000 events, which the verification does not read back. From a file the runner
// migrated, as an app's is after its first launch with it (the runner's history table
// made), which GRDB's migrator opens as it opens its own.
let besideTemplate = path("beside-template.sqlite")
try Migrator.runner.migrate([events], try DatabaseQueue(path: besideTemplate))
let small: (String, @Sendable (Database) throws -> Void) = ("settings", { db in
    try db.execute(sql: "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT); INSERT INTO settings VALUES ('theme', 'dark'), ('lang', 'en')")
})
try measure("a small change beside \(rewriteRows) rows", prepare: { migrator in
    try copy(besideTemplate, to: path("beside-\(migrator).sqlite"))
    return try DatabaseQueue(path: path("beside-\(migrator).sqlite"))
}, run: { migrator, writer in try migrator.migrate([events, small], writer) })

try measure("\(insertRows)-row insert (a statement a row, in Swift)", prepare: { migrator in
    remove(path("insert-\(migrator).sqlite"))
    return try DatabaseQueue(path: path("insert-\(migrator).sqlite"))
}, run: { migrator, writer in try migrator.migrate([insert], writer) })

func format(_ seconds: Double) -> String {
    seconds < 0.1 ? String(format: "%.2f ms", seconds * 1000) : String(format: "%.3f s", seconds)
}
let sqlite = try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } ?? "?"
print("GRDB's DatabaseMigrator against GRDBMigrationRunner (defaults: verification on), SQLite \(sqlite), medians of \(rounds) interleaved rounds")
print("")
print("| case | DatabaseMigrator | GRDBMigrationRunner | ratio | target |")
print("|---|---:|---:|---:|---:|")
for result in results {
    let ratio = result.runner / result.grdb
    print("| \(result.name) | \(format(result.grdb)) | \(format(result.runner)) | \(String(format: "%.2f×", ratio))\(ratio > 1.10 ? " (over)" : "") | ≤ 1.10× |")
}

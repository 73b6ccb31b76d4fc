import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitSecrets

/// Proves a set of migrations before it ships (`check`), on scratch databases only,
/// through any layer:
///
/// 1. a fresh install applies every step and passes verification;
/// 2. migrating again is a no-op that leaves the file's bytes unchanged;
/// 3. every step with a rollback undoes itself: up, down, and the schema equals the
///    one before; up again, and it equals the one after;
/// 4. optionally, a copy of a real older database upgrades cleanly, every table it had
///    keeps its row count (unless a step declares it changes that table's rows), and
///    the verifier passes.
///
/// Scratch databases live in a private temporary folder, encrypted with a random key
/// where the layer encrypts (the older database's copy keeps its own key), and are
/// deleted afterwards.
struct RoundTripCheck {
    /// A proof checks everything: the databases are small scratch copies.
    private static let wholeFile = MigrateOptions(verification: .wholeFile)

    /// One check's outcome.
    struct Result: Encodable, Sendable {
        /// Which check: "fresh install", "migrate twice", "round trip" followed by a
        /// step's identifier ("round trips" when they stopped on an error), or "upgrade"
        /// followed by the older database's path.
        package let name: String
        /// Whether the check passed.
        let passed: Bool
        /// What was found, in a sentence: the evidence when it passed, the problem when not.
        let detail: String
        /// What only the app registers that the check needed and the scratch database's
        /// connection lacked, so that it could not run (no failure; `passed` is true):
        /// empty when it ran.
        package let notChecked: [VerifyDocument.Check.Need]

        init(name: String, passed: Bool, detail: String, notChecked: [VerifyDocument.Check.Need] = []) {
            self.name = name
            self.passed = passed
            self.detail = detail
            self.notChecked = notChecked
        }

        /// A check that `error` stopped: failed, or, where the error is a statement that
        /// needs what only the app registers (its tokenizer, a function), not checked,
        /// naming it: the migrations are not at fault, and the check runs with the app's
        /// extension loaded.
        static func stopped(_ name: String, by error: any Error, detail: String? = nil) -> Result {
            guard let need = AppExtensionNeed(error: error) else { return Result(name: name, passed: false, detail: detail ?? "\(error)") }
            return Result(name: name, passed: true, detail: "not checked: it needs \(need), which the scratch database's connection does not have",
                          notChecked: [.init(kind: need.kind.rawValue, name: need.name)])
        }
    }

    /// The migrations proven, with their observer removed so the checks run quietly.
    private let migrations: CommandMigrations
    /// Tables whose row counts a step may change, by declaration (`-- migrate:row-changes`),
    /// lowercased.
    private let allowedRowChanges: Set<String>
    /// The scratch databases' key; nil on a layer that cannot encrypt.
    private let scratchKey: DatabaseKey?
    /// The world of the `check` command, whose layer opens the databases.
    private let world: CommandWorld

    /// A check of `migrations` in `world`; `allowedRowChanges` names the tables whose
    /// row counts may change, compared case-insensitively.
    init(migrations: CommandMigrations, allowedRowChanges: Set<String>, in world: CommandWorld) {
        var quiet = migrations
        quiet.observer = nil
        self.migrations = quiet
        self.allowedRowChanges = Set(allowedRowChanges.map { $0.lowercased() })
        self.scratchKey = world.layer.library.encrypts ? ScratchFolder.randomKey() : nil
        self.world = world
    }

    /// Runs every check. A failing check is reported, not thrown; only a problem with
    /// the scratch folder itself throws.
    package func run(olderDatabase: OpenRequest?) throws -> [Result] {
        let scratch = try ScratchFolder(purpose: "check")
        defer { withExtendedLifetime(scratch) {} }
        let folder = scratch.path
        var results = freshInstall(at: folder + "/fresh.db")
        results += roundTrips(in: folder)
        if let olderDatabase {
            results.append(upgrade(olderDatabase, copyTo: folder + "/older-copy.db"))
        }
        return results
    }

    private func scratchDatabase(_ path: String, migrations: (CommandMigrations)? = nil) throws -> MigrationSession {
        try MigrationSession.openScratch(OpenRequest(path: path, key: scratchKey, access: .create, lockTimeout: .seconds(5), extensions: world.extensions),
                                         migrations: migrations ?? self.migrations, in: world)
    }

    // MARK: - Checks

    private func freshInstall(at path: String) -> [Result] {
        var results: [Result] = []
        do {
            let database = try scratchDatabase(path)
            let report = try database.migrate(upTo: nil, options: Self.wholeFile)
            // Closed, so the bytes compared are the whole database (a WAL is checkpointed).
            try database.close()
            results.append(Result(name: "fresh install", passed: true,
                                  detail: "\(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") applied to an empty database; verification passed"))
        } catch {
            return [Result.stopped("fresh install", by: error)]
        }
        do {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let database = try scratchDatabase(path)
            let contentsBefore = try Self.contents(of: database)
            let again = try database.migrate(upTo: nil, options: Self.wholeFile)
            let contentsAfter = try Self.contents(of: database)
            try database.close()
            let after = try Data(contentsOf: URL(fileURLWithPath: path))
            // The bytes, where the writer leaves them alone; else every schema object and
            // row (GRDB's DatabasePool creates and drops a table each time it opens).
            let passed = again.steps.isEmpty && (before == after || contentsBefore == contentsAfter)
            let detail = !passed ? "the second run applied \(again.identifiers) or changed the database"
                : before == after ? "the second run applied nothing and left the file unchanged"
                : "the second run applied nothing and changed no schema object or row (the app's writer rewrites the file's header as it opens)"
            results.append(Result(name: "migrate twice", passed: passed, detail: detail))
        } catch {
            results.append(Result.stopped("migrate twice", by: error))
        }
        return results
    }

    /// Every schema object and every row of every table, as text: what a database holds,
    /// whatever its file's bytes.
    private static func contents(of database: MigrationSession) throws -> String {
        try database.read { db in
            var text = try SchemaDump.comparableForm(of: db)
            for table in try db.textColumn(sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY name") {
                for row in try db.textRows(sql: "SELECT * FROM main.\(quoteIdentifier(table))") {
                    text += "\n\(table): " + row.map { $0 ?? "NULL" }.joined(separator: "|")
                }
            }
            return text
        }
    }

    /// Up, down, up for every reversible step, comparing schemas at each point. After a
    /// failed round trip the scratch database is in a state no step expects, so the
    /// next step starts from a fresh one built up to where the failing step left off.
    ///
    /// The required indexes are the latest schema's: a step before the one that makes
    /// an index, or the down of that step, leaves a database that rightly has none.
    private func roundTrips(in folder: String) -> [Result] {
        var results: [Result] = []
        var generation = 0
        var stepwise = migrations
        stepwise.requiredIndexes = []
        func freshDatabase(upTo identifier: String?) throws -> MigrationSession {
            generation += 1
            let database = try scratchDatabase(folder + "/roundtrip-\(generation).db", migrations: stepwise)
            if let identifier { _ = try database.migrate(upTo: identifier, options: Self.wholeFile) }
            return database
        }
        func schema(_ database: MigrationSession) throws -> String {
            try database.read { try SchemaDump.comparableForm(of: $0) }
        }
        do {
            var database = try freshDatabase(upTo: nil)
            for identifier in migrations.identifiers {
                let name = "round trip \(identifier)"
                let before = try schema(database)
                _ = try database.migrate(upTo: identifier, options: Self.wholeFile)
                let after = try schema(database)
                let wayBack = migrations.rollbackName(identifier)
                guard migrations.isReversible(identifier) else {
                    results.append(Result(name: name, passed: true, detail: "skipped: no \(wayBack)"))
                    continue
                }
                let result: Result
                var roundTripped = false
                do {
                    let steppedBack = try stepBackAsTheReleaseBefore(identifier, in: database)
                    if !steppedBack {
                        // Just applied, so the latest: rolling back one step undoes it alone.
                        _ = try database.rollback(.latest(1), acceptModified: [])
                    }
                    let down = steppedBack ? "the down stored in the database" : "the \(wayBack)"
                    let undone = try schema(database)
                    if undone != before {
                        result = Result(name: name, passed: false, detail: "\(down) does not undo the step: " + Self.difference(expected: before, actual: undone))
                    } else {
                        _ = try database.migrate(upTo: identifier, options: Self.wholeFile)
                        let redone = try schema(database)
                        roundTripped = redone == after
                        result = !roundTripped
                            ? Result(name: name, passed: false, detail: "applying again after the down gives a different schema: " + Self.difference(expected: after, actual: redone))
                            : steppedBack ? Result(name: name, passed: true, detail: "up, down and up again give the same schemas (the down run as the release before it runs it, from the copy stored in the database)")
                            : Result(name: name, passed: true, detail: "up, down and up again give the same schemas")
                    }
                } catch {
                    result = Result.stopped(name, by: error)
                }
                results.append(result)
                // A round trip that did not end where it began leaves no database the next step can start from.
                if !roundTripped { database = try freshDatabase(upTo: identifier) }
            }
        } catch {
            results.append(Result.stopped("round trips", by: error))
        }
        return results
    }

    /// Opens `database`'s file as the release before `identifier` (the migrations up to
    /// it) and, when that release would step back from it, steps back as that release
    /// does: from the down the database stored, judged as a newer release's step. False,
    /// having changed nothing, when that release would use the database as it is (the step
    /// is declared compatible with it): the step's own way back is then what is proven.
    private func stepBackAsTheReleaseBefore(_ identifier: String, in database: MigrationSession) throws -> Bool {
        guard let position = migrations.identifiers.firstIndex(of: identifier) else { return false }
        var request = database.request
        request.access = .change
        let older = try MigrationSession.openScratch(request, migrations: stepwiseBefore(position), in: world)
        defer { try? older.close() }
        guard case .canStepBack = try older.status().newer else { return false }
        _ = try older.rollback(.newer, acceptModified: [])
        return true
    }

    /// The release before the step at `position`, without required indexes (as the round
    /// trips run).
    private func stepwiseBefore(_ position: Int) -> CommandMigrations {
        var older = migrations.prefix(position)
        older.requiredIndexes = []
        return older
    }

    private func upgrade(_ older: OpenRequest, copyTo copy: String) -> Result {
        let name = "upgrade \(older.path)"
        do {
            // Open the original read-only first: proves the key, and takes its copy from
            // a consistent state without ever writing to it.
            var readOnly = older
            readOnly.access = .inspect
            readOnly.readOnly = true
            let original = try MigrationSession.open(readOnly, migrations: migrations, in: world)
            let counts = try original.read { try $0.tableRowCounts() }
            try original.copy(to: copy)
            var copied = older.forFile(at: copy)
            copied.access = .change
            let database = try MigrationSession.openScratch(copied, migrations: migrations, in: world)
            let report = try database.migrate(upTo: nil, options: Self.wholeFile)
            let upgraded = try database.read { try $0.tableRowCounts() }
            var changed: [String] = []
            // SQLite's own tables (`sqlite_sequence`, which AUTOINCREMENT keeps a row in
            // per table, and ANALYZE's) count what SQLite does, not a step's data.
            for (table, count) in counts.sorted(by: { $0.key < $1.key })
            where !SchemaDump.isBookkeeping(table) && !table.lowercased().hasPrefix("sqlite_") {
                guard let now = upgraded[table] else { continue }  // dropped on purpose by a step
                if now != count && !allowedRowChanges.contains(table.lowercased()) {
                    changed.append("\(table): \(count) → \(now) rows")
                }
            }
            guard changed.isEmpty else {
                return Result(name: name, passed: false,
                              detail: "row counts changed without a step declaring it (-- migrate:row-changes TABLE): " + changed.joined(separator: ", "))
            }
            return Result(name: name, passed: true,
                          detail: "a copy upgraded with \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s"); every table kept its rows; verification passed")
        } catch {
            return Result.stopped(name, by: error)
        }
    }

    /// The first differing object, for a short failure message.
    private static func difference(expected: String, actual: String) -> String {
        let old = Set(expected.split(separator: "\n"))
        let new = Set(actual.split(separator: "\n"))
        let missing = old.subtracting(new).sorted().first.map { "missing `\($0)`" }
        let extra = new.subtracting(old).sorted().first.map { "unexpected `\($0)`" }
        return [missing, extra].compactMap { $0 }.joined(separator: "; ")
    }
}

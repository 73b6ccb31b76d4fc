import Foundation
import MigrationKit

/// Proves a set of migrations before it ships, on scratch databases only:
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
/// (the older database's copy keeps its own key), and are deleted afterwards.
public struct RoundTripCheck: Sendable {
    /// A proof checks everything: the databases are small scratch copies.
    private static let wholeFile = MigrateOptions(verification: .wholeFile)

    /// One check's outcome.
    public struct Result: Hashable, Sendable, Codable {
        /// Which check: "fresh install", "migrate twice", "round trip" followed by a
        /// step's identifier ("round trips" when they stopped on an error), or "upgrade"
        /// followed by the older database's path.
        public let name: String
        /// Whether the check passed.
        public let passed: Bool
        /// What was found, in a sentence: the evidence when it passed, the problem when not.
        public let detail: String

        /// The outcome of the check called `name`.
        public init(name: String, passed: Bool, detail: String) {
            self.name = name
            self.passed = passed
            self.detail = detail
        }
    }

    /// The runner whose steps are proven, with its observer removed so the checks run
    /// quietly.
    public let runner: SQLCipherMigrationRunner
    /// Tables whose row counts a step may change, by declaration (`-- migrate:row-changes`).
    public var allowedRowChanges: Set<String>

    /// A check of `runner`'s steps; `allowedRowChanges` names the tables whose row
    /// counts may change, compared case-insensitively.
    public init(runner: SQLCipherMigrationRunner, allowedRowChanges: Set<String> = []) {
        var quiet = runner
        quiet.observer = nil
        self.runner = quiet
        self.allowedRowChanges = Set(allowedRowChanges.map { $0.lowercased() })
    }

    /// Runs every check. A failing check is reported, not thrown; only a problem with
    /// the scratch folder itself throws.
    public func run(olderDatabase: (path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration)? = nil) throws -> [Result] {
        let scratch = try ScratchFolder(purpose: "check")
        defer { withExtendedLifetime(scratch) {} }
        let folder = scratch.path
        let scratchKey = ScratchFolder.randomKey()

        var results = freshInstall(at: folder + "/fresh.db", key: scratchKey)
        results += roundTrips(in: folder, key: scratchKey)
        if let olderDatabase {
            results.append(upgrade(olderDatabase, copyTo: folder + "/older-copy.db"))
        }
        return results
    }

    // MARK: - Checks

    private func freshInstall(at path: String, key: DatabaseKey) -> [Result] {
        var results: [Result] = []
        do {
            let writer = try SQLCipherWriter(path: path, key: key)
            let report = try runner.migrate(in: writer, options: Self.wholeFile)
            results.append(Result(name: "fresh install", passed: true,
                                  detail: "\(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") applied to an empty database; verification passed"))
        } catch {
            return [Result(name: "fresh install", passed: false, detail: "\(error)")]
        }
        do {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let writer = try SQLCipherWriter(path: path, key: key)
            let again = try runner.migrate(in: writer, options: Self.wholeFile)
            let after = try Data(contentsOf: URL(fileURLWithPath: path))
            let passed = again.steps.isEmpty && before == after
            results.append(Result(name: "migrate twice", passed: passed,
                                  detail: passed ? "the second run applied nothing and left the file unchanged"
                                      : "the second run applied \(again.identifiers) or changed the file"))
        } catch {
            results.append(Result(name: "migrate twice", passed: false, detail: "\(error)"))
        }
        return results
    }

    /// Up, down, up for every reversible step, comparing schemas at each point. After a
    /// failed round trip the scratch database is in a state no step expects, so the
    /// next step starts from a fresh one built up to where the failing step left off.
    private func roundTrips(in folder: String, key: DatabaseKey) -> [Result] {
        var results: [Result] = []
        var generation = 0
        func freshWriter(upTo identifier: String?) throws -> SQLCipherWriter {
            generation += 1
            let writer = try SQLCipherWriter(path: folder + "/roundtrip-\(generation).db", key: key)
            if let identifier { try runner.migrate(in: writer, upTo: identifier, options: Self.wholeFile) }
            return writer
        }
        do {
            var writer = try freshWriter(upTo: nil)
            for step in runner.registry.steps {
                let name = "round trip \(step.identifier)"
                let before = try writer.read { try SchemaDump.comparableForm(of: $0) }
                try runner.migrate(in: writer, upTo: step.identifier, options: Self.wholeFile)
                let after = try writer.read { try SchemaDump.comparableForm(of: $0) }
                guard step.isReversible else {
                    results.append(Result(name: name, passed: true, detail: "skipped: no down section"))
                    continue
                }
                do {
                    try runner.rollbackMigration(step.identifier, in: writer)
                    let undone = try writer.read { try SchemaDump.comparableForm(of: $0) }
                    guard undone == before else {
                        throw RoundTripFailure(detail: "the down section does not undo the up section: " + Self.difference(expected: before, actual: undone))
                    }
                    try runner.migrate(in: writer, upTo: step.identifier, options: Self.wholeFile)
                    let redone = try writer.read { try SchemaDump.comparableForm(of: $0) }
                    guard redone == after else {
                        throw RoundTripFailure(detail: "applying again after the down gives a different schema: " + Self.difference(expected: after, actual: redone))
                    }
                    results.append(Result(name: name, passed: true, detail: "up, down and up again give the same schemas"))
                } catch {
                    results.append(Result(name: name, passed: false, detail: (error as? RoundTripFailure)?.detail ?? "\(error)"))
                    writer = try freshWriter(upTo: step.identifier)
                }
            }
        } catch {
            results.append(Result(name: "round trips", passed: false, detail: "\(error)"))
        }
        return results
    }

    private struct RoundTripFailure: Error {
        let detail: String
    }

    private func upgrade(_ older: (path: String, key: DatabaseKey?, configuration: SQLCipherConfiguration), copyTo copy: String) -> Result {
        let name = "upgrade \(older.path)"
        do {
            var configuration = older.configuration
            configuration.createIfMissing = false
            configuration.readOnly = true
            // Open the original read-only first: proves the key, and takes its copy from
            // a consistent state without ever writing to it.
            let original = try SQLCipherWriter(path: older.path, key: older.key, configuration: configuration)
            let counts = try original.read { try DatabaseEncryption.summary(of: $0).rowCounts }
            try original.read { _ in try BackupFiles.copyBytes(from: older.path, to: copy) }
            var copyConfiguration = older.configuration
            copyConfiguration.createIfMissing = false
            let writer = try SQLCipherWriter(path: copy, key: older.key, configuration: copyConfiguration)
            let report = try runner.migrate(in: writer, options: Self.wholeFile)
            let upgraded = try writer.read { try DatabaseEncryption.summary(of: $0).rowCounts }
            var changed: [String] = []
            for (table, count) in counts.sorted(by: { $0.key < $1.key }) where !SchemaDump.bookkeepingTables.contains(table.lowercased()) {
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
            return Result(name: name, passed: false, detail: "\(error)")
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

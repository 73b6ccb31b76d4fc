import Foundation

/// What adopting a database another tool migrated records (`adopt`): the migrations that
/// tool applied, mapped to the folder's by version, proven against the database's schema.
public struct OtherToolAdoption: Hashable, Sendable {
    /// The tool whose ledger was read.
    public let tool: OtherTool
    /// The latest version it recorded, as it wrote it; nil when it recorded none.
    public let lastVersion: String?
    /// The migrations recorded as applied, in order (what would be, for a dry run).
    public let identifiers: [String]
    /// The other tool's ledger tables dropped (`retiringLedger`), or `user_version` when
    /// a ladder was retired (set to 0); empty when the ledger was left as it was.
    public let retired: [String]
    /// Whether nothing was written (a dry run).
    public let isDryRun: Bool
    /// Flyway's repeatable migrations the ledger records, which MigrationKit does not
    /// run: what they made was compared with the schema as the rest of it.
    public let repeatables: [String]
}

/// Why a database cannot be adopted: every problem found, each naming what it is about,
/// found before anything is written. Nothing was written.
public struct OtherToolAdoptionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One reason.
    package enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// The database has no other tool's ledger.
        case noLedger
        /// `tool`'s ledger was asked for and is not there.
        case ledgerNotFound(OtherTool)
        /// Several tools' ledgers are there and none was named.
        case severalLedgers([OtherTool])
        /// MigrationKit's ledger already records migrations: the database is managed.
        case alreadyManaged(applied: Int)
        /// golang-migrate's `dirty` flag: the version failed half way.
        case dirty(tool: OtherTool, version: String)
        /// A failed row (Flyway's or sqlx's `success = 0`).
        case failed(tool: OtherTool, version: String, script: String?)
        /// A recorded version no migration of the folder carries.
        case noFile(tool: OtherTool, version: String)
        /// Several migrations carry a recorded version.
        case severalFiles(tool: OtherTool, version: String, identifiers: [String])
        /// The file's checksum differs from the one the tool recorded: it was edited
        /// after the tool applied it.
        case checksumDiffers(tool: OtherTool, version: String, path: String)
        /// A `user_version` beyond the number of migrations.
        case beyondFolder(userVersion: Int, migrations: Int)
        /// Migrations before the latest applied one that the tool did not apply.
        case gap(missing: [String], latest: String)
        /// The database's schema is not what the mapped migrations make.
        case schemaDiffers(first: SchemaDifference, more: Int, through: String?)

        package var description: String { sentence(namingToolsWith: nil) }

        /// The problem in words; where the tool must be named, `option` is how (a
        /// command line's option), or nil for the library's words.
        package func sentence(namingToolsWith option: String?) -> String {
            switch self {
            case .noLedger:
                return "it has no other tool's ledger (golang-migrate's or dbmate's schema_migrations, _sqlx_migrations, __diesel_schema_migrations, goose_db_version, flyway_schema_history, or a `PRAGMA user_version` above 0)"
            case .ledgerNotFound(let tool):
                return tool == .userVersion ? "its `PRAGMA user_version` is 0: no ladder records anything"
                    : "it has no \(tool.displayName) ledger (\(tool.ledgerTables.joined(separator: ", ")) of \(tool.displayName)'s shape)"
            case .severalLedgers(let tools):
                return "it has ledgers of \(tools.map(\.displayName).joined(separator: " and ")); name the one that migrated it\(option.map { " with \($0)" } ?? "") (\(tools.map(\.name).joined(separator: ", ")))"
            case .alreadyManaged(let applied):
                return "MigrationKit's ledger (grdb_migrations) already records \(applied) migration\(applied == 1 ? "" : "s"), so it is managed already"
            case .dirty(let tool, let version):
                return "\(tool.displayName) marked version \(version) dirty (it failed half way); repair the database and clear the flag as \(tool.displayName) says (`migrate force`), then adopt"
            case .failed(let tool, let version, let script):
                return "\(tool.displayName) recorded version \(version)\(script.map { " (\($0))" } ?? "") as failed; repair it with \(tool.displayName) first"
            case .noFile(let tool, let version):
                return "\(tool.displayName) recorded version \(version), and no migration in the folder carries it"
            case .severalFiles(let tool, let version, let identifiers):
                return "\(tool.displayName) recorded version \(version), which several migrations carry (\(identifiers.joined(separator: ", ")))"
            case .checksumDiffers(let tool, let version, let path):
                return "\(path) differs from the version \(version) \(tool.displayName) applied (its checksum is not the one recorded); restore the file as it was applied"
            case .beyondFolder(let userVersion, let migrations):
                return "its `PRAGMA user_version` is \(userVersion), and the folder has \(migrations) migration\(migrations == 1 ? "" : "s")"
            case .gap(let missing, let latest):
                return "the ledger records \(latest) but not \(missing.joined(separator: ", ")) before it"
            case .schemaDiffers(let first, let more, let through):
                return "its schema is not what the migrations \(through.map { "up to \($0)" } ?? "(none)") make (\(first.summary)\(more > 0 ? " and \(more) more" : ""))"
            }
        }
    }

    /// The problems, in the order found.
    package let problems: [Problem]

    package init(problems: [Problem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "; ") }
}

/// How the records of another tool's ledger map to the registered migrations: by
/// version (`MigrationVersion.parts`, so `3` is `0003_x`), or for a `user_version` ladder
/// by position. The one place the mapping is decided.
package enum OtherToolMapping {
    /// A registered migration as the mapping sees it.
    package struct Candidate: Sendable {
        package let identifier: String
        /// Its version, as its file's layout reads it; nil for a Swift step.
        package let version: MigrationVersion?
        /// The file of its up SQL, whose bytes the other tool's checksum is of.
        package let path: String?

        package init(identifier: String, version: MigrationVersion?, path: String?) {
            self.identifier = identifier
            self.version = version
            self.path = path
        }
    }

    /// The positions (in `candidates`) of the migrations `ledger` says are applied, or
    /// every problem with it.
    ///
    /// - Parameter sha384Hex: the SHA-384 of some bytes, as lowercase hex (the layer's:
    ///   the core has no cryptography).
    package static func appliedPositions(of ledger: OtherToolLedger, in candidates: [Candidate],
                                         sha384Hex: ([UInt8]) -> String) -> Result<[Int], OtherToolAdoptionError> {
        var problems: [OtherToolAdoptionError.Problem] = []
        var positions: [Int] = []
        let tool = ledger.tool
        if tool == .userVersion {
            let count = ledger.lastVersion.flatMap { Int($0) } ?? 0
            guard count <= candidates.count else { return .failure(OtherToolAdoptionError(problems: [.beyondFolder(userVersion: count, migrations: candidates.count)])) }
            return .success(Array(0..<count))
        }
        for record in ledger.records {
            switch record.state {
            case .dirty: problems.append(.dirty(tool: tool, version: record.version))
            case .failed: problems.append(.failed(tool: tool, version: record.version, script: record.script))
            case .applied, .baseline: break
            }
            let wanted = MigrationVersion(text: record.version, separators: ["."]).parts
            let matches = candidates.indices.filter { !wanted.isEmpty && candidates[$0].version?.parts == wanted }
            guard record.state != .failed else { continue }
            guard let position = matches.first else {
                problems.append(.noFile(tool: tool, version: record.version))
                continue
            }
            if matches.count > 1 {
                problems.append(.severalFiles(tool: tool, version: record.version, identifiers: matches.map { candidates[$0].identifier }))
                continue
            }
            if let checksum = record.checksum, let path = candidates[position].path, !matchesChecksum(checksum, of: path, sha384Hex: sha384Hex) {
                problems.append(.checksumDiffers(tool: tool, version: record.version, path: path))
            }
            switch record.state {
            case .baseline:
                // Everything up to the baseline is in the schema, as Flyway takes it.
                positions.append(contentsOf: 0...position)
            default:
                // golang-migrate keeps one row: the latest version, every earlier one applied.
                positions.append(contentsOf: tool == .golangMigrate ? Array(0...position) : [position])
            }
        }
        guard problems.isEmpty else { return .failure(OtherToolAdoptionError(problems: problems)) }
        let applied = Array(Set(positions)).sorted()
        if let latest = applied.last, applied.count != latest + 1 {
            let missing = (0...latest).filter { !applied.contains($0) }.map { candidates[$0].identifier }
            return .failure(OtherToolAdoptionError(problems: [.gap(missing: missing, latest: candidates[latest].identifier)]))
        }
        return .success(applied)
    }

    /// Whether the file at `path` has the checksum the other tool recorded: sqlx's
    /// SHA-384 of its bytes, Flyway's CRC32 of its lines. A file that cannot be read
    /// does not match.
    private static func matchesChecksum(_ checksum: OtherToolLedger.RecordedChecksum, of path: String, sha384Hex: ([UInt8]) -> String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        let bytes = [UInt8](data)
        switch checksum {
        case .sha384(let hex): return sha384Hex(bytes) == hex.lowercased()
        case .crc32(let value): return FlywayChecksum.of(bytes) == value
        }
    }
}

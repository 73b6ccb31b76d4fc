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
        /// The database has no ledger `adopt` reads; `ledgerLike` names the tables that
        /// look like one (`UnreadLedgerTable`), whose tool or shape it does not read.
        case noLedger(ledgerLike: [UnreadLedgerTable])
        /// `tool`'s ledger was asked for and is not there.
        case ledgerNotFound(OtherTool)
        /// Several tools' ledgers are there and none was named.
        case severalLedgers([OtherTool])
        /// MigrationKit's ledger already records migrations: the database is managed.
        case alreadyManaged(applied: Int)
        /// golang-migrate's `dirty` flag: the version failed half way.
        case dirty(tool: OtherTool, version: String)
        /// A failed row (Flyway's or sqlx's `success = 0`, a Prisma row that neither
        /// finished nor was rolled back).
        case failed(tool: OtherTool, version: String, script: String?)
        /// Recorded versions no migration of the folder carries.
        case noFile(tool: OtherTool, versions: [String])
        /// Several migrations carry a recorded version.
        case severalFiles(tool: OtherTool, version: String, identifiers: [String])
        /// The files' checksums differ from the ones the tool recorded (`paths`, each
        /// with the version the tool recorded for it): they were edited after the tool
        /// applied them.
        case checksumDiffers(tool: OtherTool, paths: [String], versions: [String])
        /// A `user_version` beyond the number of migrations.
        case beyondFolder(userVersion: Int, migrations: Int)
        /// A `user_version` beyond the schema version a SQLDelight folder's `.sqm` files
        /// reach (its last file's number plus one).
        case beyondSQLDelightFolder(userVersion: Int, schemaVersion: Int)
        /// Migrations before the latest applied one that the tool did not apply.
        case gap(missing: [String], latest: String)
        /// The database's schema is not what the mapped migrations make.
        case schemaDiffers(first: SchemaDifference, more: Int, through: String?)
        /// Checksums of a version of the tool's algorithm MigrationKit does not compute
        /// (Liquibase's `8:`, before Liquibase 4.24), for `versions`.
        case checksumOfAnotherVersion(tool: OtherTool, versions: [String])
        /// Versions the tool ran as code (Flyway's Java or Kotlin migrations), which no
        /// file of the folder carries: a database not yet past them would never get
        /// what they do, and the SQL after them may depend on it.
        case codeMigrations(tool: OtherTool, versions: [String])

        package var description: String { sentence(namingToolsWith: nil) }

        /// The problem in words; where the tool must be named, `option` is how (a
        /// command line's option), or nil for the library's words, and
        /// `codeMigrationsOption` how to adopt past code migrations.
        package func sentence(namingToolsWith option: String?, codeMigrationsOption: String? = nil) -> String {
            switch self {
            case .noLedger(let ledgerLike):
                let found = ledgerLike.isEmpty ? "" : "; it holds \(ledgerLike.map(\.description).joined(separator: ", ")), which adopt cannot map to the migrations"
                let tables = OtherTool.all.compactMap(\.ledgerTables.first).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                return "it has no ledger adopt reads (\(tables.joined(separator: ", ")), or a `PRAGMA user_version` above 0)\(found); "
                    + "to record the migrations whose work its schema already holds, use `baseline --to ID`, which proves the schema first (docs/adopting.md)"
            case .ledgerNotFound(let tool):
                return tool == .userVersion ? "its `PRAGMA user_version` is 0: no ladder records anything"
                    : "it has no \(tool.displayName) ledger (\(tool.ledgerTables[0]) of \(tool.displayName)'s shape)"
            case .severalLedgers(let tools):
                return "it has ledgers of \(tools.map(\.displayName).joined(separator: " and ")); name the one that migrated it\(option.map { " with \($0)" } ?? "") (\(tools.map(\.name).joined(separator: ", ")))"
            case .alreadyManaged(let applied):
                return "MigrationKit's ledger (grdb_migrations) already records \(applied) migration\(applied == 1 ? "" : "s"), so it is managed already"
            case .dirty(let tool, let version):
                return "\(tool.displayName) marked version \(version) dirty (it failed half way); repair the database and clear the flag as \(tool.displayName) says (`migrate force`), then adopt"
            case .failed(let tool, let version, let script):
                return "\(tool.displayName) recorded version \(version)\(script.map { " (\($0))" } ?? "") as failed; repair it with \(tool.displayName) first"
            case .noFile(let tool, let versions):
                return versions.count == 1 ? "\(tool.displayName) recorded version \(versions[0]), and no migration in the folder carries it"
                    : "\(tool.displayName) recorded \(versions.count) versions no migration in the folder carries (\(listing(versions)))"
            case .severalFiles(let tool, let version, let identifiers):
                return "\(tool.displayName) recorded version \(version), which several migrations carry (\(identifiers.joined(separator: ", ")))"
            case .checksumDiffers(let tool, let paths, let versions):
                return paths.count == 1 ? "\(paths[0]) differs from the version \(versions[0]) \(tool.displayName) applied (its checksum is not the one recorded); restore the file as it was applied"
                    : "\(paths.count) files differ from the versions \(tool.displayName) applied (their checksums are not the ones recorded: \(listing(paths))); restore them as they were applied"
            case .beyondFolder(let userVersion, let migrations):
                return "its `PRAGMA user_version` is \(userVersion), and the folder has \(migrations) migration\(migrations == 1 ? "" : "s"), so it is not a count of this folder's migrations; "
                    + "either put the ladder that took it to \(userVersion) in the folder as migrations (one per step, in order), or, where \(userVersion) is the app's own schema number, "
                    + "write a first migration holding the app's schema as it is at \(userVersion) and record it with `baseline --to` that migration (docs/adopting.md)"
            case .beyondSQLDelightFolder(let userVersion, let schemaVersion):
                return "its `PRAGMA user_version` is \(userVersion), and the folder's .sqm files take the schema to version \(schemaVersion), so the database is newer than this folder; "
                    + "use the folder of the app version that made the database (with every N.sqm below \(userVersion))"
            case .gap(let missing, let latest):
                return "the ledger records \(latest) but not \(missing.joined(separator: ", ")) before it"
            case .schemaDiffers(let first, let more, let through):
                return "its schema is not what the migrations \(through.map { "up to \($0)" } ?? "(none)") make (\(first.summary)\(more > 0 ? " and \(more) more" : ""))"
            case .checksumOfAnotherVersion(let tool, let versions):
                let which = versions.count == 1 ? "\(versions[0])" : "\(versions.count) changesets (\(listing(versions)))"
                return "\(tool.displayName) recorded a checksum of an older version of its algorithm (before Liquibase 4.24's `9:`) for \(which), which MigrationKit does not compute; "
                    + "where the files are as Liquibase applied them, run `liquibase clear-checksums` (Liquibase then records each again without comparing), and adopt"
            case .codeMigrations(let tool, let versions):
                let count = versions.count == 1 ? "version \(versions[0])" : "\(versions.count) versions (\(listing(versions)))"
                return "\(tool.displayName) ran \(count) as Java or Kotlin code, which MigrationKit cannot run and no file of the folder carries, so a database not yet past \(versions.count == 1 ? "it" : "them") "
                    + "would never get what \(versions.count == 1 ? "it does" : "they do") and the SQL after \(versions.count == 1 ? "it" : "them") may depend on it; write each as SQL "
                    + "(V<version>__<description>.sql doing what the code does, which adopt then maps and proves), or, if no database older than \(versions.count == 1 ? "it" : "them") will ever be migrated, "
                    + "adopt past \(versions.count == 1 ? "it" : "them") \(codeMigrationsOption.map { "with \($0)" } ?? "(`acceptingCodeMigrations: true`)")"
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

/// A table that looks like a migration tool's ledger (`OtherTool.looksLikeLedger`) and
/// that `adopt` cannot read: one of a known tool's name and another shape, or a name of
/// no known tool.
package struct UnreadLedgerTable: Hashable, Sendable, CustomStringConvertible {
    /// The table's name.
    package let name: String
    /// The tools whose ledger table has that name (golang-migrate's and dbmate's share
    /// one); empty for a name of no known tool.
    let tools: [OtherTool]

    package var description: String {
        guard !tools.isEmpty else { return name }
        return "\(name) (not of \(tools.map { $0.displayName + "'s" }.joined(separator: " or ")) shape)"
    }

    /// The tables of the database that look like ledgers, other than MigrationKit's own:
    /// asked where no tool's reader took a ledger.
    package static func all(in db: some SQLQuerying) throws -> [UnreadLedgerTable] {
        let tables = try db.textColumn(sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY name")
        return tables.compactMap { name in
            let folded = name.lowercased()
            guard OtherTool.looksLikeLedger(name), !folded.hasPrefix("sqlite_"), !SchemaDump.isMigrationKitsOwn(name) else { return nil }
            return UnreadLedgerTable(name: name, tools: OtherTool.all.filter { $0.ledgerTables.contains { $0.lowercased() == folded } })
        }
    }
}

/// How the records of another tool's ledger map to the registered migrations: by
/// version (`MigrationVersion.parts`, so `3` is `0003_x`), by identifier for a tool
/// that records names, or for a `user_version` ladder by position. The one place the
/// mapping is decided.
package enum OtherToolMapping {
    /// A registered migration as the mapping sees it.
    struct Candidate: Sendable {
        package let identifier: String
        /// Its version, as its file's layout reads it; nil for a Swift step.
        package let version: MigrationVersion?
        /// The file of its up SQL, whose bytes the other tool's checksum is of.
        package let path: String?
        /// The layout its file was read in; nil for a Swift step.
        let layout: MigrationFolderLayout?

        package init(identifier: String, version: MigrationVersion?, path: String?, layout: MigrationFolderLayout? = nil) {
            self.identifier = identifier
            self.version = version
            self.path = path
            self.layout = layout
        }
    }

    /// The positions (in `candidates`) of the migrations `ledger` says are applied, or
    /// every problem with it.
    ///
    /// - Parameter acceptingCodeMigrations: versions the tool ran as code and no file
    ///   carries are passed over rather than refused (`Problem.codeMigrations`).
    static func appliedPositions(of ledger: OtherToolLedger, in candidates: [Candidate],
                                         acceptingCodeMigrations: Bool = false) -> Result<[Int], OtherToolAdoptionError> {
        var problems: [OtherToolAdoptionError.Problem] = []
        var missing: [String] = [], edited: [String] = [], editedVersions: [String] = [], code: [String] = [], otherVersion: [String] = []
        var positions: [Int] = []
        let tool = ledger.tool
        if tool == .userVersion {
            let number = ledger.lastVersion.flatMap { Int($0) } ?? 0
            if candidates.contains(where: { $0.layout == .sqlDelight }) {
                return sqlDelightPositions(atSchemaVersion: number, in: candidates)
            }
            guard number <= candidates.count else { return .failure(OtherToolAdoptionError(problems: [.beyondFolder(userVersion: number, migrations: candidates.count)])) }
            return .success(Array(0..<number))
        }
        for record in ledger.records {
            switch record.state {
            case .dirty: problems.append(.dirty(tool: tool, version: record.version))
            case .failed: problems.append(.failed(tool: tool, version: record.version, script: record.script))
            case .applied, .baseline: break
            }
            let matches: [Int]
            if let hash = record.identifierSHA256 {
                // yoyo finds a migration by the SHA-256 of its id.
                matches = candidates.indices.filter { MigrationChecksum.sha256Hex(of: Array(candidates[$0].identifier.utf8)) == hash }
            } else if let identifier = record.identifier {
                matches = candidates.indices.filter { candidates[$0].identifier == identifier }
            } else if tool == .atlas {
                // Atlas compares versions as text.
                matches = candidates.indices.filter { candidates[$0].version?.text == record.version }
            } else {
                let wanted = MigrationVersion(text: record.version, separators: ["."]).parts
                matches = candidates.indices.filter { !wanted.isEmpty && candidates[$0].version?.parts == wanted }
            }
            guard record.state != .failed else { continue }
            guard let position = matches.first else {
                if record.isCode {
                    if !acceptingCodeMigrations { code.append(record.version) }
                } else {
                    missing.append(record.version)
                }
                continue
            }
            if matches.count > 1 {
                problems.append(.severalFiles(tool: tool, version: record.version, identifiers: matches.map { candidates[$0].identifier }))
                continue
            }
            // A file written for a version the tool ran as code has no checksum of its.
            if let checksum = record.checksum, let path = candidates[position].path {
                switch verdict(on: checksum, of: candidates[position], at: path) {
                case .matches: break
                case .differs:
                    edited.append(path)
                    editedVersions.append(record.version)
                case .ofAnotherVersion:
                    otherVersion.append(record.version)
                }
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
        if !missing.isEmpty { problems.append(.noFile(tool: tool, versions: missing)) }
        if !edited.isEmpty { problems.append(.checksumDiffers(tool: tool, paths: edited, versions: editedVersions)) }
        if !code.isEmpty { problems.append(.codeMigrations(tool: tool, versions: code)) }
        if !otherVersion.isEmpty { problems.append(.checksumOfAnotherVersion(tool: tool, versions: otherVersion)) }
        guard problems.isEmpty else { return .failure(OtherToolAdoptionError(problems: problems)) }
        let applied = Array(Set(positions)).sorted()
        if let latest = applied.last, applied.count != latest + 1 {
            let missing = (0...latest).filter { !applied.contains($0) }.map { candidates[$0].identifier }
            return .failure(OtherToolAdoptionError(problems: [.gap(missing: missing, latest: candidates[latest].identifier)]))
        }
        return .success(applied)
    }

    /// The migrations of a SQLDelight folder a database at `user_version` `number` has: every
    /// `N.sqm` with N below it, as SQLDelight's `Schema.migrate` runs the files from the
    /// database's version up (a database SQLDelight created at version V has every file's
    /// schema below V). A number above the folder's last version plus one is beyond it; an
    /// app's Swift steps, registered after the files, are never among them.
    private static func sqlDelightPositions(atSchemaVersion number: Int, in candidates: [Candidate]) -> Result<[Int], OtherToolAdoptionError> {
        let versions = candidates.map { $0.layout == .sqlDelight ? $0.version.flatMap { Int($0.text) } ?? 0 : Int.max }
        let newest = (versions.filter { $0 != Int.max }.max() ?? 0) + 1
        guard number <= max(newest, 1) else {
            return .failure(OtherToolAdoptionError(problems: [.beyondSQLDelightFolder(userVersion: number, schemaVersion: newest)]))
        }
        return .success(candidates.indices.filter { versions[$0] < number })
    }

    /// What a recorded checksum says of a migration.
    private enum Verdict {
        case matches
        /// Its file was edited after the tool applied it.
        case differs
        /// A checksum of a version of the tool's algorithm MigrationKit does not compute
        /// (Liquibase's `8:` and older).
        case ofAnotherVersion
    }

    /// Whether the migration `candidate`, whose file is at `path`, has the checksum the
    /// other tool recorded: sqlx's SHA-384 of its bytes, Flyway's CRC32 of its lines,
    /// Prisma's SHA-256, refinery's SipHash, Liquibase's MD5 of its changeset (or one of
    /// the changeset's `--validCheckSum` lines). A file that cannot be read does not match.
    private static func verdict(on checksum: OtherToolLedger.RecordedChecksum, of candidate: Candidate, at path: String) -> Verdict {
        guard let data = FileManager.default.contents(atPath: path) else { return .differs }
        let bytes = [UInt8](data)
        let matches: Bool
        switch checksum {
        case .sha384(let hex): matches = MigrationChecksum.sha384Hex(of: bytes) == hex.lowercased()
        case .sha256(let hex): matches = MigrationChecksum.sha256Hex(of: bytes) == hex.lowercased()
        case .crc32(let value): matches = FlywayChecksum.of(bytes) == value
        case .prismaSHA256(let hex): matches = PrismaChecksum.matches(bytes, recorded: hex)
        case .refinery(let text):
            let name = String(path.split(separator: "/").last ?? Substring(path))
            matches = RefineryChecksum.of(fileName: name, bytes: bytes).map { String($0) } == text.trimmingCharacters(in: .whitespaces)
        case .liquibase(let recorded):
            let recorded = recorded.trimmingCharacters(in: .whitespaces).lowercased()
            let name = String(path.split(separator: "/").last ?? Substring(path))
            let text = String(decoding: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes, as: UTF8.self)
            guard let changeset = (try? LiquibaseChangelog.changesets(in: text, fileName: name, path: path))?.first(where: { $0.identifier == candidate.identifier }) else {
                return .differs
            }
            // A `--validCheckSum` value Liquibase takes whatever its version.
            if changeset.validChecksums.contains(where: { $0.lowercased() == recorded || $0.lowercased() == "any" }) { return .matches }
            guard recorded.hasPrefix("9:") else { return .ofAnotherVersion }
            matches = LiquibaseChangelog.checksum(ofSQL: changeset.sql) == recorded
        }
        return matches ? .matches : .differs
    }
}
